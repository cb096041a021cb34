/**
 * engine_* JSON-RPC methods through a dispatcher: positional decoding with geth's messages, the
 * per-version field checks, EngineError → JSON-RPC error with the same code, message and data, and
 * a build → getPayloadV4 → newPayloadV4 round trip on a Prague dev chain (Osaka: osaka.test.ts).
 */
import { strict as assert } from "node:assert";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { EngineApi } from "../../../src/engine/engineApi.js";
import { engineMethods } from "../../../src/engine/methods.js";
import { l1DevGenesis } from "../../../src/node/exec/devGenesis.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import type { Dispatcher } from "../../../src/rpc/dispatch.js";
import { Registry } from "../../../src/rpc/registry.js";
import { MemoryKv } from "../../../src/storage/memory.js";

const ZERO = `0x${"00".repeat(32)}`;

interface Reply {
  result?: unknown;
  error?: { code: number; message: string };
}

async function call(d: Dispatcher, method: string, params: unknown[]): Promise<Reply> {
  const r = await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), {
    ctx: { transport: "http", remoteAddr: "" },
    subs: null,
  });
  return JSON.parse(r as string);
}

function setup(): { chain: Blockchain; d: Dispatcher; head: string } {
  const g = l1DevGenesis(30_000_000n, undefined, { osakaTime: null });
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(g), g.config);
  const d = new Registry(engineMethods(new EngineApi(chain))).forApis(["engine"]);
  return { chain, d, head: bytesToHex(chain.headBlockHash) };
}

const attrs = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  timestamp: "0x10",
  prevRandao: ZERO,
  suggestedFeeRecipient: `0x${"11".repeat(20)}`,
  withdrawals: [],
  parentBeaconBlockRoot: ZERO,
  ...extra,
});

