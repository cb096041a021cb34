/**
 * rollup/derive/batchQueue, batchStage, batchMux: stepping the batch stages with a fake previous
 * stage (batches per L1 block and channel) and a fake engine that makes every returned batch the
 * new safe head. Pre-Holocene: ordering with future buffering, empty batches once the sequencing
 * window has passed (epoch advance rule), span batches all-or-nothing then one block at a time.
 * Holocene: past batches skipped, invalid batches flush the rest of the channel (and span), spans
 * streamed. The mux: stage by fork on reset, transition when the origin enters Holocene.
 *
 * Synthetic chains: L1 block n at 1000 + 12·(n − 10), L2 block n at 800 + 2n; safe head L2 #102
 * @1004 on origin L1 #10; sequencing window 4.
 */
import { strict as assert } from "node:assert";
import type { RollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import { BatchMux } from "../../../../src/rollup/derive/batchMux.js";
import {
  BatchQueue,
  type BatchSource,
  type NextBatch,
  type SingularBatchProvider,
} from "../../../../src/rollup/derive/batchQueue.js";
import { BatchStage } from "../../../../src/rollup/derive/batchStage.js";
import {
  type Batch,
  BatchType,
  type BatchWithInclusion,
  type SingularBatch,
  type SpanBatch,
  type SpanBatchElement,
} from "../../../../src/rollup/derive/batchTypes.js";
import { type BatchCheck, BatchValidity, type L2Reader } from "../../../../src/rollup/derive/batchValidity.js";
import { DeriveError, EOF, NOT_ENOUGH_DATA, type StageSignal } from "../../../../src/rollup/derive/errors.js";
import type { L1BlockRef, L2BlockRef } from "../../../../src/rollup/refs.js";
import { CFG, hash, L1T, L2T, l1, l2 } from "../../../utils/batchChain.js";

// ---- fixtures ----

const DELTA_CFG: RollupConfig = { ...CFG, canyonTime: 0, deltaTime: 0 };
const HOLO_CFG: RollupConfig = { ...DELTA_CFG, ecotoneTime: 0, fjordTime: 0, graniteTime: 0, holoceneTime: 0 };

const TX_1559 = Uint8Array.of(0x02, 0xc0);
const TX_LEGACY = Uint8Array.of(0xf8, 0x01);
const TX_DEPOSIT = Uint8Array.of(0x7e, 0xc0);

function single(parentNum: number, epoch: number, txs: readonly Uint8Array[] = [TX_LEGACY]): Batch {
  const b: SingularBatch = {
    parentHash: hash(L2T, parentNum),
    epochNum: epoch,
    epochHash: hash(L1T, epoch),
    timestamp: 800 + 2 * (parentNum + 1),
    transactions: txs,
  };
  return { type: BatchType.Singular, batch: b };
}

function span(parentNum: number, blocks: readonly (readonly [number, number, (readonly Uint8Array[])?])[]): Batch {
  const batches: SpanBatchElement[] = blocks.map(([timestamp, epochNum, txs]) => ({
    timestamp,
    epochNum,
    transactions: txs ?? [TX_1559],
  }));
  const b: SpanBatch = {
    parentCheck: hash(L2T, parentNum).slice(0, 20),
    l1OriginCheck: hash(L1T, batches[batches.length - 1]!.epochNum).slice(0, 20),
    batches,
  };
  return { type: BatchType.Span, batch: b };
}

/** The safe block made from `batch` on `parent`. */
function child(parent: L2BlockRef, batch: SingularBatch): L2BlockRef {
  const n = parent.number + 1;
  return {
    hash: hash(L2T, n),
    number: n,
    parentHash: parent.hash,
    timestamp: batch.timestamp,
    l1origin: { hash: batch.epochHash, number: batch.epochNum },
    sequenceNumber: batch.epochNum === parent.l1origin.number ? parent.sequenceNumber + 1 : 0,
  };
}

function reader(blocks: readonly L2BlockRef[] = []): L2Reader {
  const m = new Map(blocks.map((b) => [b.number, b]));
  return {
    async l2BlockRefByNumber(n) {
      const b = m.get(n);
      if (b === undefined) throw new Error(`no L2 block ${n}`);
      return b;
    },
    async transactionsByNumber(n) {
      if (!m.has(n)) throw new Error(`no L2 block ${n}`);
      return [TX_DEPOSIT];
    },
  };
}

/**
 * The previous stage: batches appear when the origin reaches their L1 block, grouped in channels;
 * `flushChannel` drops what is left of the channel of the batch read last.
 */
class FakeSource implements BatchSource {
  private cur: L1BlockRef;
  private pending: { b: BatchWithInclusion; ch: number }[] = [];
  private lastChannel = -1;
  flushes = 0;
  reads = 0;

  constructor(
    start: number,
    private readonly schedule: ReadonlyMap<number, readonly (readonly [channel: number, batch: Batch])[]>,
  ) {
    this.cur = l1(start);
    this.load(start);
  }

  origin(): L1BlockRef {
    return this.cur;
  }

  advance(): void {
    this.cur = l1(this.cur.number + 1);
    this.load(this.cur.number);
  }

  async nextBatch(): Promise<BatchWithInclusion | StageSignal> {
    const next = this.pending.shift();
    if (next === undefined) return EOF;
    this.reads++;
    this.lastChannel = next.ch;
    return next.b;
  }

  flushChannel(): void {
    this.flushes++;
    this.pending = this.pending.filter((p) => p.ch !== this.lastChannel);
  }

  private load(n: number): void {
    for (const [ch, b] of this.schedule.get(n) ?? []) this.pending.push({ b: { batch: b, inclusionBlock: l1(n) }, ch });
  }
}

interface Out {
  readonly batch: SingularBatch;
  readonly lastInSpan: boolean;
  /** The source's L1 origin when the batch came out. */
  readonly at: number;
}

/**
 * The pipeline loop: EOF advances L1 up to `l1Max` (then a few retries), NOT_ENOUGH_DATA calls
 * again, a batch becomes the new safe head.
 */
async function drive(
  stage: SingularBatchProvider,
  src: FakeSource,
  start: L2BlockRef,
  l1Max: number,
): Promise<{ out: Out[]; head: L2BlockRef }> {
  const out: Out[] = [];
  let head = start;
  let idleEofs = 0;
  for (let steps = 0; steps < 1000; steps++) {
    const r: NextBatch | StageSignal = await stage.nextBatch(head);
    if (r === EOF) {
      if (src.origin().number < l1Max) src.advance();
      else if (++idleEofs > 3) break;
      continue;
    }
    if (r === NOT_ENOUGH_DATA) continue;
    idleEofs = 0;
    out.push({ batch: r.batch, lastInSpan: r.lastInSpan, at: src.origin().number });
    head = child(head, r.batch);
  }
  return { out, head };
}

const SAFE = l2(102, 10);

function times(out: readonly Out[]): number[] {
  return out.map((o) => o.batch.timestamp);
}

function sched(entries: [number, (readonly [number, Batch])[]][]): Map<number, (readonly [number, Batch])[]> {
  return new Map(entries);
}

describe("rollup/derive/batchQueue (pre-Holocene)", () => {
  it("buffers a future batch until the safe head reaches it", async () => {
    const src = new FakeSource(
      10,
      sched([
        [
          11,
          [
            [1, single(103, 10)],
            [1, single(102, 10)],
          ],
        ],
      ]),
    );
    const q = new BatchQueue(CFG, src, reader());
    q.reset(l1(10));
    const { out } = await drive(q, src, SAFE, 12);
    assert.deepEqual(times(out).slice(0, 2), [1006, 1008]);
    assert.deepEqual(
      out.slice(0, 2).map((o) => o.batch.transactions.length),
      [1, 1],
    );
    assert.ok(out.every((o) => o.lastInSpan));
    assert.equal(q.bufferedCount(), 0);
  });

  it("takes the first valid batch in inclusion order and drops duplicates", async () => {
    const a = single(102, 10, [TX_LEGACY]);
    const b = single(102, 10, [TX_1559]);
    const src = new FakeSource(
      10,
      sched([
        [
          11,
          [
            [1, a],
            [2, b],
          ],
        ],
      ]),
    );
    const q = new BatchQueue(CFG, src, reader());
    q.reset(l1(10));
    const { out } = await drive(q, src, SAFE, 11);
    assert.equal(out.length, 1);
    assert.equal(out[0]!.batch.transactions[0], TX_LEGACY);
    assert.equal(q.bufferedCount(), 0);
  });

  it("derives empty batches only once the sequencing window has passed, advancing epochs by L1 time", async () => {
    const src = new FakeSource(10, new Map());
    const q = new BatchQueue(CFG, src, reader());
    q.reset(l1(10));
    const first = await drive(q, src, SAFE, 14);
    // Epoch 10 + SWS 4 = 14: nothing before L1 #14 has been read completely.
    assert.ok(first.out.every((o) => o.at === 14));
    assert.deepEqual(
      first.out.map((o) => [o.batch.timestamp, o.batch.epochNum]),
      [
        [1006, 10],
        [1008, 10],
        [1010, 10],
      ],
    );
    assert.ok(first.out.every((o) => o.batch.transactions.length === 0 && o.lastInSpan));
    assert.deepEqual(
      first.out.map((o) => o.batch.parentHash),
      [hash(L2T, 102), hash(L2T, 103), hash(L2T, 104)],
    );
    // 1012 is L1 #11's time: the window moves to epoch 11, whose own window ends at L1 #15.
    assert.deepEqual(q.l1Window()[0]?.number, 11);
    const second = await drive(q, src, first.head, 15);
    assert.ok(second.out.every((o) => o.at === 15));
    assert.deepEqual(
      second.out.map((o) => [o.batch.timestamp, o.batch.epochNum]),
      [
        // The first block of an epoch is always made, then empty blocks until L1 #12's time 1024.
        [1012, 11],
        [1014, 11],
        [1016, 11],
        [1018, 11],
        [1020, 11],
        [1022, 11],
      ],
    );
    assert.deepEqual(q.l1Window()[0]?.number, 12);
  });

  it("a batch read in the last block of the window wins over empty batches", async () => {
    const src = new FakeSource(10, sched([[14, [[1, single(102, 10, [TX_1559])]]]]));
    const q = new BatchQueue(CFG, src, reader());
    q.reset(l1(10));
    const { out } = await drive(q, src, SAFE, 14);
    assert.equal(out[0]!.batch.transactions.length, 1);
    assert.deepEqual(times(out), [1006, 1008, 1010]);
  });

  it("in the window's last L1 block, empty batches wait until that block is fully read", async () => {
    const src = new FakeSource(
      10,
      sched([
        [
          14,
          [
            [1, single(103, 10, [TX_1559])],
            [1, single(102, 10, [TX_1559])],
          ],
        ],
      ]),
    );
    const q = new BatchQueue(CFG, src, reader());
    q.reset(l1(10));
    const { out } = await drive(q, src, SAFE, 14);
    assert.deepEqual(times(out), [1006, 1008, 1010]);
    assert.deepEqual(
      out.map((o) => o.batch.transactions.length),
      [1, 1, 0],
    );
  });

  it("expands an accepted span batch into singular batches", async () => {
    const src = new FakeSource(
      10,
      sched([
        [
          11,
          [
            [
              1,
              span(102, [
                [1006, 10],
                [1008, 10],
                [1010, 10],
              ]),
            ],
          ],
        ],
      ]),
    );
    const q = new BatchQueue(DELTA_CFG, src, reader());
    q.reset(l1(10));
    const { out } = await drive(q, src, SAFE, 12);
    assert.deepEqual(times(out), [1006, 1008, 1010]);
    assert.deepEqual(
      out.map((o) => o.lastInSpan),
      [false, false, true],
    );
    assert.deepEqual(
      out.map((o) => o.batch.parentHash),
      [hash(L2T, 102), hash(L2T, 103), hash(L2T, 104)],
    );
    assert.ok(out.every((o) => o.batch.epochNum === 10 && o.batch.epochHash.every((x, i) => x === hash(L1T, 10)[i])));
  });

  it("drops a span batch as a whole when one block is invalid", async () => {
    const bad = span(102, [
      [1006, 10],
      [1008, 10, [TX_DEPOSIT]],
      [1010, 10],
    ]);
    const src = new FakeSource(10, sched([[11, [[1, bad]]]]));
    const q = new BatchQueue(DELTA_CFG, src, reader());
    q.reset(l1(10));
    const seen: BatchCheck[] = [];
    q.observer = (c) => seen.push(c);
    const { out } = await drive(q, src, SAFE, 12);
    assert.deepEqual(out, []);
    assert.equal(q.bufferedCount(), 0);
    assert.ok(seen.some((c) => c.validity === BatchValidity.Drop && /deposit/.test(c.reason)));
  });

  it("drops the rest of a span when the engine did not take the previous block", async () => {
    const src = new FakeSource(
      11,
      sched([
        [
          11,
          [
            [
              1,
              span(102, [
                [1006, 10],
                [1008, 10],
              ]),
            ],
          ],
        ],
      ]),
    );
    const q = new BatchQueue(DELTA_CFG, src, reader());
    q.reset(l1(10));
    let r = await q.nextBatch(SAFE);
    while (r === NOT_ENOUGH_DATA) r = await q.nextBatch(SAFE);
    assert.ok(r !== EOF);
    assert.equal(r.lastInSpan, false);
    // Same parent again: the first block was rejected, so the second no longer fits.
    const again = await q.nextBatch(SAFE);
    assert.ok(again === EOF || again === NOT_ENOUGH_DATA);
  });

  it("signals a reset when the safe head's origin does not match the buffered epoch", async () => {
    const src = new FakeSource(11, new Map());
    const q = new BatchQueue(CFG, src, reader());
    q.reset(l1(10));
    const forked: L2BlockRef = { ...SAFE, l1origin: { hash: hash(0x33, 10), number: 10 } };
    await assert.rejects(q.nextBatch(forked), (e: unknown) => e instanceof DeriveError && e.severity === "reset");
  });

  it("drains the previous stage without buffering while the origin is behind the safe head's", async () => {
    const src = new FakeSource(8, sched([[8, [[1, single(102, 10)]]]]));
    const q = new BatchQueue(CFG, src, reader());
    q.reset(l1(8));
    assert.equal(await q.nextBatch(SAFE), NOT_ENOUGH_DATA);
    assert.equal(src.reads, 1);
    assert.equal(q.bufferedCount(), 0);
    assert.equal(await q.nextBatch(SAFE), EOF);
  });
});

describe("rollup/derive/batchStage (Holocene)", () => {
  it("skips past batches silently and takes the next one", async () => {
    const src = new FakeSource(
      10,
      sched([
        [
          11,
          [
            [1, single(101, 10)],
            [1, single(102, 10)],
            [1, single(103, 10)],
          ],
        ],
      ]),
    );
    const s = new BatchStage(HOLO_CFG, src, reader());
    s.reset(l1(10));
    const seen: BatchCheck[] = [];
    s.observer = (c) => seen.push(c);
    const { out } = await drive(s, src, SAFE, 11);
    assert.deepEqual(times(out), [1006, 1008]);
    assert.ok(out.every((o) => o.lastInSpan));
    assert.equal(src.flushes, 0);
    assert.deepEqual(
      seen.map((c) => c.validity),
      [BatchValidity.Past],
    );
  });

  it("an invalid batch flushes the rest of its channel", async () => {
    const src = new FakeSource(
      10,
      sched([
        [
          11,
          [
            [1, single(102, 10, [TX_DEPOSIT])],
            [1, single(102, 10, [TX_LEGACY])],
            [2, single(102, 10, [TX_1559])],
          ],
        ],
      ]),
    );
    const s = new BatchStage(HOLO_CFG, src, reader());
    s.reset(l1(10));
    const { out } = await drive(s, src, SAFE, 11);
    assert.equal(out.length, 1);
    assert.equal(out[0]!.batch.transactions[0], TX_1559);
    assert.equal(src.flushes, 1);
    assert.equal(s.channelFlushes(), 1);
  });

  it("a future batch is dropped, not buffered, and flushes its channel", async () => {
    const src = new FakeSource(
      10,
      sched([
        [
          11,
          [
            [1, single(103, 10)],
            [1, single(102, 10, [TX_LEGACY])],
            [2, single(102, 10, [TX_1559])],
          ],
        ],
      ]),
    );
    const s = new BatchStage(HOLO_CFG, src, reader());
    s.reset(l1(10));
    const { out } = await drive(s, src, SAFE, 11);
    assert.deepEqual(times(out), [1006]);
    assert.equal(out[0]!.batch.transactions[0], TX_1559);
    assert.equal(src.flushes, 1);
  });

  it("streams a span batch; an invalid block drops the rest of the span and of the channel", async () => {
    const src = new FakeSource(
      10,
      sched([
        [
          11,
          [
            [
              1,
              span(102, [
                [1006, 10],
                [1008, 10, [TX_DEPOSIT]],
                [1010, 10],
              ]),
            ],
            [1, single(104, 10)],
            [2, single(103, 10, [TX_LEGACY])],
          ],
        ],
      ]),
    );
    const s = new BatchStage(HOLO_CFG, src, reader());
    s.reset(l1(10));
    const { out } = await drive(s, src, SAFE, 11);
    assert.deepEqual(times(out), [1006, 1008]);
    assert.equal(out[0]!.batch.transactions[0], TX_1559);
    assert.equal(out[1]!.batch.transactions[0], TX_LEGACY);
    assert.ok(out.every((o) => o.lastInSpan));
    assert.equal(src.flushes, 1);
  });

  it("an invalid span prefix flushes the channel", async () => {
    const src = new FakeSource(
      10,
      sched([
        [
          11,
          [
            [1, span(99, [[1006, 10]])],
            [1, single(102, 10, [TX_LEGACY])],
            [2, single(102, 10, [TX_1559])],
          ],
        ],
      ]),
    );
    const s = new BatchStage(HOLO_CFG, src, reader());
    s.reset(l1(10));
    const { out } = await drive(s, src, SAFE, 11);
    assert.equal(out.length, 1);
    assert.equal(out[0]!.batch.transactions[0], TX_1559);
    assert.equal(src.flushes, 1);
  });

  it("a past span batch is skipped without flushing", async () => {
    const src = new FakeSource(
      10,
      sched([
        [
          11,
          [
            [
              1,
              span(100, [
                [1002, 10],
                [1004, 10],
              ]),
            ],
            [1, single(102, 10)],
          ],
        ],
      ]),
    );
    const s = new BatchStage(HOLO_CFG, src, reader());
    s.reset(l1(10));
    const { out } = await drive(s, src, SAFE, 11);
    assert.deepEqual(times(out), [1006]);
    assert.equal(src.flushes, 0);
  });

  it("a span overlapping the safe chain streams only its new blocks", async () => {
    const src = new FakeSource(
      10,
      sched([
        [
          11,
          [
            [
              1,
              span(101, [
                [1004, 10],
                [1006, 10],
                [1008, 10],
              ]),
            ],
          ],
        ],
      ]),
    );
    const s = new BatchStage(HOLO_CFG, src, reader([l2(101, 10)]));
    s.reset(l1(10));
    const { out } = await drive(s, src, SAFE, 11);
    assert.deepEqual(times(out), [1006, 1008]);
    assert.deepEqual(
      out.map((o) => o.batch.parentHash),
      [hash(L2T, 102), hash(L2T, 103)],
    );
  });

  it("derives empty batches after the sequencing window, each last in span", async () => {
    const src = new FakeSource(10, new Map());
    const s = new BatchStage(HOLO_CFG, src, reader());
    s.reset(l1(10));
    const { out } = await drive(s, src, SAFE, 14);
    assert.deepEqual(
      out.map((o) => [o.batch.timestamp, o.batch.epochNum, o.lastInSpan]),
      [
        [1006, 10, true],
        [1008, 10, true],
        [1010, 10, true],
      ],
    );
  });

  it("fails loudly when started without the next L1 block", async () => {
    const src = new FakeSource(11, new Map());
    const s = new BatchStage(HOLO_CFG, src, reader());
    s.reset(l1(11));
    // Parent on origin 10, stage window [11]: not a safe-head start.
    await assert.rejects(s.nextBatch(SAFE), (e: unknown) => e instanceof DeriveError && e.severity === "critical");
  });
});

describe("rollup/derive/batchMux", () => {
  it("picks the stage by the reset base's time", () => {
    const cfg: RollupConfig = { ...DELTA_CFG, holoceneTime: l1(12).timestamp };
    const src = new FakeSource(11, new Map());
    const mux = new BatchMux(cfg, src, reader());
    mux.reset(l1(11));
    assert.ok(mux.stage() instanceof BatchQueue);
    mux.reset(l1(12));
    assert.ok(mux.stage() instanceof BatchStage);
    mux.reset(l1(11));
    assert.ok(mux.stage() instanceof BatchQueue);
  });

  it("switches to the Holocene stage when the origin enters Holocene, dropping buffered batches", async () => {
    const cfg: RollupConfig = { ...DELTA_CFG, holoceneTime: l1(12).timestamp };
    const src = new FakeSource(10, sched([[11, [[1, single(103, 10)]]]]));
    const mux = new BatchMux(cfg, src, reader());
    const seen: BatchCheck[] = [];
    mux.observer = (c) => seen.push(c);
    mux.reset(l1(10));
    assert.equal(await mux.nextBatch(SAFE), EOF);
    src.advance();
    assert.equal(await mux.nextBatch(SAFE), NOT_ENOUGH_DATA);
    assert.equal(await mux.nextBatch(SAFE), EOF);
    const q = mux.stage();
    assert.ok(q instanceof BatchQueue);
    assert.equal(q.bufferedCount(), 1);
    assert.ok(seen.some((c) => c.validity === BatchValidity.Future));

    src.advance();
    const r = await mux.nextBatch(SAFE);
    assert.ok(r === EOF || r === NOT_ENOUGH_DATA);
    const s = mux.stage();
    assert.ok(s instanceof BatchStage);
    assert.deepEqual(
      s.l1Window().map((b) => b.number),
      [10, 11, 12],
    );
    // The future batch did not survive the transition: after the window only empty batches come.
    const { out } = await drive(mux, src, SAFE, 14);
    assert.ok(out.every((o) => o.batch.transactions.length === 0));
    assert.deepEqual(times(out).slice(0, 3), [1006, 1008, 1010]);
  });

  it("fails before the first reset", async () => {
    const mux = new BatchMux(CFG, new FakeSource(10, new Map()), reader());
    await assert.rejects(mux.nextBatch(SAFE), DeriveError);
  });
});
