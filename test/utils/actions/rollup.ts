/**
 * A whole rollup in one process for action tests (op-e2e actions): the L1 miner, a sequencer (its own
 * opal-exec and engine controller, choosing L1 origins and building blocks with the attributes
 * derivation would make plus the test's transactions), a batcher that turns the sequencer's unsafe
 * blocks into singular or span batches, channels and frames in L1 transactions, and a verifier —
 * the real `Driver` over the real L1 client (untrusted, so every header, tx list and receipt list is
 * verified) and its own opal-exec. Nothing runs on its own: the test mines, sequences, batches and
 * steps.
 *
 * Each engine client reaches its opal-exec through `EngineRpcBridge`: op-node v1.19.1 asks for
 * engine_getPayloadV5 from Karst (engineClient.ts `getPayloadVersionAt`); while the in-process
 * opal-exec does not advertise that method (engine_exchangeCapabilities), the bridge sends the call
 * as engine_getPayloadV4, whose answer is the same OP envelope, and records what the client asked.
 */
import { randomBytes } from "node:crypto";
import { encodeJovianExtraData } from "../../../src/block/opExtraData.js";
import { GETH_FORK_TIME_KEYS } from "../../../src/node/devnet/devnetConfig.js";
import { devAccounts, opDevGenesis } from "../../../src/node/exec/devGenesis.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import {
  FORK_TIME_KEYS,
  parseRollupConfig,
  ROLLUP_FORKS,
  type RollupConfig,
  type RollupFork,
} from "../../../src/rollup/config/rollupConfig.js";
import { type AttributesDeps, preparePayloadAttributes } from "../../../src/rollup/derive/attributes.js";
import { encodeSingularBatch } from "../../../src/rollup/derive/batch.js";
import type { SingularBatch } from "../../../src/rollup/derive/batchTypes.js";
import { type CompressionAlgo, compressChannel } from "../../../src/rollup/derive/channelReader.js";
import type { AltDaResolver, BlobSource } from "../../../src/rollup/derive/dataSource.js";
import { encodeFramesTxData, type Frame } from "../../../src/rollup/derive/frame.js";
import { encodeSpanBatch } from "../../../src/rollup/derive/rawSpanBatch.js";
import { spanBatchFromSingulars } from "../../../src/rollup/derive/spanBatchBuilder.js";
import { Driver, type DriverOptions } from "../../../src/rollup/driver/driver.js";
import type { SafeDb } from "../../../src/rollup/driver/safeDb.js";
import { EngineClient, type PayloadEnvelope } from "../../../src/rollup/engine/engineClient.js";
import { EngineController } from "../../../src/rollup/engine/engineController.js";
import { L1Client } from "../../../src/rollup/l1/l1Client.js";
import { L1Source } from "../../../src/rollup/l1/l1Source.js";
import type { L2BlockRef } from "../../../src/rollup/refs.js";
import type { RpcTransport } from "../../../src/rollup/transport/rpcTransport.js";
import { RpcHttpServer } from "../../../src/rpc/httpServer.js";
import { encodeTx } from "../../../src/tx/envelope.js";
import { signTx } from "../../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../../src/tx/tx.js";
import type { Logger } from "../../../src/util/log.js";
import { InProcessExec } from "../inProcessExec.js";
import { addressKey } from "./genesisAlloc.js";
import { BATCH_INBOX, L1Miner, PORTAL, SYSTEM_CONFIG } from "./l1Miner.js";

export const L2_CHAIN_ID = 901n;
/** The forks the harness schedules: every one from Regolith through Jovian. */
const L2_FORKS: readonly RollupFork[] = ROLLUP_FORKS.slice(0, ROLLUP_FORKS.indexOf("jovian") + 1);
/** The forks after Jovian (Karst, Interop): scheduled only when `forks` names them, never by default. */
const LATER_FORKS: readonly RollupFork[] = ROLLUP_FORKS.slice(ROLLUP_FORKS.indexOf("jovian") + 1);