describe("engine/methods", () => {
  it("serves every capability it announces", async () => {
    const { d } = setup();
    const caps = (await call(d, "engine_exchangeCapabilities", [["engine_newPayloadV1"]])).result as string[];
    for (const m of caps) assert.ok(d.table.methods.has(m), m);
    assert.equal((await call(d, "engine_exchangeCapabilities", [7])).error?.code, -32602);
  });

  it("forkchoice state: hashes decoded with geth's messages", async () => {
    const { d, head } = setup();
    const ok = await call(d, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: head, safeBlockHash: ZERO, finalizedBlockHash: ZERO },
    ]);
    assert.equal((ok.result as { payloadStatus: { status: string } }).payloadStatus.status, "VALID");
    const bad = await call(d, "engine_forkchoiceUpdatedV3", [{ headBlockHash: "0x12", safeBlockHash: ZERO }, null]);
    assert.equal(bad.error?.code, -32602);
    assert.match(bad.error!.message, /^invalid argument 0: hex string has length 2, want 64 for common\.Hash/);
    const notObj = await call(d, "engine_forkchoiceUpdatedV1", ["0x"]);
    assert.equal(
      notObj.error?.message,
      "invalid argument 0: json: cannot unmarshal string into Go value of type engine.ForkchoiceStateV1",
    );
    const missing = await call(d, "engine_forkchoiceUpdatedV2", []);
    assert.equal(missing.error?.message, "missing value for required argument 0");
    // An unknown safe block: the spec's -38002.
    const unknown = await call(d, "engine_forkchoiceUpdatedV3", [
      { headBlockHash: head, safeBlockHash: `0x${"ab".repeat(32)}`, finalizedBlockHash: ZERO },
    ]);
    assert.deepEqual(unknown.error, { code: -38002, message: "Invalid forkchoice state" });
  });

  it("payload attributes: per-version fields", async () => {
    const { d, head } = setup();
    const st = { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: ZERO };
    const v1 = await call(d, "engine_forkchoiceUpdatedV1", [st, attrs()]);
    assert.deepEqual(v1.error, {
      code: -32602,
      message: "invalid params: withdrawals and beacon root not supported in V1",
    });
    const v2 = await call(d, "engine_forkchoiceUpdatedV2", [st, attrs()]);
    assert.deepEqual(v2.error, { code: -38003, message: "Invalid payload attributes: unexpected beacon root" });
    const v3 = await call(d, "engine_forkchoiceUpdatedV3", [st, attrs({ parentBeaconBlockRoot: null })]);
    assert.deepEqual(v3.error, { code: -38003, message: "Invalid payload attributes: missing beacon root" });
    const v3w = await call(d, "engine_forkchoiceUpdatedV3", [st, attrs({ withdrawals: undefined })]);
    assert.deepEqual(v3w.error, { code: -38003, message: "Invalid payload attributes: missing withdrawals" });
    const early = await call(d, "engine_forkchoiceUpdatedV3", [st, attrs({ timestamp: "0x0" })]);
    assert.equal(early.error?.code, -38003);
  });

  it("build → getPayloadV4 → newPayloadV4 round trip; version and id errors", async () => {
    const { d, head } = setup();
    const st = { headBlockHash: head, safeBlockHash: head, finalizedBlockHash: ZERO };
    const fcu = (await call(d, "engine_forkchoiceUpdatedV3", [st, attrs()])).result as { payloadId: string };
    assert.match(fcu.payloadId, /^0x[0-9a-f]{16}$/);
    const got = (await call(d, "engine_getPayloadV4", [fcu.payloadId])).result as Record<string, unknown>;
    const payload = got.executionPayload as Record<string, unknown>;
    assert.equal(payload.blockNumber, "0x1");
    assert.deepEqual(got.executionRequests, []);
    // Prague payloads only through V4.
    assert.deepEqual((await call(d, "engine_getPayloadV3", [fcu.payloadId])).error, {
      code: -38005,
      message: "Unsupported fork",
    });
    assert.deepEqual((await call(d, "engine_getPayloadV2", [`0x02${"00".repeat(7)}`])).error, {
      code: -38001,
      message: "Unknown payload",
    });
    // geth checks the id's version byte (the fcu version that started it) before looking it up.
    assert.deepEqual((await call(d, "engine_getPayloadV2", [`0x${"00".repeat(8)}`])).error, {
      code: -38005,
      message: "Unsupported fork",
    });
    assert.equal((await call(d, "engine_getPayloadV1", ["0x00"])).error?.code, -32602);

    const np = await call(d, "engine_newPayloadV4", [payload, [], ZERO, []]);
    assert.deepEqual(np.result, { status: "VALID", latestValidHash: payload.blockHash, validationError: null });
    const noReq = await call(d, "engine_newPayloadV4", [payload, [], ZERO]);
    assert.deepEqual(noReq.error, { code: -32602, message: "invalid params: nil executionRequests post-prague" });
    const noRoot = await call(d, "engine_newPayloadV4", [payload, [], null, []]);
    assert.deepEqual(noRoot.error, { code: -32602, message: "invalid params: nil beaconRoot post-cancun" });
    assert.equal(
      (await call(d, "engine_newPayloadV3", [payload])).error?.message,
      "missing value for required argument 1",
    );
    const v3 = await call(d, "engine_newPayloadV3", [payload, [], ZERO]);
    assert.deepEqual(v3.error, {
      code: -38005,
      message: "Unsupported fork",
      data: { err: "newPayloadV3 must only be called for cancun payloads" },
    });
    const v1 = await call(d, "engine_newPayloadV1", [payload]);
    assert.deepEqual(v1.error, { code: -32602, message: "invalid params: withdrawals not supported in V1" });
    const { blobGasUsed: _b, ...v2payload } = payload;
    const v2 = await call(d, "engine_newPayloadV2", [{ ...v2payload, excessBlobGas: "0x0" }]);
    // geth refuses V2 for a Cancun-or-later payload before its field checks.
    assert.deepEqual(v2.error, { code: -32602, message: "invalid params: can't use newPayloadV2 post-cancun" });
    const badField = await call(d, "engine_newPayloadV4", [{ ...payload, stateRoot: "0x1" }, [], ZERO, []]);
    assert.equal(badField.error?.code, -32602);
    assert.match(badField.error!.message, /^invalid params: stateRoot/);
    assert.equal((await call(d, "engine_newPayloadV4", [null, [], ZERO, []])).error?.code, -32602);

    // Bodies by hash and range.
    const bodies = (await call(d, "engine_getPayloadBodiesByHashV1", [[payload.blockHash, ZERO]])).result as unknown[];
    assert.deepEqual(bodies, [{ transactions: [], withdrawals: [] }, null]);
    assert.deepEqual((await call(d, "engine_getPayloadBodiesByRangeV1", ["0x0", "0x1"])).error, {
      code: -32602,
      message: "invalid params",
    });
    assert.equal((await call(d, "engine_getPayloadBodiesByRangeV1", ["0x1", "0x401"])).error?.code, -38004);
    assert.deepEqual((await call(d, "engine_getPayloadBodiesByRangeV1", ["0x1", "0x2"])).result, []);
    assert.equal((await call(d, "engine_getPayloadBodiesByRangeV1", ["1", "0x2"])).error?.code, -32602);
  });
});
