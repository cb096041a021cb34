/**
 * The Engine API from Osaka (execution-apis src/engine/osaka.md): engine_getPayloadV5 with its
 * BlobsBundleV2 (every blob's 128 cell proofs, checked here with c-kzg's own
 * verifyCellKzgProofBatch), the fork windows of every method version (geth eth/catalyst/api.go
 * v1.17.5 checkFork lists: V4 refused for Osaka payloads, V5 for Prague ones, newPayloadV4 serving
 * Osaka, …), engine_getBlobsV1–V3 over the dev L1's sidecar store, and the OP exception: getPayloadV4
 * still served for Karst payloads, V5 answering V4's envelope.
 */
import { strict as assert } from "node:assert";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { type CKzg, loadKzg } from "../../../src/crypto/kzg.js";
import { EngineApi } from "../../../src/engine/engineApi.js";
import { engineMethods } from "../../../src/engine/methods.js";
import { devAccounts, l1DevGenesis } from "../../../src/node/exec/devGenesis.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { encodeBlob } from "../../../src/rollup/derive/blobCodec.js";
import type { Dispatcher } from "../../../src/rpc/dispatch.js";
import { Registry } from "../../../src/rpc/registry.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { encodeTx } from "../../../src/tx/envelope.js";
import { encodeL1BlockInfo, L1InfoFormat, newL1BlockInfo } from "../../../src/tx/l1BlockInfo.js";
import { signTx } from "../../../src/tx/signer.js";
import { type BlobTx, TxType } from "../../../src/tx/tx.js";
import { BlobSidecarStore } from "../../../src/txpool/blobSidecars.js";
import { TxPool } from "../../../src/txpool/txPool.js";
import { txSourceOf } from "../../../src/txpool/txsByPriceAndNonce.js";
import { l1Genesis, opGenesis } from "../../utils/genesis.js";

const ZERO = `0x${"00".repeat(32)}`;
const CELLS = 128;
const KEY = devAccounts(1)[0]!;

interface Reply {
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

async function call(d: Dispatcher, method: string, params: unknown[]): Promise<Reply> {
  const r = await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), {
    ctx: { transport: "http", remoteAddr: "" },
    subs: null,
  });
  return JSON.parse(r as string);
}

/** c-kzg itself (the binding crypto/kzg.ts loads), for expectations independent of Opal's helpers. */
function ckzg(): CKzg {
  loadKzg(); // the trusted setup, once per thread
  return createRequire(import.meta.url)("c-kzg") as CKzg;
}

interface Node {
  chain: Blockchain;
  store: BlobSidecarStore;
  pool: TxPool;
  api: EngineApi;
  d: Dispatcher;
  head: string;
}

/** An L1 dev chain (Osaka at `osakaTime`; null: Prague) with a blob-taking pool and its sidecar store. */
function node(osakaTime: number | null = 0, genesis?: Record<string, unknown>): Node {
  const g = genesis ?? l1DevGenesis(30_000_000n, devAccounts(1), { osakaTime });
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(g), g.config as never);
  const store = new BlobSidecarStore(4096, chain);
  const pool = new TxPool({}, { chain, acceptBlobs: true });
  const api = new EngineApi(chain, (baseFee) => txSourceOf(pool.byPriceAndNonce(baseFee)), { blobs: store });
  const d = new Registry(engineMethods(api)).forApis(["engine"]);
  return { chain, store, pool, api, d, head: bytesToHex(chain.headBlockHash) };
}

interface BlobTxParts {
  tx: BlobTx;
  blobs: Uint8Array[];
  commitments: Uint8Array[];
  versionedHashes: Uint8Array[];
}