export interface RollupOptions {
  /**
   * Fork activation as seconds after L2 genesis; null = never; default every fork through Jovian
   * at genesis, the later ones (Karst, Interop) never.
   */
  readonly forks?: Partial<Record<RollupFork, number | null>>;
  readonly blockTime?: number;
  readonly seqWindowSize?: number;
  readonly channelTimeout?: number;
  readonly graniteChannelTimeout?: number;
  readonly maxSequencerDrift?: number;
  /** The verifier trusts its L1 RPC (`--l1.trustrpc`). */
  readonly trustRpc?: boolean;
  /** The verifier's L1 transport (default the miner's in-process RPC; tests wrap it to tamper). */
  readonly verifierL1?: (inner: RpcTransport) => RpcTransport;
  readonly blobs?: BlobSource | null;
  /** L1 (and L2) genesis time; default 100. */
  readonly l1Timestamp?: number;
  /** Extra L1 genesis accounts (e.g. a ProtocolVersions contract's storage). */
  readonly l1Alloc?: Record<string, unknown>;
  /** rollup.json `protocol_versions_address`. */
  readonly protocolVersionsAddress?: string;
  /** The rollup.json `alt_da` section. */
  readonly altDaJson?: Record<string, unknown>;
  /** The verifier's Alt-DA resolver (`--altda.enabled`). */
  readonly altDa?: AltDaResolver | null;
  /** `--verifier.l1-confs` of the verifier (default 0). */
  readonly verifierL1Confs?: number;
  /** Driver options of the verifier (sync mode, engine kind). */
  readonly driver?: DriverOptions;
  /**
   * L2 genesis accounts laid over the dev genesis (a real chain's predeploys and preinstalls), keyed
   * by address with or without 0x, any case; an entry replaces the dev genesis entry at its address.
   */
  readonly l2Alloc?: Record<string, unknown>;
  /** rollup.json `keep_karst_upgrade_gas`. */
  readonly keepKarstUpgradeGas?: boolean;
  /** The sequencer's opal-exec fills payloads from its tx pool when the attributes allow it. */
  readonly sequencerTxPool?: boolean;
}

export const SILENT_LOG: Logger = { debug() {}, info() {}, warn() {}, error() {} };

/** A log that keeps every line (tests check what was warned). */
export function recordingLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const put = (level: string) => (msg: string, ctx?: Record<string, unknown>) =>
    lines.push(
      `${level} ${msg} ${ctx === undefined ? "" : JSON.stringify(ctx, (_k, v) => (typeof v === "bigint" ? v.toString() : v))}`,
    );
  return { lines, debug: () => undefined, info: put("info"), warn: put("warn"), error: put("error") };
}

export class Rollup {
  readonly miner: L1Miner;
  readonly cfg: RollupConfig;
  readonly l2Genesis: Record<string, unknown>;
  readonly sequencer: Sequencer;
  readonly batcher: Batcher;
  readonly batcherAccount;

