/**
 * Reliability scenario: the beacon endpoint loses blobs. The verifier derives blob batches (Ecotone)
 * through the real BeaconClient over HTTP, from a primary beacon node that stops serving a block's
 * sidecars: with `--l1.beacon-fallbacks` the fallback serves them (verified against the versioned
 * hashes, counted) and derivation goes on; without a fallback derivation waits on a temporary error
 * and resumes, with the same chain, once the primary has the blobs again.
 */
import { strict as assert } from "node:assert";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseNodeArgs } from "../../../../src/cli/nodeFlags.js";
import { loadKzg } from "../../../../src/crypto/kzg.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { encodeBlob } from "../../../../src/rollup/derive/blobCodec.js";
import type { BlobSource } from "../../../../src/rollup/derive/dataSource.js";
import { encodeFramesTxData } from "../../../../src/rollup/derive/frame.js";
import { BeaconClient } from "../../../../src/rollup/l1/beaconClient.js";
import { assertSameChain } from "../../../reliability/scenarioHarness.js";
import { BATCH_INBOX, L1_BLOCK_TIME } from "../../../utils/actions/l1Miner.js";
import { Rollup } from "../../../utils/actions/rollup.js";

interface Sidecar {
  readonly index: number;
  readonly blob: Uint8Array;
  readonly commitment: Uint8Array;
  readonly proof: Uint8Array;
}

/** A beacon node's blob API: sidecars by slot; `losing` slots are answered without their sidecars. */
interface FakeBeacon {
  url: string;
  readonly slots: Map<number, Sidecar[]>;
  readonly losing: Set<number>;
  /** Sidecars this node served. */
  served: number;
  close(): Promise<void>;
}

async function fakeBeacon(genesisTime: number): Promise<FakeBeacon> {
  const b: FakeBeacon = { url: "", slots: new Map(), losing: new Set(), served: 0, close: async () => undefined };
  const server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (u.pathname === "/eth/v1/node/version") return send(200, { data: { version: "Fake/v1" } });
    if (u.pathname === "/eth/v1/beacon/genesis") {
      return send(200, {
        data: { genesis_time: String(genesisTime), genesis_validators_root: `0x${"00".repeat(32)}` },
      });
    }
    if (u.pathname === "/eth/v1/config/spec") {
      return send(200, { data: { SECONDS_PER_SLOT: String(L1_BLOCK_TIME), SLOTS_PER_EPOCH: "32" } });
    }
    const m = /^\/eth\/v1\/beacon\/blob_sidecars\/(\d+)$/.exec(u.pathname);
    if (m !== null) {
      const slot = Number(m[1]);
      const want = u.searchParams
        .getAll("indices")
        .flatMap((s) => s.split(","))
        .map(Number);
      const all = b.losing.has(slot) ? [] : (b.slots.get(slot) ?? []);
      const data = all.filter((s) => want.length === 0 || want.includes(s.index));
      b.served += data.length;
      return send(200, {
        data: data.map((s) => ({
          index: String(s.index),
          blob: bytesToHex(s.blob),
          kzg_commitment: bytesToHex(s.commitment),
          kzg_proof: bytesToHex(s.proof),
          signed_block_header: { message: { slot: String(slot) } },
          kzg_commitment_inclusion_proof: [],
        })),
      });
    }
    return send(404, { code: 404, message: "not found" });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", () => done()));
  b.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  b.close = () =>
    new Promise<void>((done) => {
      server.closeAllConnections();
      server.close(() => done());
    });
  return b;
}

/** The beacon options of an opal-node command line, through the node's own flag table. */
function beaconOptions(argv: readonly string[]): { url: string; fallbacks: readonly string[] } {
  const parsed = parseNodeArgs(["--l1=http://127.0.0.1:1", "--l2=http://127.0.0.1:2", ...argv], {});
  if (parsed.kind !== "run") throw new Error(JSON.stringify(parsed));
  const c = parsed.config as unknown as Record<string, unknown>;
  return { url: c["l1.beacon"] as string, fallbacks: (c["l1.beacon-fallbacks"] as string[] | undefined) ?? [] };
}

