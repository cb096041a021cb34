/**
 * Pieces the reliability scenarios share, on top of the action harness (test/utils/actions/): a
 * sequencer node as opal-node runs one — the real `Sequencer` (rollup/sequencer.ts) and the real
 * `Driver` deriving into the same engine controller under one lock, on a test clock — a batcher
 * that posts a node's unsafe blocks as singular batches in one calldata channel, and chain checks.
 */
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import { bytesToHex } from "../../src/primitives/hex.js";
import { encodeSingularBatch } from "../../src/rollup/derive/batch.js";
import type { SingularBatch } from "../../src/rollup/derive/batchTypes.js";
import { compressChannel } from "../../src/rollup/derive/channelReader.js";
import { encodeFramesTxData } from "../../src/rollup/derive/frame.js";
import { Driver } from "../../src/rollup/driver/driver.js";
import { EngineClient, type PayloadEnvelope } from "../../src/rollup/engine/engineClient.js";
import { L1Source } from "../../src/rollup/l1/l1Source.js";
import { Semaphore } from "../../src/rollup/l1/limits.js";
import type { L2BlockRef } from "../../src/rollup/refs.js";
import { Sequencer, type SequencerStep } from "../../src/rollup/sequencer/sequencer.js";
import { SequencerControl } from "../../src/rollup/sequencer/sequencerControl.js";
import { BATCH_INBOX } from "../utils/actions/l1Miner.js";
import { type Rollup, SILENT_LOG } from "../utils/actions/rollup.js";
import { InProcessExec } from "../utils/inProcessExec.js";

/** What the node's engine answers about its blocks (a verifier's or a sequencer node's). */
export interface ChainView {
  readonly engine: EngineClient;
}

/** opal-node with `--sequencer.enabled` on an in-process opal-exec: driver + sequencer, one lock. */
export class SequencerNode implements ChainView {
  readonly exec: InProcessExec;
  readonly engine: EngineClient;
  readonly driver: Driver;
  readonly sequencer: Sequencer;
  /** The sequencer's wall clock (seconds). */
  now: number;
  /** Each block the sequencer built, as P2P gossip would carry it. */
  readonly built: PayloadEnvelope[] = [];
  /** Resets the sequencer asked the driver for (its L1 origin left the chain). */
  resetRequests = 0;
  /** Called with each block built (e.g. a verifier's unsafe queue, as gossip). */
  onBlock: ((env: PayloadEnvelope) => void) | null = null;

  constructor(readonly rollup: Rollup) {
    this.exec = InProcessExec.create(rollup.l2Genesis, { txPool: true });
    this.engine = new EngineClient(this.exec.rpc, rollup.cfg);
    this.now = rollup.cfg.genesis.l2Time;
    const lock = new Semaphore(1);
    const head = () => rollup.miner.headRef();
    this.driver = new Driver(rollup.cfg, {
      l1: new L1Source(rollup.l1Client(false), 0, head),
      l2: this.engine,
      engine: this.engine,
      blobs: null,
      altDa: null,
      l1Chain: null,
      log: SILENT_LOG,
      lock,
    });
    const controller = this.driver.controller;
    const driver = this.driver;
    this.sequencer = new Sequencer({
      cfg: rollup.cfg,
      controller,
      l1: new L1Source(rollup.l1Client(false), 0, head),
      l2: this.engine,
      l1Chain: null,
      control: new SequencerControl(
        { enabled: true, stopped: false, adminStatePath: null, conductorEnabled: false },
        () => controller.state.unsafe.hash,
      ),
      lock,
      log: SILENT_LOG,
      conductor: null,
      maxSafeLag: 0,
      now: () => this.now,
      ready: () => driver.counters.resets > 0,
      requestReset: () => {
        this.resetRequests++;
        driver.requestReset();
      },
      onBlock: (_ref, env) => {
        this.built.push(env);
        this.onBlock?.(env);
      },
    });
  }

  get heads() {
    return this.driver.controller.state;
  }

  /** Derives what L1 has (the node's driver loop until idle); fails on a derivation error. */
  async derive(): Promise<void> {
    const r = await this.driver.stepUntilIdle();
    if (r.kind === "critical" || r.kind === "temporary") throw r.error;
  }

  /**
   * Sets the clock to `t`, then alternates derivation and sequencing until the sequencer waits for
   * the next slot: every block due by `t` is built. Returns the sequencer steps that did not build.
   */
  async runUntil(t: number): Promise<SequencerStep[]> {
    this.now = t;
    const other: SequencerStep[] = [];
    for (let i = 0; i < 10_000; i++) {
      await this.derive();
      const s = await this.sequencer.step();
      if (s.kind === "built") continue;
      other.push(s);
      if (s.kind === "early") return other;
      if (other.length > 20) return other;
    }
    return other;
  }
}

/** Signed L1 batcher txs carrying L2 blocks from..to of `node` as singular batches (one channel). */
export async function batchTxs(rollup: Rollup, node: ChainView, from: number, to: number): Promise<Uint8Array[]> {
  if (to < from) return [];
  const batches: SingularBatch[] = [];
  for (let n = from; n <= to; n++) {
    const ref = await node.engine.l2BlockRefByNumber(n);
    const txs = (await node.engine.transactionsByNumber(n)).filter((t) => t[0] !== 0x7e);
    batches.push({
      parentHash: ref.parentHash,
      epochNum: ref.l1origin.number,
      epochHash: ref.l1origin.hash,
      timestamp: ref.timestamp,
      transactions: txs,
    });
  }
  const data = compressChannel(batches.map(encodeSingularBatch), "zlib");
  const frame = { channelId: new Uint8Array(randomBytes(16)), frameNumber: 0, data, isLast: true };
  const txData = encodeFramesTxData([frame]);
  // EIP-7623 floor (L1 Prague): 10 gas per token, 4 tokens per non-zero byte.
  const gas = 21_000n + 40n * BigInt(txData.length) + 100_000n;
  return [rollup.miner.tx(rollup.batcherAccount, BATCH_INBOX, txData, gas)];
}

/** The batcher account's nonce at L1 block `n` (after a reorg, the txs above it are gone). */
export async function l1NonceAt(rollup: Rollup, n: number): Promise<bigint> {
  const hex = await rollup.miner.exec.rpc.call<string>("eth_getTransactionCount", [
    bytesToHex(rollup.batcherAccount.address),
    `0x${n.toString(16)}`,
  ]);
  return BigInt(hex);
}

export async function hashAt(node: ChainView, n: number): Promise<string> {
  return bytesToHex((await node.engine.l2BlockRefByNumber(n)).hash);
}

/** Blocks 1..upTo of `a` and `b` are the same, hash for hash. */
export async function assertSameChain(a: ChainView, b: ChainView, upTo: number, what: string): Promise<void> {
  for (let n = 1; n <= upTo; n++) assert.equal(await hashAt(a, n), await hashAt(b, n), `${what}: L2 block ${n}`);
}

/** Every block 1..upTo of `node` has an L1 origin on the miner's canonical chain. */
export async function assertCanonicalOrigins(rollup: Rollup, node: ChainView, upTo: number, what: string) {
  for (let n = 1; n <= upTo; n++) {
    const ref: L2BlockRef = await node.engine.l2BlockRefByNumber(n);
    const canonical = rollup.miner.refOf(ref.l1origin.number);
    assert.equal(bytesToHex(ref.l1origin.hash), bytesToHex(canonical.hash), `${what}: L2 ${n} origin canonical`);
  }
}
