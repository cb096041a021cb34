/**
 * The beacon client and blob verifier against local mock beacon nodes serving real KZG-valid
 * sidecars (encodeBlob + c-kzg commitments and proofs): slot arithmetic and caching, headers on the
 * primary only, blobs in the order asked, fallbacks on 404 / a missing index / a bad proof / a
 * 5xx, op-node's sticky endpoint rotation, a wrong versioned hash rejected everywhere, fetch-all mode,
 * health and timeout failures as typed errors, and the worker-pool verification path.
 */
import { strict as assert } from "node:assert";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { loadKzg } from "../../../src/crypto/kzg.js";
import { PiscinaPool } from "../../../src/node/pools.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import {
  BeaconClient,
  type BeaconClientOptions,
  BeaconConfigError,
  BeaconRequestError,
  BlobFetchError,
  type IndexedBlobHash,
  parseBeaconHeader,
} from "../../../src/rollup/beaconClient.js";
import { InThreadBlobVerifier, PoolBlobVerifier } from "../../../src/rollup/blobVerifier.js";
import { encodeBlob } from "../../../src/rollup/derive/blobCodec.js";
import { kzgToVersionedHash } from "../../../src/tx/blobNetwork.js";

interface KzgProver {
  blobToKzgCommitment(blob: Uint8Array): Uint8Array;
  computeBlobKzgProof(blob: Uint8Array, commitment: Uint8Array): Uint8Array;
}

interface Sidecar {
  index: number;
  blob: Uint8Array;
  commitment: Uint8Array;
  proof: Uint8Array;
}

const GENESIS = 1_606_824_023;
const SLOT = 9_000_000;
const L1_TIME = GENESIS + SLOT * 12 + 5;
const REF = { timestamp: L1_TIME, hash: new Uint8Array(32).fill(0xab), number: 21_000_000 };

interface Seen {
  path: string;
  indices: number[] | null;
  headers: IncomingHttpHeaders;
}

interface MockBeacon {
  url: string;
  seen: Seen[];
  /** Sidecars of SLOT, by index. */
  sidecars: Map<number, Sidecar>;
  /** Status to answer every request with, instead of serving (e.g. 404, 503). */
  status: number | null;
  /** Indices to leave out of answers. */
  drop: Set<number>;
  /** Never answer. */
  hang: boolean;
  close(): Promise<void>;
}

function sidecarJson(s: Sidecar): unknown {
  return {
    index: String(s.index),
    blob: bytesToHex(s.blob),
    kzg_commitment: bytesToHex(s.commitment),
    kzg_proof: bytesToHex(s.proof),
    signed_block_header: { message: { slot: String(SLOT) } },
    kzg_commitment_inclusion_proof: [],
  };
}

