/**
 * The beacon client and blob verifier against local mock beacon nodes serving real KZG-valid
 * sidecars (encodeBlob + c-kzg commitments and proofs): slot arithmetic and caching, headers on the
 * primary only, blobs in the order asked, fallbacks on 404 / a missing index / a bad proof / a
 * 5xx, op-node's sticky endpoint rotation, a wrong versioned hash rejected everywhere, fetch-all mode,
 * health and timeout failures as typed errors, and the worker-pool verification path. Then the
 * post-Fulu getBlobs (/eth/v1/beacon/blobs, beacon-APIs #546): asked first in op-node's form, blobs
 * matched by recomputed commitment, blob_sidecars on the same endpoint when getBlobs is absent or
 * falls short, a tampered blob refused, archivers serving either form, and the commitments on the pool.
 */
import { strict as assert } from "node:assert";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { loadKzg } from "../../../../src/crypto/kzg.js";
import { PiscinaPool } from "../../../../src/node/pools.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { encodeBlob } from "../../../../src/rollup/derive/blobCodec.js";
import {
  BeaconClient,
  type BeaconClientOptions,
  BeaconConfigError,
  BeaconRequestError,
  BlobFetchError,
  type IndexedBlobHash,
  parseBeaconHeader,
} from "../../../../src/rollup/l1/beaconClient.js";
import { InThreadBlobVerifier, kzgCommitments, PoolBlobVerifier } from "../../../../src/rollup/l1/blobVerifier.js";
import { kzgToVersionedHash } from "../../../../src/tx/blobNetwork.js";

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
  /** The raw query string (without "?"). */
  query: string;
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
  /**
   * /eth/v1/beacon/blobs/{SLOT}: "absent" answers like an unknown route (the 404 below), "serve"
   * answers the sidecars' blobs in index order filtered by versioned_hashes, "unfiltered" answers
   * every blob ignoring the filter, "bare" answers 200 with a bare JSON array (base's blob-archiver on
   * that route, optimism #19623), a number answers that status.
   */
  getBlobs: "absent" | "serve" | "unfiltered" | "bare" | number;
  /** Status for /eth/v1/beacon/blob_sidecars instead of serving it (a node that dropped the route). */
  sidecarStatus: number | null;
  /** Indices whose blob getBlobs answers with one byte changed (the sidecars stay right). */
  tamper: Set<number>;
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
    getBlobs: "absent",
    sidecarStatus: null,
    tamper: new Set(),
    close: async () => undefined,
  };
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    const idx = u.searchParams.getAll("indices");
    const indices = idx.length === 0 ? null : idx.flatMap((s) => s.split(",")).map(Number);
    m.seen.push({ path: u.pathname, indices, query: u.search.slice(1), headers: req.headers });
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
    if (u.pathname === `/eth/v1/beacon/blobs/${SLOT}` && m.getBlobs !== "absent") {
      if (typeof m.getBlobs === "number") return send(m.getBlobs, { code: m.getBlobs, message: "mock getBlobs" });
      if (m.getBlobs === "bare") return send(200, [...m.sidecars.values()].map(sidecarJson));
      const want = new Set(u.searchParams.getAll("versioned_hashes").flatMap((v) => v.split(",")));
      const all = [...m.sidecars.values()].filter((s) => !m.drop.has(s.index)).sort((a, b) => a.index - b.index);
      const data = all
        .filter(
          (s) =>
            m.getBlobs === "unfiltered" || want.size === 0 || want.has(bytesToHex(kzgToVersionedHash(s.commitment))),
        )
        .map((s) => {
          if (!m.tamper.has(s.index)) return bytesToHex(s.blob);
          const b = s.blob.slice();
          b[100] ^= 1;
          return bytesToHex(b);
        });
      return send(200, { execution_optimistic: false, finalized: true, data });
    }
    if (u.pathname === `/eth/v1/beacon/blob_sidecars/${SLOT}`) {
      if (m.sidecarStatus !== null) return send(m.sidecarStatus, { code: m.sidecarStatus, message: "mock sidecars" });
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

function blobsPaths(m: MockBeacon): Seen[] {
  return m.seen.filter((s) => s.path.startsWith("/eth/v1/beacon/blobs/"));
}

/** The blob requests a mock saw, in order: "blobs" or "blob_sidecars". */
function routes(m: MockBeacon): string[] {
  return m.seen
    .filter((s) => s.path.startsWith("/eth/v1/beacon/blob"))
    .map((s) => (s.path.startsWith("/eth/v1/beacon/blobs/") ? "blobs" : "blob_sidecars"));
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

  describe("getBlobs (/eth/v1/beacon/blobs, beacon-APIs #546)", () => {
    const hex = (i: number) => bytesToHex(kzgToVersionedHash(sidecars[i].commitment));

    it("is asked first in op-node's form and its blobs come back in the order asked, with no blob_sidecars", async () => {
      const primary = await beacon();
      primary.getBlobs = "serve";
      const c = client({ url: primary.url, headers: ["X-Api-Key: secret"], fetchAllSidecars: true });
      const blobs = await c.getBlobs(REF, hashesFor([2, 0, 3]));
      assert.deepEqual(blobs, [sidecars[2].blob, sidecars[0].blob, sidecars[3].blob]);
      assert.deepEqual(routes(primary), ["blobs"]);
      const [req] = blobsPaths(primary);
      // The slot as block id; repeated keys in the order asked (op-node: url.Values.Add per hash);
      // fetch-all-sidecars does not drop the filter of this form.
      assert.equal(req.path, `/eth/v1/beacon/blobs/${SLOT}`);
      assert.equal(req.query, `versioned_hashes=${hex(2)}&versioned_hashes=${hex(0)}&versioned_hashes=${hex(3)}`);
      assert.equal(req.headers["x-api-key"], "secret");
      assert.equal(req.headers.accept, "application/json");
    });

    for (const status of [404, 405, 501, 500]) {
      it(`falls back to blob_sidecars on the same endpoint when getBlobs answers ${status}, on every call`, async () => {
        const primary = await beacon();
        primary.getBlobs = status;
        const c = client({ url: primary.url, headers: ["X-Api-Key: secret"] });
        assert.deepEqual(await c.getBlobs(REF, hashesFor([1, 3])), [sidecars[1].blob, sidecars[3].blob]);
        assert.deepEqual(await c.getBlobs(REF, hashesFor([0])), [sidecars[0].blob]);
        // Not remembered: getBlobs is asked again on the second call (op-node decides per call).
        assert.deepEqual(routes(primary), ["blobs", "blob_sidecars", "blobs", "blob_sidecars"]);
        assert.deepEqual(
          sidecarPaths(primary).map((s) => s.indices),
          [[1, 3], [0]],
        );
        assert.equal(sidecarPaths(primary)[0].headers["x-api-key"], "secret");
      });
    }

    it("refuses a tampered getBlobs blob (versioned-hash mismatch) and asks blob_sidecars for it alone", async () => {
      const primary = await beacon();
      primary.getBlobs = "serve";
      primary.tamper.add(1);
      primary.sidecarStatus = 404;
      const c = client({ url: primary.url });
      await assert.rejects(c.getBlobs(REF, hashesFor([0, 1, 2])), (e: unknown) => {
        assert.ok(e instanceof BlobFetchError);
        assert.deepEqual(e.missing, [1]);
        assert.deepEqual(
          e.attempts.map((a) => [a.endpoint.split(" (")[0], a.route, a.reason, a.status, a.indices]),
          [
            ["primary", "blobs", "hash_mismatch", 200, [1]],
            ["primary", "blob_sidecars", "not_found", 404, [1]],
          ],
        );
        assert.match(e.message, /primary \(127\.0\.0\.1:\d+\) blobs: hash_mismatch 200/);
        return true;
      });
      // The same endpoint's sidecars (proof-checked) supply it; the verified getBlobs blobs are kept.
      primary.sidecarStatus = null;
      assert.deepEqual(await c.getBlobs(REF, hashesFor([0, 1, 2])), [
        sidecars[0].blob,
        sidecars[1].blob,
        sidecars[2].blob,
      ]);
      assert.deepEqual(sidecarPaths(primary).at(-1)?.indices, [1]);
    });

    it("refuses more blobs than asked (a node ignoring the filter) and blobs that are not blobs", async () => {
      const loose = await beacon();
      loose.getBlobs = "unfiltered";
      assert.deepEqual(await client({ url: loose.url }).getBlobs(REF, hashesFor([3])), [sidecars[3].blob]);
      assert.deepEqual(routes(loose), ["blobs", "blob_sidecars"]);

      // Index 0 stored with a blob of field elements ≥ the BLS modulus (c-kzg computes no commitment);
      // the mock filters by the stored commitment, so that is what getBlobs returns for hash 0.
      const junk = await beacon(
        sidecars.map((s) => (s.index === 0 ? { ...s, blob: new Uint8Array(131_072).fill(0xff) } : s)),
      );
      junk.getBlobs = "serve";
      junk.sidecarStatus = 503;
      await assert.rejects(client({ url: junk.url }).getBlobs(REF, hashesFor([0])), (e: unknown) => {
        assert.ok(e instanceof BlobFetchError);
        assert.deepEqual(
          e.attempts.map((a) => [a.route, a.reason]),
          [
            ["blobs", "bad_response"],
            ["blob_sidecars", "http_status"],
          ],
        );
        assert.match(e.attempts[0].message, /not valid blobs/);
        assert.match(e.attempts[1].message, /HTTP 503/);
        assert.doesNotMatch(e.attempts[1].message, /getBlobs first/, "getBlobs answered 200");
        return true;
      });
    });

    it("names a getBlobs status in the blob_sidecars attempt that followed it, and skips sidecars on a dead host", async () => {
      const primary = await beacon();
      primary.getBlobs = 405;
      primary.sidecarStatus = 500;
      const c = client({ url: primary.url, fallbacks: ["http://127.0.0.1:1"] });
      await assert.rejects(c.getBlobs(REF, hashesFor([2])), (e: unknown) => {
        assert.ok(e instanceof BlobFetchError);
        assert.deepEqual(
          e.attempts.map((a) => [a.endpoint.split(" (")[0], a.route, a.reason, a.status]),
          [
            ["primary", "blob_sidecars", "http_status", 500],
            ["fallback 1", "blobs", "transport", null],
          ],
        );
        assert.match(e.attempts[0].message, /getBlobs first answered HTTP 405/);
        assert.ok(!e.notFound, "a getBlobs 404/405 is not a missing blob");
        return true;
      });
    });

    it("fallbacks: an archiver with blob_sidecars only after a primary that lost the blobs", async () => {
      const primary = await beacon();
      primary.getBlobs = "serve";
      primary.drop.add(0).add(2);
      const archiver = await beacon();
      archiver.getBlobs = "bare";
      const c = client({ url: primary.url, headers: ["X-Api-Key: secret"], fallbacks: [archiver.url] });
      assert.deepEqual(await c.getBlobs(REF, hashesFor([0, 1, 2])), [
        sidecars[0].blob,
        sidecars[1].blob,
        sidecars[2].blob,
      ]);
      // The primary: getBlobs (1 of 3), then its sidecars for 0 and 2 (lost too); the archiver: getBlobs
      // is an unknown route there (a bare array, not the getBlobs shape), its sidecars serve 0 and 2.
      assert.deepEqual(routes(primary), ["blobs", "blob_sidecars"]);
      assert.deepEqual(sidecarPaths(primary)[0].indices, [0, 2]);
      assert.deepEqual(routes(archiver), ["blobs", "blob_sidecars"]);
      assert.equal(blobsPaths(archiver)[0].query, `versioned_hashes=${hex(0)}&versioned_hashes=${hex(2)}`);
      assert.deepEqual(sidecarPaths(archiver)[0].indices, [0, 2]);
      for (const s of archiver.seen) assert.equal(s.headers["x-api-key"], undefined);

      // When nothing has them, the attempts say so route by route.
      archiver.drop.add(0);
      await assert.rejects(c.getBlobs(REF, hashesFor([0])), (e: unknown) => {
        assert.ok(e instanceof BlobFetchError);
        assert.deepEqual(
          e.attempts.map((a) => [a.endpoint.split(" (")[0], a.route, a.reason]),
          [
            ["fallback 1", "blobs", "bad_response"],
            ["fallback 1", "blob_sidecars", "missing"],
            ["primary", "blobs", "missing"],
            ["primary", "blob_sidecars", "missing"],
          ],
        );
        return true;
      });
    });

    it("mixed: a primary with sidecars only, then a getBlobs-only fallback; a blob twice in the block", async () => {
      const primary = await beacon();
      primary.drop.add(3);
      const modern = await beacon();
      modern.getBlobs = "serve";
      modern.sidecarStatus = 404;
      const c = client({ url: primary.url, fallbacks: [modern.url] });
      assert.deepEqual(await c.getBlobs(REF, hashesFor([3, 1])), [sidecars[3].blob, sidecars[1].blob]);
      assert.deepEqual(routes(primary), ["blobs", "blob_sidecars"]);
      assert.deepEqual(routes(modern), ["blobs"]);
      assert.equal(blobsPaths(modern)[0].query, `versioned_hashes=${hex(3)}`);

      // The same blob at indices 0 and 4: one key in the query, both copies come back, both filled.
      const twice = await beacon([...sidecars, { ...sidecars[0], index: 4 }]);
      twice.getBlobs = "serve";
      const h0 = kzgToVersionedHash(sidecars[0].commitment);
      const got = await client({ url: twice.url }).getBlobs(REF, [
        { index: 4, versionedHash: h0 },
        { index: 2, versionedHash: kzgToVersionedHash(sidecars[2].commitment) },
        { index: 0, versionedHash: h0 },
      ]);
      assert.deepEqual(got, [sidecars[0].blob, sidecars[2].blob, sidecars[0].blob]);
      assert.equal(blobsPaths(twice)[0].query, `versioned_hashes=${hex(0)}&versioned_hashes=${hex(2)}`);
      assert.deepEqual(routes(twice), ["blobs"]);
    });

    it("recomputes commitments in the calling thread and on the kzgVerify pool alike", async () => {
      const k = createRequire(import.meta.url)("c-kzg") as KzgProver;
      const input = [sidecars[0].blob, new Uint8Array(10), new Uint8Array(131_072).fill(0xff), sidecars[3].blob];
      const want = [k.blobToKzgCommitment(sidecars[0].blob), null, null, k.blobToKzgCommitment(sidecars[3].blob)];
      const norm = (r: (Uint8Array | null)[]) => r.map((c) => (c === null ? null : bytesToHex(c)));
      assert.deepEqual(norm(await new InThreadBlobVerifier().commitments(input)), norm(want));
      assert.deepEqual(norm(kzgCommitments(input)), norm(want));
      const pool = new PiscinaPool("kzgVerify", { threads: 1 });
      try {
        await pool.warm();
        const v = new PoolBlobVerifier(pool);
        assert.deepEqual(norm(await v.commitments(input)), norm(want));
        assert.deepEqual(await v.commitments([]), []);
        // Through the client: a tampered getBlobs blob refused with the pool's commitments too.
        const primary = await beacon();
        primary.getBlobs = "serve";
        primary.tamper.add(2);
        const fallback = await beacon();
        fallback.getBlobs = "serve";
        const c = client({ url: primary.url, fallbacks: [fallback.url], verifier: v });
        primary.sidecarStatus = 501;
        assert.deepEqual(await c.getBlobs(REF, hashesFor([2, 1])), [sidecars[2].blob, sidecars[1].blob]);
        assert.deepEqual(routes(fallback), ["blobs"]);
        assert.equal(blobsPaths(fallback)[0].query, `versioned_hashes=${hex(2)}`);
      } finally {
        await pool.destroy();
      }
    });
  });
});