  constructor(readonly opts: RollupOptions = {}) {
    this.miner = new L1Miner(opts.l1Alloc ?? {}, opts.l1Timestamp);
    this.batcherAccount = this.miner.accounts[1]!;
    const l1Genesis = this.miner.headRef();
    const l2Time = l1Genesis.timestamp;
    const forks: Record<string, number | null> = {};
    for (const f of L2_FORKS) {
      const rel = opts.forks?.[f];
      forks[f] = rel === undefined ? l2Time : rel === null ? null : l2Time + rel;
    }
    for (const f of LATER_FORKS) {
      const rel = opts.forks?.[f];
      forks[f] = rel === undefined || rel === null ? null : l2Time + rel;
    }
    const g = opDevGenesis({ chainId: L2_CHAIN_ID, timestamp: l2Time, gasLimit: 30_000_000n });
    if (opts.l2Alloc !== undefined) {
      const alloc: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(g.alloc as Record<string, unknown>)) alloc[addressKey(k)] = v;
      for (const [k, v] of Object.entries(opts.l2Alloc)) alloc[addressKey(k)] = v;
      g.alloc = alloc;
    }
    const config = g.config as Record<string, unknown>;
    for (const f of L2_FORKS) {
      if (forks[f] === null) delete config[GETH_FORK_TIME_KEYS[f]!];
      else config[GETH_FORK_TIME_KEYS[f]!] = forks[f];
    }
    // op-reth's karstTime (Osaka's rules on L2 from Karst) and op-geth's interopTime.
    if (forks.karst !== null) config.karstTime = forks.karst;
    if (forks.interop !== null) config.interopTime = forks.interop;
    // op-geth pins the L1 forks to their OP twins: Shanghai = Canyon, Cancun = Ecotone, Prague = Isthmus.
    for (const [l1Fork, opFork] of [
      ["shanghaiTime", "canyon"],
      ["cancunTime", "ecotone"],
      ["pragueTime", "isthmus"],
    ] as const) {
      if (forks[opFork] === null) delete config[l1Fork];
      else config[l1Fork] = forks[opFork];
    }
    if (forks.jovian === l2Time) g.extraData = bytesToHex(encodeJovianExtraData(250, 6, 0n));
    else if (forks.holocene !== l2Time) g.extraData = "0x";
    this.l2Genesis = g;
    const genesisHash = InProcessExec.create(g).chain.headBlockHash;
    // The Ecotone (version 1) scalar once Ecotone is at genesis; before that the Bedrock formula reads
    // the whole word, so a pre-Ecotone chain starts with a plain version-0 scalar (684000 = 0.684).
    const scalar = new Uint8Array(32);
    if (forks.ecotone === l2Time) {
      scalar[0] = 1;
      new DataView(scalar.buffer).setUint32(24, 810949);
      new DataView(scalar.buffer).setUint32(28, 1368);
    } else {
      new DataView(scalar.buffer).setUint32(28, 684000);
    }
    const json: Record<string, unknown> = {
      genesis: {
        l1: { hash: bytesToHex(l1Genesis.hash), number: 0 },
        l2: { hash: bytesToHex(genesisHash), number: 0 },
        l2_time: l2Time,
        system_config: {
          batcherAddr: bytesToHex(this.batcherAccount.address),
          overhead: bytesToHex(new Uint8Array(32)),
          scalar: bytesToHex(scalar),
          gasLimit: 30_000_000,
        },
      },
      block_time: opts.blockTime ?? 2,
      max_sequencer_drift: opts.maxSequencerDrift ?? 600,
      seq_window_size: opts.seqWindowSize ?? 20,
      channel_timeout: opts.channelTimeout ?? 10,
      granite_channel_timeout: opts.graniteChannelTimeout ?? 8,
      l1_chain_id: Number(this.miner.chainId),
      l2_chain_id: Number(L2_CHAIN_ID),
      batch_inbox_address: bytesToHex(BATCH_INBOX),
      deposit_contract_address: bytesToHex(PORTAL),
      l1_system_config_address: bytesToHex(SYSTEM_CONFIG),
      chain_op_config: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    };
    for (const f of [...L2_FORKS, ...LATER_FORKS]) if (forks[f] !== null) json[FORK_TIME_KEYS[f]] = forks[f];
    if (opts.altDaJson !== undefined) json.alt_da = opts.altDaJson;
    if (opts.protocolVersionsAddress !== undefined) json.protocol_versions_address = opts.protocolVersionsAddress;
    if (opts.keepKarstUpgradeGas === true) json.keep_karst_upgrade_gas = true;
    this.cfg = parseRollupConfig(json);
    this.sequencer = new Sequencer(this);
    this.batcher = new Batcher(this);
  }

  /** A new L1 client on the miner, as a node would build it. */
  l1Client(trustRpc: boolean, wrap?: (inner: RpcTransport) => RpcTransport): L1Client {
    const rpc = this.miner.exec.rpc;
    return new L1Client({
      url: "in-process://l1",
      transport: wrap === undefined ? rpc : wrap(rpc),
      trustRpc,
      cacheSize: 0,
    });
  }

  /**
   * A fresh verifier: its own opal-exec from genesis (or `exec`: a rollup node restarted over an
   * engine that kept its chain) and a Driver following L1 only, with `driver` in place of the
   * rollup's driver options when given.
   */
  verifier(log: Logger = SILENT_LOG, driver?: DriverOptions, exec?: InProcessExec, safeDb?: SafeDb): Verifier {
    return new Verifier(this, log, driver, exec, safeDb);
  }
}

/**
 * The engine transport of an action-test client (see the header): engine_getPayloadV5 goes to the
 * opal-exec as is when it advertises the method, else as engine_getPayloadV4 (the OP answer of both is
 * the V4 envelope: op-reth maps ExecutionPayloadEnvelopeV5 to OpExecutionPayloadEnvelopeV4).
 * `asked` lists the methods the client called, before any renaming.
 */
export class EngineRpcBridge implements RpcTransport {
  readonly asked: string[] = [];
  private hasV5: boolean | null = null;

  constructor(private readonly inner: RpcTransport) {}

  async call<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
    this.asked.push(method);
    if (method === "engine_getPayloadV5") {
      this.hasV5 ??= (await this.inner.call<string[]>("engine_exchangeCapabilities", [[]])).includes(method);
      if (!this.hasV5) return this.inner.call<T>("engine_getPayloadV4", params);
    }
    return this.inner.call<T>(method, params);
  }

  async callBatch(calls: readonly { method: string; params: readonly unknown[] }[]): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const c of calls) {
      try {
        out.push(await this.call(c.method, c.params));
      } catch (e) {
        out.push(e);
      }
    }
    return out;
  }
}

export class Verifier {
  readonly exec: InProcessExec;
  readonly rpc: EngineRpcBridge;
  readonly engine: EngineClient;
  readonly driver: Driver;
  readonly l1: L1Source;