async function mockBeacon(sidecars: readonly Sidecar[]): Promise<MockBeacon> {
  const m: MockBeacon = {
    url: "",
    seen: [],
    sidecars: new Map(sidecars.map((s) => [s.index, s])),
    status: null,
    drop: new Set(),
    hang: false,
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    const idx = u.searchParams.getAll("indices");
    const indices = idx.length === 0 ? null : idx.flatMap((s) => s.split(",")).map(Number);
    m.seen.push({ path: u.pathname, indices, headers: req.headers });
    if (m.hang) return;
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (m.status !== null) return send(m.status, { code: m.status, message: "mock failure" });
    if (u.pathname === "/eth/v1/node/version") return send(200, { data: { version: "Mock/v1.0.0" } });
    if (u.pathname === "/eth/v1/beacon/genesis") {
      return send(200, { data: { genesis_time: String(GENESIS), genesis_validators_root: "0x00" } });
    }
    if (u.pathname === "/eth/v1/config/spec")
      return send(200, { data: { SECONDS_PER_SLOT: "12", SLOTS_PER_EPOCH: "32" } });
    if (u.pathname === `/eth/v1/beacon/blob_sidecars/${SLOT}`) {
      const all = [...m.sidecars.values()].filter((s) => !m.drop.has(s.index));
      const data = indices === null ? all : all.filter((s) => indices.includes(s.index));
      return send(200, { data: data.map(sidecarJson) });
    }
    return send(404, { code: 404, message: "not found" });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  m.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  m.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return m;
}

function sidecarPaths(m: MockBeacon): Seen[] {
  return m.seen.filter((s) => s.path.startsWith("/eth/v1/beacon/blob_sidecars/"));
}

describe("rollup/beaconClient", function () {
  this.timeout(60_000);
  let sidecars: Sidecar[];
  let payloads: Uint8Array[];
  const servers: MockBeacon[] = [];

  async function beacon(list: readonly Sidecar[] = sidecars): Promise<MockBeacon> {
    const m = await mockBeacon(list);
    servers.push(m);
    return m;
  }

  function hashesFor(indices: readonly number[]): IndexedBlobHash[] {
    return indices.map((i) => ({ index: i, versionedHash: kzgToVersionedHash(sidecars[i].commitment) }));
  }

  function client(opts: Partial<BeaconClientOptions> & { url: string }): BeaconClient {
    return new BeaconClient({ timeoutMs: 5_000, ...opts });
  }

  /** The same sidecars with the proof of index i swapped for another blob's (a valid point, wrong proof). */
  function withBadProof(i: number): Sidecar[] {
    return sidecars.map((s) => (s.index === i ? { ...s, proof: sidecars[(i + 1) % sidecars.length].proof } : s));
  }

  before(() => {
    loadKzg();
    const k = createRequire(import.meta.url)("c-kzg") as KzgProver;
    payloads = [0, 1, 2, 3].map((i) => {
      const p = new Uint8Array(1000 + i * 5000);
      for (let j = 0; j < p.length; j++) p[j] = (j * 31 + i * 7) & 0xff;
      return p;
    });
    sidecars = payloads.map((p, index) => {
      const blob = encodeBlob(p);
      const commitment = k.blobToKzgCommitment(blob);
      return { index, blob, commitment, proof: k.computeBlobKzgProof(blob, commitment) };
    });
  });

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it("parses --l1.beacon-header as op-node does and refuses bad headers and URLs at construction", async () => {
    assert.deepEqual(parseBeaconHeader("X-Api-Key: a: b"), ["X-Api-Key", "a: b"]);
    for (const h of ["X-Key:Value", "X-Key", "", "Bad Name: v", ": v", "X-Key: a\r\nInjected: 1"]) {
      assert.throws(() => new BeaconClient({ url: "http://127.0.0.1:1", headers: [h] }), BeaconConfigError, h);
    }
    assert.throws(() => new BeaconClient({ url: "not a url" }), BeaconConfigError);
    assert.throws(() => new BeaconClient({ url: "ftp://host" }), BeaconConfigError);
    assert.throws(() => new BeaconClient({ url: "http://h", fallbacks: ["::"] }), BeaconConfigError);
    assert.throws(() => new BeaconClient({ url: "http://h", timeoutMs: 0 }), BeaconConfigError);
  });

  it("computes slots, checks health, sends headers to the primary only, returns blobs in the order asked", async () => {
    const primary = await beacon();
    const fallback = await beacon();
    const c = client({
      url: `${primary.url}/`,
      headers: ["X-Api-Key: secret", "Authorization: Bearer t"],
      fallbacks: [fallback.url],
    });
    assert.equal(await c.checkHealth(), "Mock/v1.0.0");
    assert.equal(await c.slotOf(GENESIS), 0);
    assert.equal(await c.slotOf(L1_TIME), SLOT);
    await assert.rejects(
      c.slotOf(GENESIS - 1),
      (e: unknown) => e instanceof BeaconRequestError && e.reason === "bad_slot",
    );
    assert.equal(primary.seen.filter((s) => s.path === "/eth/v1/beacon/genesis").length, 1, "genesis cached");

    const blobs = await c.getBlobs(REF, hashesFor([2, 0, 3]));
    assert.deepEqual(blobs, [sidecars[2].blob, sidecars[0].blob, sidecars[3].blob]);
    const req = sidecarPaths(primary);
    assert.equal(req.length, 1);
    assert.deepEqual(req[0].indices, [2, 0, 3]);
    for (const s of primary.seen) {
      assert.equal(s.headers["x-api-key"], "secret");
      assert.equal(s.headers.authorization, "Bearer t");
      assert.equal(s.headers.accept, "application/json");
    }
    assert.equal(fallback.seen.length, 0);
    assert.deepEqual(await c.getBlobs(REF, []), []);
  });

  it("falls back when the primary 404s, sends the fallback no headers, and stays there as op-node does", async () => {
    const primary = await beacon();
    const fallback = await beacon();
    const c = client({ url: primary.url, headers: ["X-Api-Key: secret"], fallbacks: [fallback.url] });
    await c.slotOf(L1_TIME);
    primary.status = 404;
    assert.deepEqual(await c.getBlobs(REF, hashesFor([1])), [sidecars[1].blob]);
    const fb = sidecarPaths(fallback);
    assert.equal(fb.length, 1);
    assert.equal(fb[0].headers["x-api-key"], undefined);
    // The next call starts at the fallback.
    primary.status = null;
    assert.deepEqual(await c.getBlobs(REF, hashesFor([0, 1])), [sidecars[0].blob, sidecars[1].blob]);
    assert.equal(sidecarPaths(primary).length, 1);
    assert.equal(sidecarPaths(fallback).length, 2);
  });

  it("asks a fallback only for the sidecars the primary lacked", async () => {
    const primary = await beacon();
    const fallback = await beacon();
    primary.drop.add(3);
    const c = client({ url: primary.url, fallbacks: [fallback.url] });
    const blobs = await c.getBlobs(REF, hashesFor([0, 3, 1]));
    assert.deepEqual(blobs, [sidecars[0].blob, sidecars[3].blob, sidecars[1].blob]);
    assert.deepEqual(
      sidecarPaths(fallback).map((s) => s.indices),
      [[3]],
    );
  });

  it("falls back on a bad KZG proof and on a 5xx, past a failing fallback to the next", async () => {
    const primary = await beacon(withBadProof(1));
    const broken = await beacon();
    broken.status = 503;
    const good = await beacon();
    const c = client({ url: primary.url, fallbacks: [broken.url, good.url] });
    assert.deepEqual(await c.getBlobs(REF, hashesFor([0, 1])), [sidecars[0].blob, sidecars[1].blob]);
    assert.deepEqual(
      sidecarPaths(broken).map((s) => s.indices),
      [[1]],
    );
    assert.deepEqual(
      sidecarPaths(good).map((s) => s.indices),
      [[1]],
    );
  });

  it("throws BlobFetchError with what each endpoint did when no endpoint has every blob", async () => {
    const primary = await beacon(withBadProof(0));
    const fallback = await beacon();
    fallback.status = 404;
    const c = client({ url: primary.url, fallbacks: [fallback.url] });
    await assert.rejects(c.getBlobs(REF, hashesFor([0, 2])), (e: unknown) => {
      assert.ok(e instanceof BlobFetchError);
      assert.equal(e.slot, SLOT);
      assert.deepEqual(e.missing, [0]);
      assert.deepEqual(
        e.attempts.map((a) => [a.endpoint.split(" (")[0], a.reason, a.status, a.indices]),
        [
          ["primary", "bad_proof", 200, [0]],
          ["fallback 1", "not_found", 404, [0]],
        ],
      );
      assert.ok(e.notFound);
      assert.ok(!e.message.includes("secret"));
      return true;
    });
    // Transport failure and 500 everywhere: temporary, not "not found".
    const down = await beacon();
    const c2 = client({ url: down.url, fallbacks: ["http://127.0.0.1:1"] });
    await c2.slotOf(L1_TIME);
    down.status = 500;
    await assert.rejects(c2.getBlobs(REF, hashesFor([3])), (e: unknown) => {
      assert.ok(e instanceof BlobFetchError);
      assert.deepEqual(
        e.attempts.map((a) => a.reason),
        ["http_status", "transport"],
      );
      assert.ok(!e.notFound);
      return true;
    });
  });

  it("rejects a sidecar whose commitment does not hash to the requested versioned hash", async () => {
    const primary = await beacon();
    const fallback = await beacon();
    const c = client({ url: primary.url, fallbacks: [fallback.url] });
    const wrong = [{ index: 2, versionedHash: kzgToVersionedHash(sidecars[1].commitment) }];
    await assert.rejects(c.getBlobs(REF, wrong), (e: unknown) => {
      assert.ok(e instanceof BlobFetchError);
      assert.deepEqual(
        e.attempts.map((a) => a.reason),
        ["hash_mismatch", "hash_mismatch"],
      );
      return true;
    });
    // A fallback with the right sidecar at that index rescues it.
    const swapped = await beacon(sidecars.map((s) => (s.index === 2 ? { ...sidecars[1], index: 2 } : s)));
    const c2 = client({ url: primary.url, fallbacks: [swapped.url] });
    assert.deepEqual(await c2.getBlobs(REF, wrong), [sidecars[1].blob]);
  });

  it("fetch-all-sidecars mode asks without indices and filters locally", async () => {
    const primary = await beacon();
    const c = client({ url: primary.url, fetchAllSidecars: true });
    assert.deepEqual(await c.getBlobs(REF, hashesFor([3, 1])), [sidecars[3].blob, sidecars[1].blob]);
    assert.deepEqual(
      sidecarPaths(primary).map((s) => s.indices),
      [null],
    );
  });

  it("reports health failures, timeouts and a failed genesis lookup as typed errors, without caching them", async () => {
    const primary = await beacon();
    primary.status = 503;
    const c = client({ url: primary.url, timeoutMs: 300 });
    await assert.rejects(c.checkHealth(), (e: unknown) => {
      assert.ok(e instanceof BeaconRequestError);
      assert.deepEqual([e.reason, e.status], ["http_status", 503]);
      return true;
    });
    await assert.rejects(c.getBlobs(REF, hashesFor([0])), (e: unknown) => {
      assert.ok(e instanceof BlobFetchError);
      assert.equal(e.slot, null);
      assert.equal(e.attempts[0].reason, "http_status");
      return true;
    });
    primary.status = null;
    assert.deepEqual(await c.getBlobs(REF, hashesFor([0])), [sidecars[0].blob]);

    const silent = await beacon();
    silent.hang = true;
    await assert.rejects(
      client({ url: silent.url, timeoutMs: 200 }).checkHealth(),
      (e: unknown) => e instanceof BeaconRequestError && e.reason === "timeout",
    );
    await assert.rejects(
      client({ url: "http://127.0.0.1:1" }).checkHealth(),
      (e: unknown) => e instanceof BeaconRequestError && e.reason === "transport",
    );
  });

  it("verifies in the calling thread: one boolean per item", async () => {
    const v = new InThreadBlobVerifier();
    const item = (i: number) => ({
      blob: sidecars[i].blob,
      commitment: sidecars[i].commitment,
      proof: sidecars[i].proof,
      versionedHash: kzgToVersionedHash(sidecars[i].commitment),
    });
    assert.deepEqual(await v.verify([]), []);
    assert.deepEqual(await v.verify([item(0), item(1), item(2)]), [true, true, true]);
    assert.deepEqual(
      await v.verify([
        item(0),
        { ...item(1), proof: sidecars[2].proof },
        { ...item(2), versionedHash: new Uint8Array(32) },
        { ...item(3), blob: new Uint8Array(10) },
        { ...item(3), blob: new Uint8Array(131_072).fill(0xff) },
        item(3),
      ]),
      [true, false, false, false, false, true],
    );
  });

  it("verifies on a kzgVerify worker pool", async () => {
    const pool = new PiscinaPool("kzgVerify", { threads: 1 });
    try {
      await pool.warm();
      const primary = await beacon(withBadProof(2));
      const fallback = await beacon();
      const c = client({ url: primary.url, fallbacks: [fallback.url], verifier: new PoolBlobVerifier(pool) });
      assert.deepEqual(await c.getBlobs(REF, hashesFor([0, 1, 2])), [
        sidecars[0].blob,
        sidecars[1].blob,
        sidecars[2].blob,
      ]);
      assert.deepEqual(
        sidecarPaths(fallback).map((s) => s.indices),
        [[2]],
      );
    } finally {
      await pool.destroy();
    }
  });
});