describe("reliability scenarios: beacon", function () {
  this.timeout(60_000);
  const beacons: FakeBeacon[] = [];

  after(async () => {
    for (const b of beacons) await b.close();
  });

  it("[scenario] the beacon endpoint loses blobs: --l1.beacon-fallbacks serves them (counted); without a fallback derivation waits, then resumes when the blobs come back", async () => {
    const kzg = loadKzg();
    let client: BeaconClient | null = null;
    const blobs: BlobSource = { getBlobs: (ref, hashes) => client!.getBlobs(ref, hashes) };
    const r = new Rollup({ blobs });
    const genesisTime = r.miner.refOf(0).timestamp;
    const primary = await fakeBeacon(genesisTime);
    const fallback = await fakeBeacon(genesisTime);
    beacons.push(primary, fallback);

    /** The sequencer's next blocks as one blob on a new L1 block; every beacon node stores its sidecar. */
    const postBlob = async () => {
      await r.sequencer.catchUpToL1();
      await r.sequencer.buildBlock();
      const frames = await r.batcher.channelFrames();
      const blob = encodeBlob(encodeFramesTxData(frames));
      const commitment = kzg.blobToKzgCommitment(blob);
      const sidecar = { index: 0, blob, commitment, proof: kzg.computeBlobKzgProof(blob, commitment) };
      const b = await r.miner.mine([r.miner.blobTxWithSidecars(r.batcherAccount, BATCH_INBOX, [blob])]);
      const slot = (b.timestamp - genesisTime) / L1_BLOCK_TIME;
      for (const node of [primary, fallback]) node.slots.set(slot, [sidecar]);
      return slot;
    };

    // 1. With a fallback: the primary loses the sidecars of the first two blob blocks.
    await r.miner.mine();
    const lost = [await postBlob(), await postBlob()];
    for (const s of lost) primary.losing.add(s);
    const withFallback = beaconOptions([`--l1.beacon=${primary.url}`, `--l1.beacon-fallbacks=${fallback.url}`]);
    assert.deepEqual(withFallback.fallbacks, [fallback.url]);
    client = new BeaconClient({ ...withFallback, timeoutMs: 5_000 });
    const v = r.verifier();
    await v.sync();
    const want = r.sequencer.unsafe;
    assert.equal(bytesToHex(v.heads.safe.hash), bytesToHex(want.hash), "derived through the fallback");
    assert.equal(fallback.served, 2, "the fallback served both lost sidecars");
    assert.equal(primary.served, 0);

    // 2. Without a fallback: the primary loses the next blob; derivation waits, then resumes.
    client = new BeaconClient({ ...beaconOptions([`--l1.beacon=${primary.url}`]), timeoutMs: 5_000 });
    const slot = await postBlob();
    primary.losing.add(slot);
    const stuckAt = v.heads.safe;
    for (let i = 0; i < 3; i++) {
      const step = await v.driver.stepUntilIdle();
      assert.equal(step.kind, "temporary", "a missing blob is a temporary error (retried, not skipped)");
      assert.match(step.kind === "temporary" ? step.error.message : "", /blob|sidecar/i);
      assert.equal(v.heads.safe.number, stuckAt.number, "nothing derived past the missing blob");
    }
    const fallbackServed = fallback.served;
    primary.losing.delete(slot);
    await v.sync();
    assert.equal(fallback.served, fallbackServed, "no fallback configured: the fallback was not asked");
    assert.equal(
      bytesToHex(v.heads.safe.hash),
      bytesToHex(r.sequencer.unsafe.hash),
      "resumed once the blobs came back",
    );
    // A reference verifier, once the primary has every blob again, derives the same chain.
    primary.losing.clear();
    const ref = r.verifier();
    await ref.sync();
    await assertSameChain(v, ref, v.heads.safe.number, "verifier vs reference");
    await assertSameChain(v, r.sequencer, v.heads.safe.number, "verifier vs sequencer");
  });
});