  constructor(rollup: Rollup, log: Logger, driver?: DriverOptions, exec?: InProcessExec, safeDb?: SafeDb) {
    this.exec = exec ?? InProcessExec.create(rollup.l2Genesis);
    this.rpc = new EngineRpcBridge(this.exec.rpc);
    this.engine = new EngineClient(this.rpc, rollup.cfg);
    this.l1 = new L1Source(
      rollup.l1Client(rollup.opts.trustRpc ?? false, rollup.opts.verifierL1),
      rollup.opts.verifierL1Confs ?? 0,
      () => rollup.miner.headRef(),
    );
    this.driver = new Driver(
      rollup.cfg,
      {
        l1: this.l1,
        l2: this.engine,
        engine: this.engine,
        blobs: rollup.opts.blobs ?? null,
        altDa: rollup.opts.altDa ?? null,
        l1Chain: null,
        log,
        safeDb: safeDb ?? null,
      },
      driver ?? rollup.opts.driver ?? {},
    );
  }

  /** Derive everything L1 has now. */
  async sync(): Promise<void> {
    const r = await this.driver.stepUntilIdle();
    if (r.kind === "critical" || r.kind === "temporary") throw r.error;
  }

  get heads() {
    return this.driver.controller.state;
  }
}

/** The sequencer actor: builds unsafe blocks on its own engine. */
export class Sequencer {
  readonly exec: InProcessExec;
  readonly rpc: EngineRpcBridge;
  readonly engine: EngineClient;
  readonly controller: EngineController;
  readonly l1: L1Source;
  /** Every payload built, in order (what gossip would carry). */
  readonly envelopes: PayloadEnvelope[] = [];
  private initialized = false;

  constructor(private readonly rollup: Rollup) {
    this.exec = InProcessExec.create(rollup.l2Genesis, { txPool: rollup.opts.sequencerTxPool === true });
    this.rpc = new EngineRpcBridge(this.exec.rpc);
    this.engine = new EngineClient(this.rpc, rollup.cfg);
    this.controller = new EngineController(rollup.cfg, this.engine);
    this.l1 = new L1Source(rollup.l1Client(true), 0, () => null);
  }

  get unsafe(): L2BlockRef {
    return this.controller.state.unsafe;
  }

  /**
   * Builds the next L2 block with `txs` (signed L2 txs). The L1 origin moves to the next L1 block
   * when it exists and is not newer than the block, unless `keepOrigin`.
   */
  async buildBlock(txs: readonly Uint8Array[] = [], opts: { keepOrigin?: boolean } = {}): Promise<L2BlockRef> {
    if (!this.initialized) {
      await this.controller.forkchoice();
      this.initialized = true;
    }
    const parent = this.unsafe;
    const cfg = this.rollup.cfg;
    let origin = parent.l1origin;
    const next = await this.l1.l1BlockRefByNumber(origin.number + 1);
    if (opts.keepOrigin !== true && next !== null && next.timestamp <= parent.timestamp + cfg.blockTime) {
      origin = { hash: next.hash, number: next.number };
    }
    const deps: AttributesDeps = { l1: this.l1, l2: this.engine, l1Chain: null };
    const attrs = await preparePayloadAttributes(cfg, deps, parent, origin);
    const { ref, envelope } = await this.controller.buildUnsafe({
      ...attrs,
      transactions: [...attrs.transactions, ...txs],
      noTxPool: true,
    });
    this.envelopes.push(envelope);
    return ref;
  }

  /** Builds blocks until the unsafe head's L1 origin is the L1 head (or `max` blocks). */
  async catchUpToL1(max = 1000): Promise<void> {
    const head = this.rollup.miner.headRef().number;
    for (let i = 0; i < max && this.unsafe.l1origin.number < head; i++) await this.buildBlock();
  }
}

export interface BatchOptions {
  readonly span?: boolean;
  readonly algo?: CompressionAlgo;
  /** Bytes of channel data per frame (default: everything in one frame). */
  readonly maxFrameData?: number;
  /** Frames per L1 transaction (default all in one). */
  readonly framesPerTx?: number;
  /** Batch up to this L2 block (default the unsafe head). */
  readonly upTo?: number;
  /** Rewrite the singular batches before encoding (tests of invalid batches). */
  readonly mutate?: (batches: SingularBatch[]) => SingularBatch[];
}

/** The batcher actor: unsafe blocks → batches → one channel → frames → L1 batcher transactions. */
export class Batcher {
  /** The last L2 block submitted. */
  submitted = 0;