/** A signed blob tx of `payloads`, its blobs and commitments computed with c-kzg. */
function blobTx(chain: Blockchain, payloads: readonly Uint8Array[], nonce = 0n): BlobTxParts {
  const k = ckzg();
  const blobs = payloads.map((p) => encodeBlob(p));
  const commitments = blobs.map((b) => k.blobToKzgCommitment(b));
  const versionedHashes = commitments.map((c) => {
    // EIP-4844 kzg_to_versioned_hash, computed here with node:crypto.
    const h = new Uint8Array(createHash("sha256").update(c).digest());
    h[0] = 0x01;
    return h;
  });
  const tx: BlobTx = {
    type: TxType.Blob,
    chainId: chain.config.chainId,
    nonce,
    maxPriorityFeePerGas: 1_000_000_000n,
    maxFeePerGas: 100_000_000_000n,
    gasLimit: 21_000n,
    to: hexToBytes("0xff00000000000000000000000000000000000901"),
    value: 0n,
    data: new Uint8Array(0),
    accessList: [],
    maxFeePerBlobGas: 1_000_000_000n,
    blobVersionedHashes: versionedHashes,
    yParity: 0,
    r: 0n,
    s: 0n,
  };
  return { tx: signTx(tx, KEY.privateKey) as BlobTx, blobs, commitments, versionedHashes };
}

/** Gives `n` the tx's sidecar in wrapper `version` (proofs from c-kzg) and pools the tx. */
async function submit(n: Node, t: BlobTxParts, version: 0 | 1): Promise<void> {
  const k = ckzg();
  const proofs =
    version === 0
      ? t.blobs.map((b, i) => k.computeBlobKzgProof(b, t.commitments[i]!))
      : t.blobs.flatMap((b) => k.computeCellsAndKzgProofs(b)[1]);
  n.store.add({ tx: t.tx, wrapperVersion: version, blobs: t.blobs, commitments: t.commitments, proofs });
  const [r] = await n.pool.add([encodeTx(t.tx)]);
  assert.equal(r!.error, null, r!.error?.message);
}

const attrs = (timestamp: number, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  timestamp: `0x${timestamp.toString(16)}`,
  prevRandao: ZERO,
  suggestedFeeRecipient: `0x${"11".repeat(20)}`,
  withdrawals: [],
  parentBeaconBlockRoot: ZERO,
  ...extra,
});

async function build(n: Node, timestamp: number): Promise<string> {
  const st = { headBlockHash: n.head, safeBlockHash: n.head, finalizedBlockHash: ZERO };
  const r = await call(n.d, "engine_forkchoiceUpdatedV3", [st, attrs(timestamp)]);
  assert.equal(r.error, undefined, JSON.stringify(r.error));
  return (r.result as { payloadId: string }).payloadId;
}

interface Bundle {
  commitments: string[];
  proofs: string[];
  blobs: string[];
}

/** Checks a BlobsBundleV2 with c-kzg's verifyCellKzgProofBatch as osaka.md writes the check. */
function assertCellBundle(b: Bundle, t: BlobTxParts): void {
  const n = t.blobs.length;
  assert.deepEqual(
    b.commitments,
    t.commitments.map((c) => bytesToHex(c)),
  );
  assert.deepEqual(
    b.blobs,
    t.blobs.map((x) => bytesToHex(x)),
  );
  assert.equal(b.proofs.length, n * CELLS);
  const k = ckzg();
  const commitments: Uint8Array[] = [];
  const indices: number[] = [];
  const cells: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const blobCells = k.computeCells(hexToBytes(b.blobs[i]!));
    for (let c = 0; c < CELLS; c++) {
      commitments.push(hexToBytes(b.commitments[i]!));
      indices.push(c);
      cells.push(blobCells[c]!);
    }
  }
  const proofs = b.proofs.map((p) => hexToBytes(p));
  assert.equal(k.verifyCellKzgProofBatch(commitments, indices, cells, proofs), true);
  // A proof out of place fails the same check: the verification is not vacuous.
  const swapped = [...proofs];
  [swapped[0], swapped[1]] = [swapped[1]!, swapped[0]!];
  assert.equal(k.verifyCellKzgProofBatch(commitments, indices, cells, swapped), false);
}

