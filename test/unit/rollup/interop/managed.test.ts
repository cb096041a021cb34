/**
 * Managed mode's bookkeeping without a network (rollup/interop/managed.ts): which sync-status moves
 * become which supervisor events (pre-Interop blocks left out, gaps filled block by block, a
 * non-continuous head reported alone, derivation and exhausted-L1 updates), the event queue's cap,
 * the supervisor's heads as the sync status reports them, and the reset targets' forms.
 */
import { strict as assert } from "node:assert";
import type { L2Source } from "../../../../src/rollup/api/l2Source.js";
import type { RollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import type { EngineClient } from "../../../../src/rollup/engine/engineClient.js";
import {
  EVENT_QUEUE_SIZE,
  interopMethods,
  MAX_UNSAFE_FILL,
  type ManagedEvent,
  ManagedMode,
} from "../../../../src/rollup/interop/managed.js";
import { type L1BlockRef, type L2BlockRef, type SyncStatus, ZERO_L1_REF } from "../../../../src/rollup/refs.js";
import type { RpcTransport } from "../../../../src/rollup/transport/rpcTransport.js";

const h = (tag: number, n: number): Uint8Array => {
  const b = new Uint8Array(32);
  b[0] = tag;
  new DataView(b.buffer).setUint32(28, n + 1);
  return b;
};

/** L2 blocks 0..count-1, two seconds apart from t=100; Interop from t=110 (block 5). */
function chain(count: number, tag = 1): L2BlockRef[] {
  const out: L2BlockRef[] = [];
  for (let n = 0; n < count; n++) {
    out.push({
      hash: h(tag, n),
      number: n,
      parentHash: n === 0 ? new Uint8Array(32) : out[n - 1]!.hash,
      timestamp: 100 + 2 * n,
      l1origin: { hash: h(9, 0), number: 0 },
      sequenceNumber: n,
    });
  }
  return out;
}

const l1 = (n: number): L1BlockRef => ({
  hash: h(7, n),
  number: n,
  parentHash: n === 0 ? new Uint8Array(32) : h(7, n - 1),
  timestamp: 1000 + 12 * n,
});

function setup(blocks: L2BlockRef[]) {
  const byNumber = new Map(blocks.map((b) => [b.number, b]));
  const byHash = new Map(blocks.map((b) => [Buffer.from(b.hash).toString("hex"), b]));
  const cfg = {
    interopTime: 110,
    blockTime: 2,
    l2ChainId: 901n,
    genesis: { l1: { hash: h(7, 0), number: 0 }, l2: { hash: blocks[0]!.hash, number: 0 }, l2Time: 100 },
  } as unknown as RollupConfig;
  const resets: { unsafe: number; localSafe: number; safe: number; finalized: number }[] = [];
  const promoted: string[] = [];
  const m = new ManagedMode({
    cfg,
    l2: { blockRef: async (n: number) => byNumber.get(n) ?? null } as unknown as L2Source,
    engine: {
      blockRef: async (x: Uint8Array) => byHash.get(Buffer.from(x).toString("hex")) ?? null,
    } as unknown as EngineClient,
    l2Rpc: {} as RpcTransport,
    l1: () => ({ l1BlockRefByHash: async (x: Uint8Array) => l1(new DataView(x.buffer).getUint32(28) - 1) }),
    forceReset: async (x) => {
      resets.push({
        unsafe: x.unsafe.number,
        localSafe: x.localSafe.number,
        safe: x.safe.number,
        finalized: x.finalized.number,
      });
    },
    promoteCrossSafe: async (ref, source) => {
      promoted.push(`cross-safe ${ref.number} from L1 ${source.number}`);
    },
    promoteFinalized: async (ref) => {
      promoted.push(`finalized ${ref.number}`);
    },
    replaceBlock: () => Promise.reject(new Error("no derivation in this test")),
    log: { error() {}, warn() {}, info() {}, debug() {} },
  });
  return { m, resets: () => resets, promoted };
}

function status(over: Partial<SyncStatus>, blocks: L2BlockRef[]): SyncStatus {
  const g = blocks[0]!;
  return {
    currentL1: ZERO_L1_REF,
    headL1: ZERO_L1_REF,
    safeL1: ZERO_L1_REF,
    finalizedL1: ZERO_L1_REF,
    unsafeL2: g,
    safeL2: g,
    finalizedL2: g,
    pendingSafeL2: g,
    ...over,
  };
}

function drain(m: ManagedMode): ManagedEvent[] {
  const out: ManagedEvent[] = [];
  for (;;) {
    try {
      out.push(m.events.pull());
    } catch (e) {
      assert.equal((e as { code: number }).code, -39001);
      return out;
    }
  }
}

describe("rollup/interop/managed", () => {
  it("reports each new unsafe block from the Interop fork on, filling gaps from the engine", async () => {
    const blocks = chain(12);
    const { m } = setup(blocks);
    await m.observe(status({ unsafeL2: blocks[3]! }, blocks), 0);
    assert.deepEqual(drain(m), [], "pre-Interop blocks are not reported");
    await m.observe(status({ unsafeL2: blocks[7]! }, blocks), 0);
    const nums = drain(m).map((e) => e.unsafeBlock?.number);
    assert.deepEqual(nums, [5, 6, 7], "blocks 4..7 read back; 4 is before Interop");
    await m.observe(status({ unsafeL2: blocks[7]! }, blocks), 0);
    assert.deepEqual(drain(m), [], "an unchanged head is no event");
    // A head that does not continue the last one (a reorg) is reported alone.
    const other = chain(12, 2);
    await m.observe(status({ unsafeL2: other[9]! }, blocks), 0);
    assert.deepEqual(
      drain(m).map((e) => e.unsafeBlock?.hash),
      [`0x${Buffer.from(other[9]!.hash).toString("hex")}`],
    );
  });

  it("a jump past MAX_UNSAFE_FILL reports only the new head", async () => {
    const blocks = chain(MAX_UNSAFE_FILL + 20);
    const { m } = setup(blocks);
    await m.observe(status({ unsafeL2: blocks[6]! }, blocks), 0);
    drain(m);
    await m.observe(status({ unsafeL2: blocks[6 + MAX_UNSAFE_FILL + 1]! }, blocks), 0);
    assert.deepEqual(
      drain(m).map((e) => e.unsafeBlock?.number),
      [6 + MAX_UNSAFE_FILL + 1],
    );
  });

  it("derivation updates, origin updates, exhausted L1 (head or provided block) and resets", async () => {
    const blocks = chain(12);
    const { m } = setup(blocks);
    const g = blocks[0]!;
    await m.observe(status({ unsafeL2: g, safeL2: blocks[6]!, currentL1: l1(3), headL1: l1(5) }, blocks), 0);
    const first = drain(m);
    assert.deepEqual(first, [
      {
        derivationUpdate: {
          source: {
            hash: `0x${Buffer.from(h(7, 3)).toString("hex")}`,
            number: 3,
            parentHash: `0x${Buffer.from(h(7, 2)).toString("hex")}`,
            timestamp: 1036,
          },
          derived: {
            hash: `0x${Buffer.from(blocks[6]!.hash).toString("hex")}`,
            number: 6,
            parentHash: `0x${Buffer.from(blocks[5]!.hash).toString("hex")}`,
            timestamp: 112,
          },
        },
        derivationOriginUpdate: {
          hash: `0x${Buffer.from(h(7, 3)).toString("hex")}`,
          number: 3,
          parentHash: `0x${Buffer.from(h(7, 2)).toString("hex")}`,
          timestamp: 1036,
        },
      },
    ]);
    // Safe head moves on the same L1 block: a derivation update without an origin update.
    await m.observe(status({ unsafeL2: g, safeL2: blocks[7]!, currentL1: l1(3), headL1: l1(5) }, blocks), 0);
    const second = drain(m);
    assert.equal(second.length, 1);
    assert.equal(second[0]!.derivationOriginUpdate, undefined);
    assert.equal(
      second[0]!.derivationUpdate?.derived && (second[0]!.derivationUpdate.derived as { number: number }).number,
      7,
    );
    // In managed mode the status has the local-safe head apart (safe is cross-safe): that is derived.
    await m.observe(
      status({ unsafeL2: g, safeL2: blocks[2]!, localSafeL2: blocks[8]!, currentL1: l1(3), headL1: l1(5) }, blocks),
      0,
    );
    const managed = drain(m);
    assert.equal(managed.length, 1);
    assert.equal((managed[0]!.derivationUpdate!.derived as { number: number }).number, 8, "the local-safe head");
    await m.observe(status({ unsafeL2: g, safeL2: blocks[7]!, currentL1: l1(3), headL1: l1(5) }, blocks), 0);
    drain(m);
    // The supervisor provided L1 block 4: reaching it is exhausting what the node has.
    await m.provideL1(l1(4));
    await m.observe(status({ unsafeL2: g, safeL2: blocks[7]!, currentL1: l1(4), headL1: l1(5) }, blocks), 0);
    const third = drain(m);
    assert.ok(third.some((e) => e.exhaustL1 !== undefined && (e.exhaustL1.source as { number: number }).number === 4));
    await m.observe(status({ unsafeL2: g, safeL2: blocks[7]!, currentL1: l1(4), headL1: l1(5) }, blocks), 0);
    assert.deepEqual(drain(m), [], "exhausted once per L1 block");
    // provideL1 must extend the previous one.
    await assert.rejects(m.provideL1(l1(6)), /does not build on the last one provided/);
    await m.provideL1(l1(5));
    // A pipeline reset shows as a reset event.
    await m.observe(status({ unsafeL2: g, safeL2: blocks[7]!, currentL1: l1(4), headL1: l1(5) }, blocks), 1);
    assert.ok(drain(m).some((e) => typeof e.reset === "string"));
  });

  it("keeps at most EVENT_QUEUE_SIZE events, dropping the oldest", () => {
    const { m } = setup(chain(2));
    for (let i = 0; i < EVENT_QUEUE_SIZE + 5; i++) m.events.send({ reset: String(i) });
    assert.equal(m.events.queued, EVENT_QUEUE_SIZE);
    assert.equal(m.events.dropped, 5);
    assert.equal(m.events.pull().reset, "5");
  });

  it("reports the supervisor's heads in the sync status, never above the local heads", async () => {
    const blocks = chain(12);
    const { m, promoted } = setup(blocks);
    const s = status({ unsafeL2: blocks[10]!, safeL2: blocks[8]!, finalizedL2: blocks[2]! }, blocks);
    assert.deepEqual(m.overlay(s), { ...s, crossUnsafeL2: blocks[10], localSafeL2: blocks[8] }, "nothing set yet");
    await m.updateCrossUnsafe(blocks[9]!);
    await m.updateCrossSafe(blocks[6]!, l1(2));
    await m.updateFinalized(blocks[7]!);
    const o = m.overlay(s);
    assert.equal(o.crossUnsafeL2?.number, 9);
    assert.equal(o.safeL2.number, 6, "safe_l2 is cross-safe");
    assert.equal(o.localSafeL2?.number, 8);
    assert.equal(o.finalizedL2.number, 6, "finalized no higher than cross-safe");
    assert.equal(m.heads.crossSafe?.source.number, 2);
    assert.deepEqual(promoted, ["cross-safe 6 from L1 2", "finalized 7"], "handed on for the engine's forkchoice");
    // Derivation in managed mode reports its local-safe head and the engine's safe and finalized
    // heads, which are the supervisor's already: only cross-unsafe is laid over.
    const managed = status({ unsafeL2: blocks[10]!, safeL2: blocks[5]!, finalizedL2: blocks[1]! }, blocks);
    const withLocal = { ...managed, localSafeL2: blocks[8]! };
    assert.deepEqual(m.overlay(withLocal), { ...withLocal, crossUnsafeL2: blocks[9] });
    // After the local chain fell back (a reset), the supervisor's heads are capped by it.
    const low = m.overlay(status({ unsafeL2: blocks[4]!, safeL2: blocks[3]! }, blocks));
    assert.equal(low.crossUnsafeL2?.number, 4);
    assert.equal(low.safeL2.number, 3);
    await assert.rejects(m.updateCrossUnsafe({ hash: h(5, 5), number: 5 }), /failed to get L2BlockRef/);
  });

  it("interop_reset takes three targets (unsafe, safe, finalized) or five, checked against the chain", async () => {
    const blocks = chain(12);
    const { m, resets } = setup(blocks);
    const reset = interopMethods(m).find((d) => d.kind === "method" && d.name === "interop_reset")!;
    const run = (p: unknown[]) => (reset.handler as (p: unknown[], ctx: unknown) => Promise<unknown>)(p, {});
    await run([blocks[9], blocks[4], blocks[2], undefined, undefined]);
    assert.equal(m.heads.crossUnsafe?.number, 9);
    assert.equal(m.heads.crossSafe?.derived.number, 4);
    assert.deepEqual(resets(), [{ unsafe: 9, localSafe: 4, safe: 4, finalized: 2 }], "the engine's heads forced");
    await run([blocks[10], blocks[9], blocks[6], blocks[5], blocks[3]]);
    assert.equal(m.heads.crossUnsafe?.number, 9, "cross-unsafe is the second of five");
    assert.equal(m.heads.crossSafe?.derived.number, 5);
    assert.equal(m.heads.finalized?.number, 3);
    assert.deepEqual(
      resets()[1],
      { unsafe: 10, localSafe: 6, safe: 5, finalized: 3 },
      "local unsafe, local safe and cross-safe to the engine",
    );
    assert.throws(() => run([blocks[10], blocks[9], blocks[6], blocks[5], undefined]), /3 .* or 5 reset targets/);
    await assert.rejects(
      run([{ hash: h(5, 3), number: 3 }, blocks[1], blocks[0], undefined, undefined]),
      (e: unknown) => {
        const err = e as { code: number; data: { number: number } };
        return err.code === -39002 && err.data.number === 3;
      },
    );
    await assert.rejects(run([{ hash: h(1, 50), number: 50 }, blocks[1], blocks[0], undefined, undefined]), {
      code: -39001,
    });
  });

  it("l2BlockRefByTimestamp uses op-node's target block number", async () => {
    const blocks = chain(12);
    const { m } = setup(blocks);
    assert.equal(m.targetBlockNumber(100), 0);
    assert.equal(m.targetBlockNumber(105), 2, "rounds down");
    assert.equal((await m.l2BlockRefByTimestamp(110)).number, 5);
    assert.throws(() => m.targetBlockNumber(99), /did not reach genesis time \(100\) yet/);
    assert.equal(m.chainId(), "901");
  });
});