  constructor(private readonly rollup: Rollup) {}

  async singularBatches(from: number, to: number): Promise<{ batches: SingularBatch[]; firstSeq: number }> {
    const engine = this.rollup.sequencer.engine;
    const batches: SingularBatch[] = [];
    let firstSeq = 0;
    for (let n = from; n <= to; n++) {
      const ref = await engine.l2BlockRefByNumber(n);
      if (n === from) firstSeq = ref.sequenceNumber;
      const txs = (await engine.transactionsByNumber(n)).filter((t) => t[0] !== 0x7e);
      batches.push({
        parentHash: ref.parentHash,
        epochNum: ref.l1origin.number,
        epochHash: ref.l1origin.hash,
        timestamp: ref.timestamp,
        transactions: txs,
      });
    }
    return { batches, firstSeq };
  }

  /** The channel of the next unsubmitted blocks, as frames. */
  async channelFrames(opts: BatchOptions = {}): Promise<Frame[]> {
    const to = opts.upTo ?? this.rollup.sequencer.unsafe.number;
    const from = this.submitted + 1;
    if (to < from) return [];
    const got = await this.singularBatches(from, to);
    const batches = opts.mutate === undefined ? got.batches : opts.mutate(got.batches);
    const cfg = this.rollup.cfg;
    const strings =
      opts.span === true
        ? [
            encodeSpanBatch(
              spanBatchFromSingulars(batches, {
                genesisL2Time: cfg.genesis.l2Time,
                l2ChainId: cfg.l2ChainId,
                firstSeqNum: got.firstSeq,
              }),
            ),
          ]
        : batches.map(encodeSingularBatch);
    const data = compressChannel(strings, opts.algo ?? "zlib");
    const id = new Uint8Array(randomBytes(16));
    const size = opts.maxFrameData ?? data.length;
    const frames: Frame[] = [];
    for (let off = 0, i = 0; off < data.length || i === 0; off += size, i++) {
      const chunk = data.subarray(off, off + size);
      frames.push({ channelId: id, frameNumber: i, data: chunk, isLast: off + size >= data.length });
    }
    this.submitted = to;
    return frames;
  }

  /** Signed L1 batcher transactions carrying `frames` (calldata). */
  txsFor(frames: readonly Frame[], framesPerTx = frames.length): Uint8Array[] {
    const out: Uint8Array[] = [];
    const miner = this.rollup.miner;
    for (let i = 0; i < frames.length; i += Math.max(1, framesPerTx)) {
      const data = encodeFramesTxData(frames.slice(i, i + Math.max(1, framesPerTx)));
      out.push(miner.tx(this.rollup.batcherAccount, BATCH_INBOX, data, 21_000n + 16n * BigInt(data.length) + 100_000n));
    }
    return out;
  }

  /** Batches every unsubmitted block into L1 transactions. */
  async batchTxs(opts: BatchOptions = {}): Promise<Uint8Array[]> {
    const frames = await this.channelFrames(opts);
    return frames.length === 0 ? [] : this.txsFor(frames, opts.framesPerTx);
  }
}

/**
 * A signed EIP-1559 L2 transfer (21,000 gas, 10 gwei max fee) from a dev account funded on L2 —
 * by default the first — to `to` (default 0x4242…42), of `value` (default 1000 + nonce wei).
 */
export function l2Transfer(
  nonce: bigint,
  opts: { readonly value?: bigint; readonly key?: Uint8Array; readonly to?: Uint8Array } = {},
): Uint8Array {
  const tx: FeeMarketTx = {
    type: TxType.FeeMarket,
    chainId: L2_CHAIN_ID,
    nonce,
    maxPriorityFeePerGas: 1_000_000n,
    maxFeePerGas: 10_000_000_000n,
    gasLimit: 21_000n,
    to: opts.to ?? new Uint8Array(20).fill(0x42),
    value: opts.value ?? 1000n + nonce,
    data: new Uint8Array(0),
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
  };
  return encodeTx(signTx(tx, opts.key ?? devAccounts()[0]!.privateKey));
}

/** A Rollup whose L1 answers JSON-RPC (the eth namespace) over HTTP on loopback; `l1.close()` ends it. */
export async function servedRollup(): Promise<{ r: Rollup; l1: RpcHttpServer; url: string }> {
  const r = new Rollup();
  const l1 = new RpcHttpServer({ addr: "127.0.0.1", port: 0, apis: ["eth"] }, { registry: r.miner.exec.registry });
  return { r, l1, url: `http://127.0.0.1:${(await l1.listen()).port}` };
}