describe("engine: Osaka (getPayloadV5, fork windows, getBlobs)", function () {
  this.timeout(120_000); // the KZG setup load and cell proofs (~0.3 s a blob)

  it("getPayloadV5 on an Osaka L1: BlobsBundleV2 with cell proofs; V3/V4 refused; newPayloadV4 takes it", async () => {
    const n = node(0);
    const t = blobTx(n.chain, [new Uint8Array(3000).fill(5), Uint8Array.of(1, 2, 3)]);
    await submit(n, t, 1);
    const id = await build(n, 0x10);
    for (const v of [3, 4]) {
      assert.deepEqual((await call(n.d, `engine_getPayloadV${v}`, [id])).error, {
        code: -38005,
        message: "Unsupported fork",
      });
    }
    const got = (await call(n.d, "engine_getPayloadV5", [id])).result as {
      executionPayload: Record<string, unknown>;
      blobsBundle: Bundle;
      shouldOverrideBuilder: boolean;
      executionRequests: string[];
      blockValue: string;
    };
    const p = got.executionPayload;
    assert.equal((p.transactions as string[]).length, 1);
    assert.equal(p.blobGasUsed, `0x${(2 * 131_072).toString(16)}`);
    assert.equal(got.shouldOverrideBuilder, false);
    assert.deepEqual(got.executionRequests, []);
    assertCellBundle(got.blobsBundle, t);

    // Osaka defines no newPayloadV5: V4 imports the payload, V3 is refused.
    const other = node(0);
    const hashes = t.versionedHashes.map((h) => bytesToHex(h));
    const v3 = await call(other.d, "engine_newPayloadV3", [p, hashes, ZERO]);
    assert.deepEqual(v3.error, {
      code: -38005,
      message: "Unsupported fork",
      data: { err: "newPayloadV3 must only be called for cancun payloads" },
    });
    const v4 = await call(other.d, "engine_newPayloadV4", [p, hashes, ZERO, []]);
    assert.deepEqual(v4.result, { status: "VALID", latestValidHash: p.blockHash, validationError: null });
  });

  it("Prague → Osaka: a version-0 sidecar sealed in an Osaka block gets its cell proofs computed", async () => {
    // Osaka at 0x20: the head (genesis, time 0) is Prague, so the pool takes the blob proof form.
    const n = node(0x20);
    const t = blobTx(n.chain, [Uint8Array.of(9, 9)]);
    await submit(n, t, 0);
    const id = await build(n, 0x20);
    const got = (await call(n.d, "engine_getPayloadV5", [id])).result as { blobsBundle: Bundle };
    assertCellBundle(got.blobsBundle, t);
  });

  it("getPayloadV5 refuses a Prague payload; getPayloadV4 serves it with blob proofs", async () => {
    const n = node(null);
    const t = blobTx(n.chain, [Uint8Array.of(7)]);
    await submit(n, t, 0);
    const id = await build(n, 0x10);
    assert.deepEqual((await call(n.d, "engine_getPayloadV5", [id])).error, {
      code: -38005,
      message: "Unsupported fork",
    });
    const got = (await call(n.d, "engine_getPayloadV4", [id])).result as { blobsBundle: Bundle };
    assert.deepEqual(got.blobsBundle.commitments, [bytesToHex(t.commitments[0]!)]);
    assert.equal(got.blobsBundle.proofs.length, 1);
    const k = ckzg();
    assert.equal(k.verifyBlobKzgProof(t.blobs[0]!, t.commitments[0]!, hexToBytes(got.blobsBundle.proofs[0]!)), true);
  });

  it("getPayload: the id's version byte first, then unknown ids, then the window", async () => {
    const n = node(0);
    const id = await build(n, 0x10);
    // An id started by fcuV3 (first byte 3) is not one getPayloadV1/V2 serve, even when unknown.
    assert.equal(id.slice(0, 4), "0x03");
    for (const v of [1, 2]) {
      assert.deepEqual((await call(n.d, `engine_getPayloadV${v}`, [id])).error, {
        code: -38005,
        message: "Unsupported fork",
      });
    }
    assert.deepEqual((await call(n.d, "engine_getPayloadV5", ["0x0300000000000000"])).error, {
      code: -38001,
      message: "Unknown payload",
    });
    assert.deepEqual((await call(n.d, "engine_getPayloadV5", ["0x0200000000000000"])).error, {
      code: -38005,
      message: "Unsupported fork",
    });
  });

  it("forkchoiceUpdated and newPayload windows on Osaka and on Cancun", async () => {
    const n = node(0);
    const st = { headBlockHash: n.head, safeBlockHash: n.head, finalizedBlockHash: ZERO };
    const { parentBeaconBlockRoot: _r, ...v2attrs } = attrs(0x10);
    assert.deepEqual((await call(n.d, "engine_forkchoiceUpdatedV2", [st, v2attrs])).error, {
      code: -38005,
      message: "Unsupported fork",
      data: { err: "fcuV2 must only be called with paris or shanghai payloads" },
    });
    const { withdrawals: _w, ...v1attrs } = v2attrs;
    assert.deepEqual((await call(n.d, "engine_forkchoiceUpdatedV1", [st, v1attrs])).error, {
      code: -32602,
      message: "invalid params: fcuV1 called post-shanghai",
    });
    const id = await build(n, 0x10);
    const p = ((await call(n.d, "engine_getPayloadV5", [id])).result as { executionPayload: Record<string, unknown> })
      .executionPayload;
    const { blobGasUsed: _b, excessBlobGas: _e, ...v2payload } = p;
    assert.deepEqual((await call(n.d, "engine_newPayloadV2", [v2payload])).error, {
      code: -32602,
      message: "invalid params: can't use newPayloadV2 post-cancun",
    });

    // A Cancun chain: fcuV3 builds, getPayloadV3 serves, V4 and V5 do not; newPayloadV4 refuses it.
    const c = node(null, l1Genesis(new Map([[KEY.address, { balance: 10n ** 20n }]])) as Record<string, unknown>);
    const cid = await build(c, 0x20);
    for (const v of [4, 5]) {
      assert.deepEqual((await call(c.d, `engine_getPayloadV${v}`, [cid])).error, {
        code: -38005,
        message: "Unsupported fork",
      });
    }
    const cp = ((await call(c.d, "engine_getPayloadV3", [cid])).result as { executionPayload: Record<string, unknown> })
      .executionPayload;
    const other = node(null, l1Genesis(new Map([[KEY.address, { balance: 10n ** 20n }]])) as Record<string, unknown>);
    assert.deepEqual((await call(other.d, "engine_newPayloadV4", [cp, [], ZERO, []])).error, {
      code: -38005,
      message: "Unsupported fork",
      data: { err: "newPayloadV4 must only be called for prague/osaka payloads" },
    });
    assert.equal(
      ((await call(other.d, "engine_newPayloadV3", [cp, [], ZERO])).result as { status: string }).status,
      "VALID",
    );
  });

  it("Shanghai windows: fcuV2/getPayloadV2/newPayloadV2 serve it, their V3s refuse it", async () => {
    const g = l1Genesis(new Map([[KEY.address, { balance: 10n ** 20n }]]), { cancunTime: null }) as Record<
      string,
      unknown
    >;
    const n = node(null, g);
    const st = { headBlockHash: n.head, safeBlockHash: n.head, finalizedBlockHash: ZERO };
    const { parentBeaconBlockRoot: _r, ...v2attrs } = attrs(0x20);
    const { withdrawals: _w, ...noWithdrawals } = v2attrs;
    assert.deepEqual((await call(n.d, "engine_forkchoiceUpdatedV2", [st, noWithdrawals])).error, {
      code: -38003,
      message: "Invalid payload attributes: missing withdrawals",
    });
    assert.deepEqual((await call(n.d, "engine_forkchoiceUpdatedV3", [st, attrs(0x20)])).error, {
      code: -38005,
      message: "Unsupported fork",
      data: { err: "fcuV3 must only be called for cancun/prague/osaka payloads" },
    });
    const r = await call(n.d, "engine_forkchoiceUpdatedV2", [st, v2attrs]);
    const id = (r.result as { payloadId: string }).payloadId;
    assert.equal(id.slice(0, 4), "0x02");
    assert.deepEqual((await call(n.d, "engine_getPayloadV3", [id])).error, {
      code: -38005,
      message: "Unsupported fork",
    });
    const p = ((await call(n.d, "engine_getPayloadV2", [id])).result as { executionPayload: Record<string, unknown> })
      .executionPayload;
    const { withdrawals: _pw, ...noW } = p;
    const other = node(null, g);
    assert.deepEqual((await call(other.d, "engine_newPayloadV2", [noW])).error, {
      code: -32602,
      message: "invalid params: nil withdrawals post-shanghai",
    });
    assert.deepEqual((await call(other.d, "engine_newPayloadV2", [{ ...p, excessBlobGas: "0x0" }])).error, {
      code: -32602,
      message: "invalid params: non-nil excessBlobGas pre-cancun",
    });
    assert.deepEqual(
      (await call(other.d, "engine_newPayloadV3", [{ ...p, excessBlobGas: "0x0", blobGasUsed: "0x0" }, [], ZERO]))
        .error,
      {
        code: -38005,
        message: "Unsupported fork",
        data: { err: "newPayloadV3 must only be called for cancun payloads" },
      },
    );
    assert.equal(((await call(other.d, "engine_newPayloadV2", [p])).result as { status: string }).status, "VALID");
  });

  it("getBlobsV2/V3 (cell proofs, all or nothing / partial) on Osaka; getBlobsV1 only before it", async () => {
    const n = node(0);
    const t = blobTx(n.chain, [Uint8Array.of(4, 4), Uint8Array.of(5)]);
    await submit(n, t, 1);
    const [a, b] = t.versionedHashes.map((h) => bytesToHex(h));
    const unknown = `0x01${"ab".repeat(31)}`;
    const v2 = (await call(n.d, "engine_getBlobsV2", [[b, a]])).result as { blob: string; proofs: string[] }[];
    assert.equal(v2.length, 2);
    assert.equal(v2[0]!.blob, bytesToHex(t.blobs[1]!));
    assertCellBundle(
      {
        blobs: v2.map((x) => x.blob),
        commitments: [t.commitments[1]!, t.commitments[0]!].map((c) => bytesToHex(c)),
        proofs: v2.flatMap((x) => x.proofs),
      },
      { ...t, blobs: [t.blobs[1]!, t.blobs[0]!], commitments: [t.commitments[1]!, t.commitments[0]!] },
    );
    assert.equal((await call(n.d, "engine_getBlobsV2", [[a, unknown]])).result, null);
    const v3 = (await call(n.d, "engine_getBlobsV3", [[unknown, a]])).result as unknown[];
    assert.equal(v3[0], null);
    assert.equal((v3[1] as { blob: string }).blob, bytesToHex(t.blobs[0]!));
    assert.deepEqual((await call(n.d, "engine_getBlobsV1", [[a]])).error, {
      code: -38005,
      message: "Unsupported fork",
      data: { err: "engine_getBlobsV1 is only available at Cancun/Prague fork" },
    });
    const many = Array.from({ length: 129 }, () => a);
    assert.deepEqual((await call(n.d, "engine_getBlobsV2", [many])).error, {
      code: -38004,
      message: "Too large request",
      data: { err: "requested blob count too large: 129" },
    });

    const pr = node(null);
    const pt = blobTx(pr.chain, [Uint8Array.of(6)]);
    await submit(pr, pt, 0);
    const ph = bytesToHex(pt.versionedHashes[0]!);
    const v1 = (await call(pr.d, "engine_getBlobsV1", [[ph, unknown]])).result as ({
      blob: string;
      proof: string;
    } | null)[];
    assert.equal(v1[1], null);
    assert.equal(v1[0]!.blob, bytesToHex(pt.blobs[0]!));
    assert.equal(ckzg().verifyBlobKzgProof(pt.blobs[0]!, pt.commitments[0]!, hexToBytes(v1[0]!.proof)), true);
    // Before Osaka getBlobsV2 and V3 answer null, not a list (geth v1.17.5 `LatestFork(head) < Osaka`).
    assert.equal((await call(pr.d, "engine_getBlobsV2", [[ph]])).result, null);
    assert.equal((await call(pr.d, "engine_getBlobsV3", [[ph]])).result, null);
  });

  it("exchangeCapabilities lists the Osaka methods, each served", async () => {
    const n = node(0);
    const caps = (await call(n.d, "engine_exchangeCapabilities", [[]])).result as string[];
    for (const m of ["engine_getPayloadV5", "engine_getBlobsV1", "engine_getBlobsV2", "engine_getBlobsV3"]) {
      assert.ok(caps.includes(m), m);
      assert.ok(n.d.table.methods.has(m), m);
    }
  });

  it("OP Karst: getPayloadV4 is still served, V5 answers the same V4 envelope; newPayloadV4 imports", async () => {
    const g = opGenesis() as { config: Record<string, unknown> } & Record<string, unknown>;
    g.config = { ...g.config, karstTime: 0, osakaTime: 0 };
    const seq = node(null, g);
    const ver = node(null, g);
    const info = encodeL1BlockInfo(
      newL1BlockInfo({ format: L1InfoFormat.Jovian, baseFee: 7n, blobBaseFee: 1n, daFootprintGasScalar: 400 }),
    );
    const deposit = encodeTx({
      type: TxType.Deposit,
      sourceHash: new Uint8Array(32).fill(1),
      from: hexToBytes("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001"),
      to: hexToBytes("0x4200000000000000000000000000000000000015"),
      mint: 0n,
      value: 0n,
      gasLimit: 1_000_000n,
      isSystemTx: false,
      data: info,
    });
    const st = { headBlockHash: seq.head, safeBlockHash: seq.head, finalizedBlockHash: seq.head };
    const r = await call(seq.d, "engine_forkchoiceUpdatedV3", [
      st,
      attrs(0x12, {
        transactions: [bytesToHex(deposit)],
        noTxPool: true,
        gasLimit: "0x1c9c380",
        eip1559Params: "0x000000fa00000006",
        minBaseFee: "0x0",
      }),
    ]);
    assert.equal(r.error, undefined, JSON.stringify(r.error));
    const id = (r.result as { payloadId: string }).payloadId;
    const v4 = (await call(seq.d, "engine_getPayloadV4", [id])).result as Record<string, unknown>;
    const v5 = (await call(seq.d, "engine_getPayloadV5", [id])).result as Record<string, unknown>;
    assert.deepEqual(v5, v4);
    assert.deepEqual(v4.blobsBundle, { commitments: [], proofs: [], blobs: [] });
    assert.equal(v4.parentBeaconBlockRoot, ZERO);
    const p = v4.executionPayload as Record<string, unknown>;
    assert.equal(typeof p.withdrawalsRoot, "string");
    const np = await call(ver.d, "engine_newPayloadV4", [p, [], ZERO, []]);
    assert.deepEqual(np.result, { status: "VALID", latestValidHash: p.blockHash, validationError: null });
  });
});
