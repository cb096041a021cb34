/**
 * rollup/derive/batchValidity: every rule of op-stack.md §2.7 (derivation.md batch queue rules,
 * span-batches.md, Holocene, Isthmus, Jovian/Karst/Interop activation blocks) as a table of cases, each
 * with its pre-Holocene and, where they differ, Holocene outcome.
 *
 * Synthetic chains: L1 block n at 1000 + 12·(n − 10) (A=10@1000, B=11@1012, C=12@1024, …), L2
 * block n at 800 + 2n. The usual safe head is L2 #102 @1004 on origin A, so the next slot is 1006.
 */
import { strict as assert } from "node:assert";
import type { RollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import type { SingularBatch, SpanBatch, SpanBatchElement } from "../../../../src/rollup/derive/batchTypes.js";
import {
  BatchValidity,
  checkSingularBatch,
  checkSpanBatch,
  checkSpanBatchPrefix,
  type L2Reader,
} from "../../../../src/rollup/derive/batchValidity.js";
import type { L1BlockRef, L2BlockRef } from "../../../../src/rollup/refs.js";
import { CFG, hash, L1T, L2T, l1, l2 } from "../../../utils/batchChain.js";

// ---- fixtures ----

const DELTA: Partial<RollupConfig> = { canyonTime: 0, deltaTime: 0 };
const HOLO: Partial<RollupConfig> = { ...DELTA, ecotoneTime: 0, fjordTime: 0, graniteTime: 0, holoceneTime: 0 };

function l1s(...ns: number[]): L1BlockRef[] {
  return ns.map(l1);
}

const TX_LEGACY = Uint8Array.of(0xf8, 0x01, 0x02);
const TX_2930 = Uint8Array.of(0x01, 0xc0);
const TX_1559 = Uint8Array.of(0x02, 0xc0);
const TX_BLOB = Uint8Array.of(0x03, 0xc0);
const TX_SETCODE = Uint8Array.of(0x04, 0xc0);
const TX_DEPOSIT = Uint8Array.of(0x7e, 0xc0);

/** The batch for the slot after L2 block `parentNum`, on origin `epoch`. */
function single(
  parentNum: number,
  epoch: number,
  txs: readonly Uint8Array[] = [TX_LEGACY],
  over: Partial<SingularBatch> = {},
) {
  const b: SingularBatch = {
    parentHash: hash(L2T, parentNum),
    epochNum: epoch,
    epochHash: hash(L1T, epoch),
    timestamp: 800 + 2 * (parentNum + 1),
    transactions: txs,
    ...over,
  };
  return b;
}

type Blk = readonly [timestamp: number, epoch: number, txs?: readonly Uint8Array[]];

/** A span on L2 block `parentNum` with blocks `[timestamp, epoch, txs]`. */
function span(parentNum: number, blocks: readonly Blk[], over: Partial<SpanBatch> = {}): SpanBatch {
  const batches: SpanBatchElement[] = blocks.map(([timestamp, epochNum, txs]) => ({
    timestamp,
    epochNum,
    transactions: txs ?? [TX_1559],
  }));
  const last = batches[batches.length - 1];
  return {
    parentCheck: hash(L2T, parentNum).slice(0, 20),
    l1OriginCheck: hash(L1T, last === undefined ? 0 : last.epochNum).slice(0, 20),
    batches,
    ...over,
  };
}

/** Safe chain reader: blocks given as [ref, txs]; anything else fails to load. */
function reader(blocks: readonly (readonly [L2BlockRef, readonly Uint8Array[]])[] = []): L2Reader {
  const m = new Map(blocks.map(([r, txs]) => [r.number, { r, txs }]));
  return {
    async l2BlockRefByNumber(n) {
      const b = m.get(n);
      if (b === undefined) throw new Error(`no L2 block ${n}`);
      return b.r;
    },
    async transactionsByNumber(n) {
      const b = m.get(n);
      if (b === undefined) throw new Error(`no L2 block ${n}`);
      return b.txs;
    },
  };
}

const { Drop, Accept, Undecided, Future, Past } = BatchValidity;

function name(v: BatchValidity): string {
  return BatchValidity[v];
}

// ---- singular ----

interface SingleCase {
  readonly name: string;
  readonly cfg?: Partial<RollupConfig>;
  readonly l1?: readonly number[];
  readonly safe?: L2BlockRef;
  readonly batch: SingularBatch;
  readonly inclusion?: number;
  /** Pre-Holocene outcome, then Holocene outcome (same when only one is given). */
  readonly expect: readonly [BatchValidity, BatchValidity?];
  /** A word the drop reason must contain. */
  readonly why?: string;
}

const SAFE = l2(102, 10);

const singleCases: SingleCase[] = [
  { name: "valid batch on the safe head", batch: single(102, 10), expect: [Accept] },
  { name: "no L1 blocks at all", l1: [], batch: single(102, 10), expect: [Undecided] },
  {
    name: "future timestamp",
    batch: single(102, 10, [TX_LEGACY], { timestamp: 1008 }),
    expect: [Future, Drop],
    why: "future|after",
  },
  { name: "timestamp of the safe head", batch: single(101, 10), expect: [Drop, Past] },
  { name: "timestamp before the safe head", batch: single(100, 10), expect: [Drop, Past] },
  {
    name: "parent hash mismatch",
    batch: single(102, 10, [TX_LEGACY], { parentHash: hash(L2T, 7) }),
    expect: [Drop],
    why: "parent",
  },
  { name: "sequence window: epoch + SWS == inclusion", batch: single(102, 10), inclusion: 14, expect: [Accept] },
  {
    name: "sequence window: epoch + SWS < inclusion",
    batch: single(102, 10),
    inclusion: 15,
    expect: [Drop],
    why: "late",
  },
  {
    name: "epoch older than the safe head's origin",
    safe: l2(106, 11),
    l1: [11, 12],
    batch: single(106, 10),
    inclusion: 12,
    expect: [Drop],
    why: "older",
  },
  {
    name: "epoch + 1 with the next L1 block unknown",
    safe: l2(105, 10),
    l1: [10],
    batch: single(105, 11),
    expect: [Undecided],
  },
  {
    name: "epoch + 1 with the next L1 block known",
    safe: l2(105, 10),
    l1: [10, 11],
    batch: single(105, 11),
    inclusion: 12,
    expect: [Accept],
  },
  {
    name: "epoch + 2",
    safe: l2(105, 10),
    l1: [10, 11, 12],
    batch: single(105, 12),
    inclusion: 13,
    expect: [Drop],
    why: "more than one",
  },
  {
    name: "epoch hash mismatch",
    batch: single(102, 10, [TX_LEGACY], { epochHash: hash(L1T, 99) }),
    expect: [Drop],
    why: "hash",
  },
  {
    name: "epoch + 1 hash mismatch",
    safe: l2(105, 10),
    batch: single(105, 11, [TX_LEGACY], { epochHash: hash(L1T, 10) }),
    inclusion: 12,
    expect: [Drop],
    why: "hash",
  },
  { name: "timestamp before the L1 origin's", batch: single(102, 11), expect: [Drop], why: "before its L1 origin" },
  // drift: origin A @1000
  {
    name: "drift: exactly at the limit, with txs",
    cfg: { maxSequencerDrift: 10 },
    safe: l2(104, 10),
    batch: single(104, 10),
    expect: [Accept],
  },
  {
    name: "drift: limit + 1, with txs",
    cfg: { maxSequencerDrift: 9 },
    safe: l2(104, 10),
    batch: single(104, 10),
    expect: [Drop],
    why: "drift",
  },
  {
    name: "drift: limit + 1, empty, next L1 known and later",
    cfg: { maxSequencerDrift: 9 },
    safe: l2(104, 10),
    batch: single(104, 10, []),
    expect: [Accept],
  },
  {
    name: "drift: limit + 1, empty, next L1 unknown",
    cfg: { maxSequencerDrift: 9 },
    safe: l2(104, 10),
    l1: [10],
    batch: single(104, 10, []),
    expect: [Undecided],
  },
  {
    name: "drift: past the limit, empty, next L1 could have been adopted",
    cfg: { maxSequencerDrift: 9 },
    safe: l2(105, 10),
    batch: single(105, 10, []),
    expect: [Drop],
    why: "adopted",
  },
  {
    name: "drift: past the limit, empty, advancing the origin",
    cfg: { maxSequencerDrift: 0 },
    safe: l2(106, 10),
    batch: single(106, 11, []),
    inclusion: 12,
    expect: [Accept],
  },
  {
    name: "drift: past the limit, advancing the origin, with txs",
    cfg: { maxSequencerDrift: 0 },
    safe: l2(106, 10),
    batch: single(106, 11),
    inclusion: 12,
    expect: [Drop],
    why: "drift",
  },
  {
    name: "drift: Fjord constant 1800 ignores the config",
    cfg: { maxSequencerDrift: 9, fjordTime: 0 },
    safe: l2(104, 10),
    batch: single(104, 10),
    expect: [Accept],
  },
  {
    name: "drift: Fjord by L1 origin time, not yet",
    cfg: { maxSequencerDrift: 9, fjordTime: 1001 },
    safe: l2(104, 10),
    batch: single(104, 10),
    expect: [Drop],
    why: "drift",
  },
  {
    name: "drift: Fjord by L1 origin time, active",
    cfg: { maxSequencerDrift: 9, fjordTime: 1000 },
    safe: l2(104, 10),
    batch: single(104, 10),
    expect: [Accept],
  },
  // transactions
  { name: "txs: no transactions", batch: single(102, 10, []), expect: [Accept] },
  { name: "txs: legacy, 2930, 1559", batch: single(102, 10, [TX_LEGACY, TX_2930, TX_1559]), expect: [Accept] },
  {
    name: "txs: empty transaction",
    batch: single(102, 10, [TX_LEGACY, new Uint8Array(0)]),
    expect: [Drop],
    why: "empty",
  },
  { name: "txs: deposit", batch: single(102, 10, [TX_DEPOSIT]), expect: [Drop], why: "deposit" },
  { name: "txs: blob (type 3)", batch: single(102, 10, [TX_BLOB]), expect: [Drop], why: "type 0x03" },
  { name: "txs: type 0x05", batch: single(102, 10, [Uint8Array.of(0x05, 0xc0)]), expect: [Drop], why: "type" },
  { name: "txs: first byte 0x00", batch: single(102, 10, [Uint8Array.of(0x00, 0xc0)]), expect: [Drop], why: "type" },
  {
    name: "txs: first byte 0x80 (neither typed nor a list)",
    batch: single(102, 10, [Uint8Array.of(0x80)]),
    expect: [Drop],
    why: "type",
  },
  { name: "txs: SetCode before Isthmus", batch: single(102, 10, [TX_SETCODE]), expect: [Drop], why: "SetCode" },
  {
    name: "txs: SetCode, Isthmus at the batch time",
    cfg: { isthmusTime: 1006 },
    batch: single(102, 10, [TX_SETCODE]),
    expect: [Accept],
  },
  {
    name: "txs: SetCode, Isthmus one block later",
    cfg: { isthmusTime: 1008 },
    batch: single(102, 10, [TX_SETCODE]),
    expect: [Drop],
    why: "SetCode",
  },
  // activation blocks
  {
    name: "Jovian activation block with txs",
    cfg: { jovianTime: 1006 },
    batch: single(102, 10),
    expect: [Drop],
    why: "Jovian",
  },
  {
    name: "Jovian activation block, time between blocks",
    cfg: { jovianTime: 1005 },
    batch: single(102, 10),
    expect: [Drop],
    why: "Jovian",
  },
  {
    name: "Jovian activation block without txs",
    cfg: { jovianTime: 1006 },
    batch: single(102, 10, []),
    expect: [Accept],
  },
  {
    name: "block after the Jovian activation block",
    cfg: { jovianTime: 1004 },
    batch: single(102, 10),
    expect: [Accept],
  },
  // Karst (op-node batches.go, kona #19372: a non-empty batch in the activation block is dropped).
  {
    name: "Karst activation block with txs",
    cfg: { karstTime: 1006 },
    batch: single(102, 10),
    expect: [Drop],
    why: "Karst",
  },
  {
    name: "Karst activation block, time between blocks",
    cfg: { karstTime: 1005 },
    batch: single(102, 10),
    expect: [Drop],
    why: "Karst",
  },
  {
    name: "Karst activation block without txs",
    cfg: { karstTime: 1006 },
    batch: single(102, 10, []),
    expect: [Accept],
  },
  {
    name: "block after the Karst activation block",
    cfg: { karstTime: 1004 },
    batch: single(102, 10),
    expect: [Accept],
  },
  {
    name: "Interop activation block with txs",
    cfg: { interopTime: 1006 },
    batch: single(102, 10),
    expect: [Drop],
    why: "Interop",
  },
];

describe("rollup/derive/batchValidity", () => {
  describe("checkSingularBatch", () => {
    for (const c of singleCases) {
      const [pre, holo = pre] = c.expect;
      for (const [variant, forks, want] of [
        ["pre-Holocene", {}, pre],
        ["Holocene", { ecotoneTime: 0, holoceneTime: 0 }, holo],
      ] as const) {
        it(`${c.name} (${variant}) → ${name(want)}`, () => {
          const cfg: RollupConfig = { ...CFG, ...forks, ...c.cfg };
          const got = checkSingularBatch(
            cfg,
            l1s(...(c.l1 ?? [10, 11])),
            c.safe ?? SAFE,
            c.batch,
            l1(c.inclusion ?? 11),
          );
          assert.equal(name(got.validity), name(want), got.reason);
          if (want === Accept) assert.equal(got.reason, "");
          else assert.notEqual(got.reason, "");
          if (c.why !== undefined && want === Drop) assert.match(got.reason, new RegExp(c.why));
        });
      }
    }

    it("Holocene is chosen by the inclusion block's time, not the batch's", () => {
      const cfg: RollupConfig = { ...CFG, holoceneTime: 1012 };
      const future = single(102, 10, [TX_LEGACY], { timestamp: 1008 });
      assert.equal(checkSingularBatch(cfg, l1s(10, 11), SAFE, future, l1(10)).validity, Future);
      assert.equal(checkSingularBatch(cfg, l1s(10, 11), SAFE, future, l1(11)).validity, Drop);
      const past = single(101, 10);
      assert.equal(checkSingularBatch(cfg, l1s(10, 11), SAFE, past, l1(10)).validity, Drop);
      assert.equal(checkSingularBatch(cfg, l1s(10, 11), SAFE, past, l1(11)).validity, Past);
    });
  });

  // ---- span ----

  interface SpanCase {
    readonly name: string;
    readonly cfg?: Partial<RollupConfig>;
    readonly l1?: readonly number[];
    readonly safe?: L2BlockRef;
    readonly batch: SpanBatch;
    readonly inclusion?: number;
    readonly l2?: L2Reader;
    /** Full (pre-Holocene) check, then the Holocene prefix check. */
    readonly expect: readonly [BatchValidity, BatchValidity?];
    readonly why?: string;
    /** The prefix alone, pre-Holocene, when it differs from the full check. */
    readonly prefix?: BatchValidity;
  }

  const overlapReader = (
    over: { txs103?: Uint8Array[]; txs104?: Uint8Array[]; ref104?: L2BlockRef; no104?: boolean } = {},
  ) => {
    const blocks: [L2BlockRef, Uint8Array[]][] = [
      [l2(102, 10), [TX_DEPOSIT]],
      [l2(103, 10), over.txs103 ?? [TX_DEPOSIT, TX_1559]],
    ];
    if (over.no104 !== true)
      blocks.push([over.ref104 ?? l2(104, 10), over.txs104 ?? [TX_DEPOSIT, TX_DEPOSIT, TX_2930]]);
    return reader(blocks);
  };
  /** Safe head #104 @1008; the span re-covers #103 and #104 and adds #105. */
  const OVERLAP = span(102, [
    [1006, 10, [TX_1559]],
    [1008, 10, [TX_2930]],
    [1010, 10, [TX_LEGACY]],
  ]);

  const spanCases: SpanCase[] = [
    {
      name: "valid span after the safe head",
      batch: span(102, [
        [1006, 10],
        [1008, 10],
      ]),
      expect: [Accept],
    },
    { name: "no L1 blocks at all", l1: [], batch: span(102, [[1006, 10]]), expect: [Undecided] },
    { name: "span with no blocks", batch: span(102, []), expect: [Drop] },
    {
      name: "Delta not active at the L1 origin",
      cfg: { deltaTime: 1001 },
      batch: span(102, [[1006, 10]]),
      expect: [Drop],
      why: "Delta",
    },
    {
      name: "Delta active exactly at the L1 origin",
      cfg: { deltaTime: 1000 },
      batch: span(102, [[1006, 10]]),
      expect: [Accept],
    },
    {
      name: "Delta checked on the next epoch when the span starts there",
      cfg: { deltaTime: 1012 },
      safe: l2(105, 10),
      batch: span(105, [[1012, 11]]),
      inclusion: 12,
      expect: [Accept],
    },
    {
      name: "start epoch + 1 with the next L1 block unknown",
      safe: l2(105, 10),
      l1: [10],
      batch: span(105, [[1012, 11]]),
      expect: [Undecided],
    },
    { name: "span starts after the next slot", batch: span(103, [[1008, 10]]), expect: [Future, Drop] },
    {
      name: "span ends before the next slot",
      batch: span(100, [
        [1002, 10],
        [1004, 10],
      ]),
      expect: [Drop, Past],
    },
    {
      name: "span start between the safe head and the next slot",
      cfg: { blockTime: 2 },
      batch: span(102, [
        [1005, 10],
        [1007, 10],
      ]),
      expect: [Drop],
      why: "between",
    },
    {
      name: "span start not aligned",
      batch: span(101, [
        [1003, 10],
        [1005, 10],
        [1007, 10],
      ]),
      expect: [Drop],
      why: "aligned",
    },
    { name: "parent check mismatch", batch: span(99, [[1006, 10]]), expect: [Drop], why: "parent" },
    {
      name: "sequence window: start epoch + SWS == inclusion",
      batch: span(102, [[1006, 10]]),
      inclusion: 14,
      expect: [Accept],
    },
    {
      name: "sequence window: start epoch + SWS < inclusion",
      batch: span(102, [[1006, 10]]),
      inclusion: 15,
      expect: [Drop],
      why: "late",
    },
    {
      name: "start epoch more than one past the parent's",
      l1: [10, 11, 12],
      batch: span(102, [[1006, 12]]),
      inclusion: 13,
      expect: [Drop],
      why: "more than one",
    },
    {
      name: "end epoch not among the known L1 blocks",
      l1: [10],
      batch: span(102, [
        [1006, 10],
        [1008, 11],
      ]),
      expect: [Undecided],
    },
    {
      name: "L1 origin check mismatch",
      batch: span(102, [[1006, 10]], { l1OriginCheck: hash(L1T, 11).slice(0, 20) }),
      expect: [Drop],
      why: "origin check",
    },
    {
      name: "start epoch older than the parent's origin",
      safe: l2(106, 11),
      l1: [11, 12],
      batch: span(106, [
        [1014, 10],
        [1016, 11],
      ]),
      inclusion: 12,
      expect: [Drop],
      why: "older than the parent",
    },
    // full-check rules (pre-Holocene); the Holocene prefix accepts and leaves them to the singular checks
    {
      name: "block before its L1 origin's time",
      batch: span(102, [
        [1006, 10],
        [1008, 11],
      ]),
      expect: [Drop, Accept],
      why: "before its L1 origin",
    },
    {
      name: "drift: exactly at the limit, with txs",
      cfg: { maxSequencerDrift: 10 },
      safe: l2(104, 10),
      batch: span(104, [[1010, 10]]),
      expect: [Accept],
    },
    {
      name: "drift: limit + 1, with txs",
      cfg: { maxSequencerDrift: 9 },
      safe: l2(104, 10),
      batch: span(104, [[1010, 10]]),
      expect: [Drop, Accept],
      why: "drift",
    },
    {
      name: "drift: limit + 1, empty, next known and later",
      cfg: { maxSequencerDrift: 9 },
      safe: l2(104, 10),
      batch: span(104, [[1010, 10, []]]),
      expect: [Accept],
    },
    {
      name: "drift: limit + 1, empty, next L1 unknown",
      cfg: { maxSequencerDrift: 9 },
      safe: l2(104, 10),
      l1: [10],
      batch: span(104, [[1010, 10, []]]),
      expect: [Undecided, Accept],
    },
    {
      name: "drift: empty block that could have adopted the next origin",
      cfg: { maxSequencerDrift: 9 },
      safe: l2(104, 10),
      batch: span(104, [
        [1010, 10, []],
        [1012, 10, []],
      ]),
      expect: [Drop, Accept],
      why: "adopted",
    },
    {
      name: "drift: empty block advancing the origin",
      cfg: { maxSequencerDrift: 0 },
      safe: l2(106, 10),
      batch: span(106, [[1014, 11, []]]),
      inclusion: 12,
      expect: [Accept],
    },
    {
      name: "drift: origin advanced inside the span, with txs",
      cfg: { maxSequencerDrift: 0 },
      safe: l2(105, 10),
      batch: span(105, [
        [1012, 11, []],
        [1014, 11],
      ]),
      inclusion: 12,
      expect: [Drop, Accept],
      why: "drift",
    },
    {
      name: "txs: deposit in the second block",
      batch: span(102, [
        [1006, 10],
        [1008, 10, [TX_DEPOSIT]],
      ]),
      expect: [Drop, Accept],
      why: "block 1: deposit",
    },
    {
      name: "txs: empty transaction",
      batch: span(102, [[1006, 10, [new Uint8Array(0)]]]),
      expect: [Drop, Accept],
      why: "empty",
    },
    {
      name: "txs: SetCode before Isthmus",
      batch: span(102, [[1006, 10, [TX_SETCODE]]]),
      expect: [Drop, Accept],
      why: "SetCode",
    },
    {
      name: "txs: SetCode in the span's blocks from Isthmus on",
      cfg: { isthmusTime: 1008 },
      batch: span(102, [
        [1006, 10, [TX_LEGACY]],
        [1008, 10, [TX_SETCODE]],
      ]),
      expect: [Accept],
    },
    {
      name: "txs: SetCode in a span block before Isthmus",
      cfg: { isthmusTime: 1008 },
      batch: span(102, [
        [1006, 10, [TX_SETCODE]],
        [1008, 10, [TX_SETCODE]],
      ]),
      expect: [Drop, Accept],
      why: "block 0: SetCode",
    },
    {
      name: "Jovian activation block inside the span with txs",
      cfg: { jovianTime: 1008 },
      batch: span(102, [
        [1006, 10],
        [1008, 10, [TX_1559]],
      ]),
      expect: [Drop, Accept],
      why: "Jovian",
    },
    {
      name: "Jovian activation block inside the span, empty",
      cfg: { jovianTime: 1008 },
      batch: span(102, [
        [1006, 10],
        [1008, 10, []],
      ]),
      expect: [Accept],
    },
    {
      name: "Karst activation block inside the span with txs",
      cfg: { karstTime: 1008 },
      batch: span(102, [
        [1006, 10],
        [1008, 10, [TX_1559]],
      ]),
      expect: [Drop, Accept],
      why: "Karst",
    },
    {
      name: "Karst activation block inside the span, empty",
      cfg: { karstTime: 1008 },
      batch: span(102, [
        [1006, 10],
        [1008, 10, []],
      ]),
      expect: [Accept],
    },
    {
      name: "block after the safe head on an epoch older than the safe head's",
      safe: l2(106, 11),
      l1: [11, 12],
      l2: reader([
        [l2(105, 10), []],
        [l2(106, 10), [TX_DEPOSIT, TX_1559]],
      ]),
      batch: span(105, [
        [1012, 10],
        [1014, 10],
        [1016, 11],
      ]),
      inclusion: 12,
      expect: [Drop, Accept],
      why: "older than the safe head",
    },
    // overlap with the safe chain
    {
      name: "overlap: same origins and user txs",
      safe: l2(104, 10),
      l2: overlapReader(),
      batch: OVERLAP,
      expect: [Accept],
    },
    {
      name: "overlap: a transaction differs",
      safe: l2(104, 10),
      l2: overlapReader({ txs104: [TX_DEPOSIT, TX_1559] }),
      batch: OVERLAP,
      expect: [Drop, Accept],
      why: "differs",
    },
    {
      name: "overlap: transaction count differs",
      safe: l2(104, 10),
      l2: overlapReader({ txs103: [TX_DEPOSIT, TX_1559, TX_1559] }),
      batch: OVERLAP,
      expect: [Drop, Accept],
      why: "more transactions",
    },
    {
      name: "overlap: safe block has fewer user txs",
      safe: l2(104, 10),
      l2: overlapReader({ txs103: [TX_DEPOSIT] }),
      batch: OVERLAP,
      expect: [Drop, Accept],
      why: "fewer",
    },
    {
      name: "overlap: L1 origin differs",
      safe: l2(104, 10),
      l2: overlapReader({ ref104: l2(104, 11) }),
      batch: OVERLAP,
      expect: [Drop, Accept],
      why: "L1 origin",
    },
    {
      name: "overlap: safe block cannot be read",
      safe: l2(104, 10),
      l2: overlapReader({ no104: true }),
      batch: OVERLAP,
      expect: [Undecided, Accept],
    },
    {
      name: "overlap: parent block cannot be read",
      safe: l2(104, 10),
      l2: reader(),
      batch: OVERLAP,
      expect: [Undecided],
    },
  ];

  describe("checkSpanBatch (pre-Holocene) and checkSpanBatchPrefix (Holocene)", () => {
    for (const c of spanCases) {
      const [pre, holo = pre] = c.expect;
      it(`${c.name} → ${name(pre)} / Holocene prefix ${name(holo)}`, async () => {
        const l1Blocks = l1s(...(c.l1 ?? [10, 11]));
        const safe = c.safe ?? SAFE;
        const rd = c.l2 ?? reader();
        const inclusion = l1(c.inclusion ?? 11);
        const preCfg: RollupConfig = { ...CFG, ...DELTA, ...c.cfg };
        const full = await checkSpanBatch(preCfg, l1Blocks, safe, c.batch, inclusion, rd);
        assert.equal(name(full.validity), name(pre), full.reason);
        if (c.why !== undefined && pre === Drop) assert.match(full.reason, new RegExp(c.why));
        if (pre !== Accept) assert.notEqual(full.reason, "");

        const holoCfg: RollupConfig = { ...CFG, ...HOLO, ...c.cfg };
        const p = await checkSpanBatchPrefix(holoCfg, l1Blocks, safe, c.batch, inclusion, rd);
        assert.equal(name(p.validity), name(holo), p.reason);
        if (holo === Accept) assert.ok(p.parent !== null);
      });
    }

    it("the prefix returns the parent block: the safe head, or the overlapped chain's block", async () => {
      const cfg: RollupConfig = { ...CFG, ...HOLO };
      const p1 = await checkSpanBatchPrefix(cfg, l1s(10, 11), SAFE, span(102, [[1006, 10]]), l1(11), reader());
      assert.equal(p1.parent?.number, 102);
      const p2 = await checkSpanBatchPrefix(cfg, l1s(10, 11), l2(104, 10), OVERLAP, l1(11), overlapReader());
      assert.equal(p2.validity, Accept);
      assert.equal(p2.parent?.number, 102);
    });

    it("a span before L2 genesis has no parent: drop", async () => {
      const cfg: RollupConfig = { ...CFG, ...DELTA };
      const early = span(0, [
        [800, 10],
        [802, 10],
        [804, 10],
      ]);
      const got = await checkSpanBatch(cfg, l1s(10, 11), l2(1, 10), early, l1(11), reader());
      assert.equal(got.validity, Drop);
      assert.match(got.reason, /genesis/);
    });

    it("Holocene is chosen by the inclusion block's time for span batches too", async () => {
      const cfg: RollupConfig = { ...CFG, ...DELTA, holoceneTime: 1012 };
      const future = span(103, [[1008, 10]]);
      assert.equal((await checkSpanBatchPrefix(cfg, l1s(10, 11), SAFE, future, l1(10), reader())).validity, Future);
      assert.equal((await checkSpanBatchPrefix(cfg, l1s(10, 11), SAFE, future, l1(11), reader())).validity, Drop);
      const past = span(100, [
        [1002, 10],
        [1004, 10],
      ]);
      assert.equal((await checkSpanBatchPrefix(cfg, l1s(10, 11), SAFE, past, l1(10), reader())).validity, Drop);
      assert.equal((await checkSpanBatchPrefix(cfg, l1s(10, 11), SAFE, past, l1(11), reader())).validity, Past);
    });
  });
});
