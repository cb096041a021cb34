/**
 * The soak of `npm run reliability` (issue 10, point 4): the devnet (node/devnet.ts: dev L1,
 * sequencer opal-exec + opal-node, verifier opal-exec + opal-node, batcher, each its own process) on
 * a fresh temporary data folder with its metrics endpoints on, under a steady, bounded load from
 * this process over loopback for `seconds`:
 *
 * - signed L2 transfers from funded dev accounts at a fixed rate, nonces tracked here;
 * - calls of a counter contract assembled below (deployed first): txs that increment it and log the
 *   new value, at a fixed rate;
 * - RPC reads at a fixed rate and concurrency, spread over both execution clients and both rollup
 *   nodes (eth_blockNumber, eth_getBalance, eth_getBlockByNumber, eth_call, eth_getLogs over the
 *   last blocks and over the whole chain, debug_traceBlockByNumber with the callTracer and with
 *   struct logs, optimism_syncStatus).
 *
 * Every tx's receipt is looked for in the sequencer's blocks (eth_getBlockReceipts) and must have
 * status 1; at the end the counter must equal the number of increments and the contract's logs must
 * number as many. Meanwhile the RSS of every devnet process is sampled from /proc/<pid>/status and
 * each node process's event-loop delay is read from its metrics endpoint
 * (`nodejs_eventloop_lag_p99_seconds` and `_max_seconds`: prom-client's monitorEventLoopDelay
 * histogram, which each scrape reads and resets). It is scraped once when the load starts and once
 * when it stops, so the second scrape is the p99 and max of the whole loaded run.
 *
 * RSS growth of a process = mean RSS over the last tenth of the run / mean RSS over the tenth after
 * the warm-up (the first fifth of the run) − 1: for the 10-minute soak, the last minute against the
 * third minute.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { keccak256 } from "../../src/crypto/keccak.js";
import { Devnet, type DevnetProcess } from "../../src/node/devnet/devnet.js";
import { DEVNET_L2_CHAIN_ID } from "../../src/node/devnet/devnetConfig.js";
import { devAccounts } from "../../src/node/exec/devGenesis.js";
import { bytesToHex } from "../../src/primitives/hex.js";
import { encodeTx } from "../../src/tx/envelope.js";
import { signTx } from "../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../src/tx/tx.js";

export interface SoakOptions {
  /** Length of the loaded run, seconds (the devnet's start-up and the final drain come on top). */
  readonly seconds: number;
  /** Transfers per second. */
  readonly txRate: number;
  /** Counter-increment txs per second. */
  readonly callRate: number;
  /** RPC reads per second, over all readers. */
  readonly readRate: number;
  /** Readers running at once. */
  readonly readConcurrency: number;
  /** Added to the devnet's ports (so a soak can run beside another devnet). */
  readonly portOffset: number;
  /** L2 block time, seconds. */
  readonly blockTime: number;
  /** How long to wait for the receipts still missing after the load stops, seconds. */
  readonly drainSeconds: number;
  /** Progress lines. */
  readonly print: (line: string) => void;
}

export const SOAK_DEFAULTS: Omit<SoakOptions, "print"> = {
  seconds: 600,
  txRate: 20,
  callRate: 2,
  readRate: 40,
  readConcurrency: 4,
  portOffset: 200,
  blockTime: 2,
  drainSeconds: 30,
};

/** Memory gauges of prom-client's default metrics, bytes. */
export interface MemoryGauges {
  readonly heapCommitted: number;
  readonly newSpace: number;
  readonly external: number;
}

const NO_GAUGES: MemoryGauges = { heapCommitted: Number.NaN, newSpace: Number.NaN, external: Number.NaN };

/** What one devnet process did over the run. */
export interface ProcessFigures {
  readonly name: string;
  readonly pid: number;
  /** RSS (kB) samples: ms since the load started, VmRSS, RssAnon. */
  readonly rss: { t: number; rssKb: number; anonKb: number }[];
  /** Event-loop delay p99 and max over the loaded run, seconds (null without metrics). */
  lag: { p99: number; max: number } | null;
  /** V8 heap used when the load started and when it stopped, bytes (NaN without metrics). */
  heapStart: number;
  heapEnd: number;
  /**
   * The same two scrapes' other memory gauges, bytes (NaN without metrics): the main isolate's heap
   * as committed (used plus free pages it keeps), its new space alone (V8 grows the young
   * generation with the allocation rate), and memory held by ArrayBuffers and other external
   * allocations. They tell heap growth from V8 sizing and from native memory when RSS rises.
   */
  memStart: MemoryGauges;
  memEnd: MemoryGauges;
  /** Whether the process serves metrics (the batcher does not). */
  readonly hasMetrics: boolean;
  exited: boolean;
}

export interface LoadFigures {
  transfersSent: number;
  callsSent: number;
  /** Receipts found with status 1 (transfers and calls, the deployment not counted). */
  receiptsOk: number;
  /** Seconds from send to the block that included it, every tx with a receipt. */
  inclusionMs: number[];
  reads: number;
  readsByMethod: Record<string, number>;
  /** The slowest answer of each read, ms (which read holds the readers up). */
  readMaxMsByMethod: Record<string, number>;
  /** Txs not sent because `maxInFlightSends` sends were already waiting for their answers. */
  sendsSkipped: number;
  /** Times a reader fell more than one period behind its schedule (its answers came too slowly). */
  readsLate: number;
}

export interface SafeHeads {
  readonly seqSafe: number;
  readonly verSafe: number;
  readonly seqUnsafe: number;
  /** The sequencer's unsafe head timestamp minus its safe head timestamp, seconds. */
  readonly seqSafeLagSeconds: number;
}

export interface SoakReport {
  readonly options: Omit<SoakOptions, "print">;
  readonly processes: ProcessFigures[];
  readonly load: LoadFigures;
  readonly safeStart: SafeHeads;
  readonly safeEnd: SafeHeads;
  /** Every error: JSON-RPC errors, failed or missing receipts, wrong results, process exits. */
  readonly errors: string[];
  /** The counter's value and its log count at the end, and the increments that succeeded. */
  readonly counter: { value: number; logs: number; increments: number };
  /** Wall time of the loaded run, ms. */
  readonly loadMs: number;
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC over loopback

export class RpcCallError extends Error {
  constructor(
    readonly method: string,
    readonly code: number | null,
    message: string,
  ) {
    super(`${method}: ${message}`);
    this.name = "RpcCallError";
  }
}

async function rpc(url: string, method: string, params: unknown[] = [], timeoutMs = 10_000): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (e) {
    throw new RpcCallError(method, null, `transport: ${(e as Error).message}`);
  }
  const text = await res.text();
  let j: { result?: unknown; error?: { code: number; message: string } };
  try {
    j = JSON.parse(text) as typeof j;
  } catch {
    throw new RpcCallError(method, null, `HTTP ${res.status}, not JSON: ${text.slice(0, 80)}`);
  }
  if (j.error !== undefined) throw new RpcCallError(method, j.error.code, j.error.message);
  if (!("result" in j)) throw new RpcCallError(method, null, "no result");
  return j.result;
}

const hexNum = (v: unknown): number => {
  if (typeof v !== "string" || !/^0x[0-9a-f]+$/i.test(v)) throw new TypeError(`not a quantity: ${String(v)}`);
  return Number(BigInt(v));
};
const qty = (n: number | bigint): string => `0x${n.toString(16)}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ---------------------------------------------------------------------------------------------
// The counter contract, assembled here

const OP: Record<string, number> = {
  ADD: 0x01,
  MSTORE: 0x52,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMPI: 0x57,
  JUMPDEST: 0x5b,
  PUSH1: 0x60,
  PUSH32: 0x7f,
  DUP1: 0x80,
  LOG1: 0xa1,
  CALLDATASIZE: 0x36,
  CODECOPY: 0x39,
  RETURN: 0xf3,
};

/**
 * A tiny assembler: opcode names, numbers and byte arrays (immediates after PUSHn), and labels
 * (`@name` marks a JUMPDEST position, `:name` pushes its offset as a PUSH1).
 */
export function assemble(items: readonly (string | number | Uint8Array)[]): Uint8Array {
  const labels = new Map<string, number>();
  const layout = (): number[] => {
    const out: number[] = [];
    for (const it of items) {
      if (typeof it === "number") out.push(it);
      else if (it instanceof Uint8Array) out.push(...it);
      else if (it.startsWith("@")) {
        labels.set(it.slice(1), out.length);
        out.push(OP.JUMPDEST!);
      } else if (it.startsWith(":")) out.push(OP.PUSH1!, labels.get(it.slice(1)) ?? 0);
      else {
        const op = OP[it];
        if (op === undefined) throw new RangeError(`unknown opcode ${it}`);
        out.push(op);
      }
    }
    return out;
  };
  layout(); // first pass places the labels
  return Uint8Array.from(layout());
}

/** The topic of the counter's log: keccak256("Counted(uint256)"). */
export const COUNTED_TOPIC = keccak256(new TextEncoder().encode("Counted(uint256)"));

/**
 * The counter's runtime code: with no calldata it returns slot 0; with any calldata it adds one to
 * slot 0, logs the new value under COUNTED_TOPIC and returns it.
 */
export function counterRuntime(): Uint8Array {
  return assemble([
    "CALLDATASIZE",
    ":inc",
    "JUMPI",
    ...["PUSH1", 0, "SLOAD", "PUSH1", 0, "MSTORE", "PUSH1", 32, "PUSH1", 0, "RETURN"],
    "@inc",
    ...["PUSH1", 0, "SLOAD", "PUSH1", 1, "ADD", "DUP1", "PUSH1", 0, "SSTORE"],
    ...["PUSH1", 0, "MSTORE"],
    ...["PUSH32", COUNTED_TOPIC, "PUSH1", 32, "PUSH1", 0, "LOG1"],
    ...["PUSH1", 32, "PUSH1", 0, "RETURN"],
  ]);
}

/** Init code that returns `runtime` (CODECOPY of the bytes that follow it). */
export function deployCode(runtime: Uint8Array): Uint8Array {
  // PUSH1 len, DUP1, PUSH1 off, PUSH1 0, CODECOPY, PUSH1 0, RETURN: 11 bytes, so the runtime is at 11.
  const head = assemble(["PUSH1", runtime.length, "DUP1", "PUSH1", 11, "PUSH1", 0, "CODECOPY", "PUSH1", 0, "RETURN"]);
  if (head.length !== 11 || runtime.length > 255) throw new RangeError("init code layout");
  const out = new Uint8Array(head.length + runtime.length);
  out.set(head);
  out.set(runtime, head.length);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sampling

/** VmRSS and RssAnon of a process, kB; null when it is gone. */
export function readRss(pid: number): { rssKb: number; anonKb: number } | null {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, "utf8");
  } catch {
    return null;
  }
  const field = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rssKb: field("VmRSS"), anonKb: field("RssAnon") };
}

/** One gauge's value from a Prometheus text exposition (the first series of that name). */
export function promValue(text: string, name: string): number | null {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([^\\s]+)`, "m").exec(text);
  if (m === null) return null;
  const v = Number(m[1]);
  return Number.isFinite(v) ? v : null;
}

function mean(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : xs.reduce((a, b) => a + b, 0) / xs.length;
}

export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** The windows of the growth figure for a run of `loadMs`: after warm-up, and the last tenth. */
export function growthWindows(loadMs: number): { base: [number, number]; end: [number, number] } {
  return { base: [0.2 * loadMs, 0.3 * loadMs], end: [0.9 * loadMs, loadMs] };
}

/** RSS growth of one process: mean of the end window over mean of the base window, minus one. */
export function rssGrowth(
  samples: ProcessFigures["rss"],
  loadMs: number,
): { base: number; end: number; growth: number; trend: number } {
  const w = growthWindows(loadMs);
  const inW = (x: [number, number]) => samples.filter((s) => s.t >= x[0] && s.t <= x[1]).map((s) => s.rssKb);
  const base = mean(inW(w.base));
  const end = mean(inW(w.end));
  return { base, end, growth: end / base - 1, trend: rssTrend(samples, w.base[0], loadMs) / base };
}

/**
 * The least-squares line through the RSS samples from `from` to `to` ms: its rise over that span,
 * kB (NaN with fewer than two samples). Unlike the two windows it is not swayed by where in its
 * GC cycle a window caught V8's heap, so it tells a trend from the heap breathing.
 */
export function rssTrend(samples: ProcessFigures["rss"], from: number, to: number): number {
  const xs = samples.filter((s) => s.t >= from && s.t <= to);
  if (xs.length < 2) return Number.NaN;
  const mt = mean(xs.map((s) => s.t));
  const mr = mean(xs.map((s) => s.rssKb));
  let num = 0;
  let den = 0;
  for (const s of xs) {
    num += (s.t - mt) * (s.rssKb - mr);
    den += (s.t - mt) ** 2;
  }
  return den === 0 ? 0 : (num / den) * (to - from);
}

// ---------------------------------------------------------------------------------------------
// The run

interface Sender {
  readonly key: Uint8Array;
  readonly address: string;
  nonce: bigint;
  dead: boolean;
}

interface Pending {
  readonly kind: "transfer" | "call" | "deploy";
  readonly sentAt: number;
}

/** Runs the soak: starts a devnet, loads it, measures, stops it and deletes its folder. */
export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const dir = mkdtempSync(join(tmpdir(), "opal-soak-"));
  const errors: string[] = [];
  const error = (m: string): void => {
    errors.push(m);
    if (errors.length <= 20) o.print(`  error: ${m}`);
  };
  let net: Devnet | null = null;
  try {
    net = await Devnet.start({
      datadir: dir,
      fresh: true,
      blockTime: o.blockTime,
      l1BlockTime: 2,
      da: "blobs",
      upTo: "jovian",
      portOffset: o.portOffset,
      metrics: true,
      print: (l) => {
        o.print(`  devnet: ${l}`);
        if (/ exited /.test(l)) error(l);
      },
    });
    return await loadAndMeasure(net, o, errors, error);
  } finally {
    if (net !== null) await net.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Both safe heads, the sequencer's and the verifier's, went past where they were at the load's start. */
function safeHeadsMoved(start: SafeHeads, end: SafeHeads): boolean {
  return end.seqSafe > start.seqSafe && end.verSafe > start.verSafe;
}

async function loadAndMeasure(
  net: Devnet,
  o: SoakOptions,
  errors: string[],
  error: (m: string) => void,
): Promise<SoakReport> {
  const P = net.ports;
  const url = (port: number): string => `http://127.0.0.1:${port}`;
  const seqEl = url(P.seqElHttp);
  const verEl = url(P.verElHttp);
  const seqNode = url(P.seqNode);
  const verNode = url(P.verNode);
  const metricsPort: Record<string, number> = {
    l1: P.l1Metrics,
    "sequencer-el": P.seqElMetrics,
    "verifier-el": P.verElMetrics,
    "sequencer-node": P.seqNodeMetrics,
    "verifier-node": P.verNodeMetrics,
  };

  // Wait until the sequencer seals L2 blocks and the verifier's execution client answers.
  const readyBy = Date.now() + 120_000;
  for (;;) {
    try {
      if (hexNum(await rpc(seqEl, "eth_blockNumber", [], 2000)) >= 2) break;
    } catch {
      // not yet
    }
    if (Date.now() > readyBy) throw new Error("the sequencer sealed no L2 block within 120 s");
    await sleep(250);
  }
  o.print("  L2 blocks are being sealed; deploying the counter");

  const accounts = devAccounts();
  const chainId = DEVNET_L2_CHAIN_ID;
  const senderOf = (i: number): Sender => ({
    key: accounts[i]!.privateKey,
    address: bytesToHex(accounts[i]!.address),
    nonce: 0n,
    dead: false,
  });
  // Accounts 0-2 have devnet roles (owner, batcher, unsafe-block signer); the load uses 3-9.
  const transferSenders = [3, 4, 5, 6, 7, 8].map(senderOf);
  const caller = senderOf(9);
  for (const s of [...transferSenders, caller])
    s.nonce = BigInt(hexNum(await rpc(seqEl, "eth_getTransactionCount", [s.address, "pending"])));
  const baseFee = BigInt(
    hexNum(((await rpc(seqEl, "eth_getBlockByNumber", ["latest", false])) as { baseFeePerGas: string }).baseFeePerGas),
  );
  const tip = 1_000_000n;
  const maxFee = (baseFee > 1_000_000_000n ? 2n * baseFee : 2_000_000_000n) + tip;
  const recipients = Array.from({ length: 16 }, (_, i) => keccak256(Uint8Array.of(0x50, i)).subarray(12));

  const signRaw = (s: Sender, to: Uint8Array | null, data: Uint8Array, gasLimit: bigint, value: bigint): string => {
    const tx: FeeMarketTx = {
      type: TxType.FeeMarket,
      chainId,
      nonce: s.nonce,
      maxPriorityFeePerGas: tip,
      maxFeePerGas: maxFee,
      gasLimit,
      to,
      value,
      data,
      accessList: [],
      yParity: 0,
      r: 0n,
      s: 0n,
    };
    return bytesToHex(encodeTx(signTx(tx, s.key)));
  };

  const pending = new Map<string, Pending>();
  const load: LoadFigures = {
    transfersSent: 0,
    callsSent: 0,
    receiptsOk: 0,
    inclusionMs: [],
    reads: 0,
    readsByMethod: {},
    readMaxMsByMethod: {},
    sendsSkipped: 0,
    readsLate: 0,
  };
  let increments = 0;

  // Deploy the counter and wait for its receipt.
  const runtime = counterRuntime();
  const deployHash = (await rpc(seqEl, "eth_sendRawTransaction", [
    signRaw(caller, null, deployCode(runtime), 200_000n, 0n),
  ])) as string;
  caller.nonce++;
  let counter = "";
  let deployBlock = 0;
  const deployBy = Date.now() + 60_000;
  while (counter === "") {
    const r = (await rpc(seqEl, "eth_getTransactionReceipt", [deployHash])) as {
      status: string;
      contractAddress: string;
      blockNumber: string;
    } | null;
    if (r !== null) {
      if (r.status !== "0x1") throw new Error("the counter's deployment failed");
      counter = r.contractAddress;
      deployBlock = hexNum(r.blockNumber);
    } else if (Date.now() > deployBy) throw new Error("the counter's deployment got no receipt within 60 s");
    else await sleep(250);
  }
  const code = (await rpc(seqEl, "eth_getCode", [counter, "latest"])) as string;
  if (code !== bytesToHex(runtime)) throw new Error(`the counter's code is ${code}, want ${bytesToHex(runtime)}`);
  o.print(`  counter at ${counter} (block ${deployBlock}); load for ${o.seconds} s`);

  // Processes, metrics endpoints.
  const procs: ProcessFigures[] = net.processes().map((p: DevnetProcess) => ({
    name: p.name,
    pid: p.pid ?? -1,
    rss: [],
    lag: null,
    heapStart: Number.NaN,
    heapEnd: Number.NaN,
    memStart: NO_GAUGES,
    memEnd: NO_GAUGES,
    hasMetrics: p.name in metricsPort,
    exited: p.exited,
  }));

  const headsNow = async (): Promise<SafeHeads> => {
    type S = Record<string, { number: number; timestamp: number }>;
    const [s, v] = (await Promise.all([rpc(seqNode, "optimism_syncStatus"), rpc(verNode, "optimism_syncStatus")])) as [
      S,
      S,
    ];
    return {
      seqSafe: s.safe_l2!.number,
      verSafe: v.safe_l2!.number,
      seqUnsafe: s.unsafe_l2!.number,
      seqSafeLagSeconds: s.unsafe_l2!.timestamp - s.safe_l2!.timestamp,
    };
  };

  const scrape = async (p: ProcessFigures, end: boolean): Promise<void> => {
    let text: string;
    try {
      const res = await fetch(`${url(metricsPort[p.name]!)}/metrics`, { signal: AbortSignal.timeout(10_000) });
      text = await res.text();
    } catch (e) {
      error(`${p.name} metrics: ${(e as Error).message}`);
      return;
    }
    const p99 = promValue(text, "nodejs_eventloop_lag_p99_seconds");
    const max = promValue(text, "nodejs_eventloop_lag_max_seconds");
    const heapUsed = promValue(text, "nodejs_heap_size_used_bytes");
    if (p99 === null || max === null) {
      error(`${p.name} metrics: no nodejs_eventloop_lag_p99_seconds / _max_seconds`);
      return;
    }
    const mem: MemoryGauges = {
      heapCommitted: promValue(text, "nodejs_heap_size_total_bytes") ?? Number.NaN,
      newSpace: promValue(text, 'nodejs_heap_space_size_total_bytes\\{space="new"\\}') ?? Number.NaN,
      external: promValue(text, "nodejs_external_memory_bytes") ?? Number.NaN,
    };
    if (end) {
      p.lag = { p99, max };
      p.heapEnd = heapUsed ?? Number.NaN;
      p.memEnd = mem;
    } else {
      p.heapStart = heapUsed ?? Number.NaN;
      p.memStart = mem;
    }
  };

  // Reset the event-loop histograms: the window read at the end starts with the load.
  await Promise.all(procs.filter((p) => p.hasMetrics).map((p) => scrape(p, false)));
  const safeStart = await headsNow();

  const t0 = Date.now();
  const loadMs = o.seconds * 1000;
  const until = t0 + loadMs;
  let head = deployBlock;
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, f: () => void): void => {
    timers.push(setInterval(f, ms));
  };

  // RSS samples: about 40 per growth window, at most one per 2 s.
  const sampleMs = Math.min(2000, Math.max(250, loadMs / 400));
  const sampleRss = (): void => {
    const t = Date.now() - t0;
    for (const p of procs) {
      if (p.exited) continue;
      const r = readRss(p.pid);
      if (r === null) {
        p.exited = true;
        error(`${p.name} (pid ${p.pid}) is gone`);
      } else p.rss.push({ t, ...r });
    }
  };
  sampleRss();
  every(sampleMs, sampleRss);

  // Txs: transfers round-robin over their senders, calls from their own sender, each at a fixed rate.
  const sends = new Set<Promise<void>>();
  const maxInFlightSends = 32;
  const send = (s: Sender, kind: "transfer" | "call", raw: string): void => {
    if (sends.size >= maxInFlightSends) {
      load.sendsSkipped++;
      return;
    }
    s.nonce++;
    if (kind === "transfer") load.transfersSent++;
    else load.callsSent++;
    const sentAt = Date.now();
    const p = rpc(seqEl, "eth_sendRawTransaction", [raw])
      .then((h) => {
        if (typeof h !== "string") throw new TypeError(`eth_sendRawTransaction returned ${String(h)}`);
        pending.set(h.toLowerCase(), { kind, sentAt });
      })
      .catch((e: Error) => {
        // Later nonces of this sender can no longer be included: it stops sending.
        s.dead = true;
        error(`${kind} from ${s.address}: ${e.message}`);
      })
      .finally(() => sends.delete(p));
    sends.add(p);
  };
  let transferN = 0;
  const transferTick = (): void => {
    const s = transferSenders[transferN % transferSenders.length]!;
    const to = recipients[transferN % recipients.length]!;
    transferN++;
    if (s.dead) return;
    send(s, "transfer", signRaw(s, to, new Uint8Array(0), 21_000n, 1n + BigInt(transferN % 1000)));
  };
  const counterBytes = Uint8Array.from(Buffer.from(counter.slice(2), "hex"));
  const callTick = (): void => {
    if (caller.dead) return;
    send(caller, "call", signRaw(caller, counterBytes, Uint8Array.of(1), 100_000n, 0n));
  };
  if (o.txRate > 0) every(1000 / o.txRate, transferTick);
  if (o.callRate > 0) every(1000 / o.callRate, callTick);

  // Receipts: every block the sequencer seals, its receipts matched against the pending txs.
  let receiptsBusy = false;
  const pollReceipts = async (): Promise<void> => {
    const latest = hexNum(await rpc(seqEl, "eth_blockNumber"));
    while (head < latest) {
      const n = head + 1;
      const rs = (await rpc(seqEl, "eth_getBlockReceipts", [qty(n)])) as
        | { transactionHash: string; status: string; to: string | null }[]
        | null;
      if (rs === null) throw new Error(`eth_getBlockReceipts(${n}) is null below the head ${latest}`);
      const at = Date.now();
      for (const r of rs) {
        const h = r.transactionHash.toLowerCase();
        const p = pending.get(h);
        if (p === undefined) continue;
        pending.delete(h);
        load.inclusionMs.push(at - p.sentAt);
        if (r.status !== "0x1") error(`${p.kind} ${h} in block ${n} has status ${r.status}`);
        else {
          load.receiptsOk++;
          if (p.kind === "call") increments++;
        }
      }
      head = n;
    }
  };
  every(1000, () => {
    if (receiptsBusy) return;
    receiptsBusy = true;
    pollReceipts()
      .catch((e: Error) => error(`receipts: ${e.message}`))
      .finally(() => {
        receiptsBusy = false;
      });
  });

  // Reads: `readConcurrency` readers, each paced to its share of `readRate`.
  const balanceOf = transferSenders[0]!.address;
  const reads: { name: string; run: () => Promise<void> }[] = [
    {
      name: "eth_blockNumber",
      run: async () => void hexNum(await rpc(seqEl, "eth_blockNumber")),
    },
    {
      name: "eth_getBalance",
      run: async () => void hexNum(await rpc(seqEl, "eth_getBalance", [balanceOf, "latest"])),
    },
    {
      name: "eth_getBlockByNumber",
      run: async () => {
        const b = (await rpc(verEl, "eth_getBlockByNumber", ["latest", false])) as { hash?: string } | null;
        if (b === null || typeof b.hash !== "string") throw new TypeError("eth_getBlockByNumber(latest) has no block");
      },
    },
    {
      name: "eth_call",
      run: async () => {
        const v = (await rpc(seqEl, "eth_call", [{ to: counter, data: "0x" }, "latest"])) as string;
        if (typeof v !== "string" || v.length !== 66) throw new TypeError(`eth_call returned ${String(v)}`);
      },
    },
    {
      name: "eth_getLogs",
      run: async () => {
        const to = head;
        const from = Math.max(deployBlock, to - 10);
        const logs = await rpc(seqEl, "eth_getLogs", [{ fromBlock: qty(from), toBlock: qty(to), address: counter }]);
        if (!Array.isArray(logs)) throw new TypeError("eth_getLogs returned no array");
      },
    },
    {
      // Every log of the chain (no address): a request whose cost grows with the chain.
      name: "eth_getLogs (whole chain)",
      run: async () => {
        const logs = await rpc(verEl, "eth_getLogs", [{ fromBlock: "earliest", toBlock: "latest" }]);
        if (!Array.isArray(logs)) throw new TypeError("eth_getLogs returned no array");
      },
    },
    {
      name: "debug_traceBlockByNumber (callTracer)",
      run: async () => {
        const r = await rpc(seqEl, "debug_traceBlockByNumber", [qty(Math.max(1, head)), { tracer: "callTracer" }]);
        if (!Array.isArray(r)) throw new TypeError("debug_traceBlockByNumber returned no array");
      },
    },
    {
      name: "debug_traceBlockByNumber (struct logs)",
      run: async () => {
        const r = await rpc(seqEl, "debug_traceBlockByNumber", [qty(Math.max(1, head - 1)), { disableStorage: true }]);
        if (!Array.isArray(r)) throw new TypeError("debug_traceBlockByNumber returned no array");
      },
    },
    {
      name: "optimism_syncStatus",
      run: async () => {
        const [s, v] = (await Promise.all([
          rpc(seqNode, "optimism_syncStatus"),
          rpc(verNode, "optimism_syncStatus"),
        ])) as {
          unsafe_l2?: { number: number };
        }[];
        if (typeof s?.unsafe_l2?.number !== "number" || typeof v?.unsafe_l2?.number !== "number")
          throw new TypeError("optimism_syncStatus has no unsafe_l2");
      },
    },
  ];
  const reader = async (i: number): Promise<void> => {
    if (o.readRate <= 0) return;
    const periodMs = (1000 * o.readConcurrency) / o.readRate;
    let next = Date.now() + (i * periodMs) / o.readConcurrency;
    let k = i;
    while (Date.now() < until) {
      const wait = next - Date.now();
      if (wait > 0) await sleep(wait);
      else if (wait < -periodMs) {
        load.readsLate++;
        next = Date.now();
      }
      next += periodMs;
      const r = reads[k++ % reads.length]!;
      try {
        const started = Date.now();
        await r.run();
        load.reads++;
        load.readsByMethod[r.name] = (load.readsByMethod[r.name] ?? 0) + 1;
        load.readMaxMsByMethod[r.name] = Math.max(load.readMaxMsByMethod[r.name] ?? 0, Date.now() - started);
      } catch (e) {
        error(`read ${r.name}: ${(e as Error).message}`);
      }
    }
  };

  let lastPrint = t0;
  every(1000, () => {
    const now = Date.now();
    if (now - lastPrint < Math.min(60_000, Math.max(5000, loadMs / 10))) return;
    lastPrint = now;
    const rss = procs.map((p) => `${p.name} ${Math.round((p.rss.at(-1)?.rssKb ?? 0) / 1024)}`).join(", ");
    o.print(
      `  ${Math.round((now - t0) / 1000)} s: ${load.transfersSent + load.callsSent} txs, ${load.receiptsOk} receipts, ` +
        `${load.reads} reads, ${errors.length} errors, L2 #${head}; RSS MB ${rss}`,
    );
  });

  await Promise.all(Array.from({ length: o.readConcurrency }, (_, i) => reader(i)));
  const wait = until - Date.now();
  if (wait > 0) await sleep(wait);
  const elapsed = Date.now() - t0;
  for (const t of timers) clearInterval(t);
  sampleRss();
  await Promise.all(procs.filter((p) => p.hasMetrics && !p.exited).map((p) => scrape(p, true)));

  // Drain: the sends in flight, then the receipts still missing.
  await Promise.all([...sends]);
  const drainBy = Date.now() + o.drainSeconds * 1000;
  while (pending.size > 0 && Date.now() < drainBy) {
    while (receiptsBusy) await sleep(50);
    try {
      await pollReceipts();
    } catch (e) {
      error(`receipts: ${(e as Error).message}`);
    }
    if (pending.size > 0) await sleep(500);
  }
  for (const [h, p] of pending) error(`${p.kind} ${h} has no receipt ${o.drainSeconds} s after the load stopped`);

  // The counter counted every increment, and logged each.
  const value = hexNum(await rpc(seqEl, "eth_call", [{ to: counter, data: "0x" }, "latest"]));
  const logs = (await rpc(seqEl, "eth_getLogs", [
    { fromBlock: qty(deployBlock), toBlock: qty(head), address: counter, topics: [bytesToHex(COUNTED_TOPIC)] },
  ])) as unknown[];
  if (value !== increments) error(`the counter is ${value}, but ${increments} increments succeeded`);
  if (logs.length !== increments) error(`the counter has ${logs.length} logs, but ${increments} increments succeeded`);

  // The safe heads must move: a liveness check, not a speed one. A short run on a loaded machine can
  // end before the batcher's first channel is derived, so they get the drain's time again to do so.
  let safeEnd = await headsNow();
  const safeBy = Date.now() + o.drainSeconds * 1000;
  while (!safeHeadsMoved(safeStart, safeEnd) && Date.now() < safeBy) {
    await sleep(1000);
    safeEnd = await headsNow();
  }
  for (const p of net.processes()) {
    const f = procs.find((x) => x.name === p.name);
    if (p.exited && f !== undefined && !f.exited) {
      f.exited = true;
      error(`${p.name} exited`);
    }
  }
  return {
    options: {
      seconds: o.seconds,
      txRate: o.txRate,
      callRate: o.callRate,
      readRate: o.readRate,
      readConcurrency: o.readConcurrency,
      portOffset: o.portOffset,
      blockTime: o.blockTime,
      drainSeconds: o.drainSeconds,
    },
    processes: procs,
    load,
    safeStart,
    safeEnd,
    errors,
    counter: { value, logs: logs.length, increments },
    loadMs: elapsed,
  };
}

// ---------------------------------------------------------------------------------------------
// Judging

/** RSS growth bound per process. */
export const RSS_GROWTH_LIMIT = 0.1;
/** The three reads with the slowest answers: "method max ms", slowest first. */
function slowestReads(maxMs: Record<string, number>): string {
  return Object.entries(maxMs)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([m, v]) => `${m} ${v} ms`)
    .join(", ");
}

/** Event-loop delay p99 above which a process is flagged (not failed). */
export const LAG_FLAG_SECONDS = 0.1;
/** Shorter runs cannot show an RSS trend: their growth is reported, not judged. */
export const MIN_TREND_SECONDS = 120;

const mb = (kb: number): string => (Number.isFinite(kb) ? (kb / 1024).toFixed(1) : "-");
const ms = (s: number): string => (Number.isFinite(s) ? (s * 1000).toFixed(1) : "-");
const pct = (x: number): string => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "-");

export interface SoakVerdict {
  readonly rows: Record<string, string | number>[];
  readonly passed: number;
  readonly summary: string;
}

/**
 * The table of a soak: one row per devnet process (RSS at the start and the end, the growth, the
 * event-loop delay p99 and max over the run), a load row and a safe-head row. Columns: row, RSS MB,
 * RSS growth, lag p99 ms, lag max ms, figures, result.
 */
export function judgeSoak(r: SoakReport): SoakVerdict {
  const rows: Record<string, string | number>[] = [];
  let passed = 0;
  const judgeGrowth = r.options.seconds >= MIN_TREND_SECONDS;
  let worstGrowth = Number.NEGATIVE_INFINITY;
  let worstLag = 0;
  for (const p of r.processes) {
    const g = rssGrowth(p.rss, r.loadMs);
    worstGrowth = Math.max(worstGrowth, g.growth);
    if (p.lag !== null) worstLag = Math.max(worstLag, p.lag.p99);
    const problems: string[] = [];
    if (p.exited) problems.push("exited");
    if (p.rss.length === 0) problems.push("no RSS samples");
    if (judgeGrowth && !(g.growth < RSS_GROWTH_LIMIT)) problems.push(`RSS growth ≥ ${pct(RSS_GROWTH_LIMIT)}`);
    if (p.hasMetrics && p.lag === null) problems.push("no event-loop figures");
    const notes: string[] = [];
    if (!judgeGrowth) notes.push(`growth not judged under ${MIN_TREND_SECONDS} s`);
    if (p.lag !== null && p.lag.p99 > LAG_FLAG_SECONDS) notes.push(`lag p99 > ${ms(LAG_FLAG_SECONDS)} ms flagged`);
    if (problems.length === 0) passed++;
    const heap = (b: number): string => (Number.isFinite(b) ? (b / 2 ** 20).toFixed(0) : "-");
    rows.push({
      row: p.name,
      "RSS MB": `${mb(p.rss[0]?.rssKb ?? Number.NaN)} → ${mb(p.rss.at(-1)?.rssKb ?? Number.NaN)}`,
      "RSS growth": pct(g.growth),
      "lag p99 ms": p.lag === null ? "no metrics" : ms(p.lag.p99),
      "lag max ms": p.lag === null ? "-" : ms(p.lag.max),
      figures:
        `windows ${mb(g.base)} → ${mb(g.end)} MB; fitted trend after warm-up ${pct(g.trend)}; ` +
        `anon ${mb(p.rss.at(-1)?.anonKb ?? Number.NaN)} MB` +
        (p.hasMetrics
          ? `; heap ${heap(p.heapStart)} → ${heap(p.heapEnd)} MB` +
            ` (committed ${heap(p.memStart.heapCommitted)} → ${heap(p.memEnd.heapCommitted)},` +
            ` new space ${heap(p.memStart.newSpace)} → ${heap(p.memEnd.newSpace)}),` +
            ` external ${heap(p.memStart.external)} → ${heap(p.memEnd.external)} MB`
          : ""),
      result: [problems.length === 0 ? "ok" : `FAIL ${problems.join(", ")}`, ...notes].join("; "),
    });
  }
  const l = r.load;
  const txs = l.transfersSent + l.callsSent;
  const secs = r.loadMs / 1000;
  const loadOk = r.errors.length === 0 && l.receiptsOk === txs && txs > 0 && l.reads > 0;
  if (loadOk) passed++;
  rows.push({
    row: "load",
    figures:
      `${txs} txs (${l.transfersSent} transfers, ${l.callsSent} calls; ${(txs / secs).toFixed(1)}/s), ` +
      `${l.receiptsOk} receipts ok, inclusion p99 ${(percentile(l.inclusionMs, 99) / 1000).toFixed(1)} s; ` +
      `${l.reads} reads (${(l.reads / secs).toFixed(1)}/s); counter ${r.counter.value}, ${r.counter.logs} logs; ` +
      `${l.sendsSkipped} sends skipped, ${l.readsLate} reads late (slowest: ${slowestReads(l.readMaxMsByMethod)}); ${r.errors.length} errors`,
    result: loadOk
      ? "ok"
      : `FAIL ${r.errors.length} errors${r.errors.length > 0 ? `: ${r.errors[0]!.slice(0, 100)}` : ""}`,
  });
  const safeOk = safeHeadsMoved(r.safeStart, r.safeEnd);
  if (safeOk) passed++;
  rows.push({
    row: "safe head",
    figures:
      `sequencer safe ${r.safeStart.seqSafe} → ${r.safeEnd.seqSafe}, verifier safe ${r.safeStart.verSafe} → ` +
      `${r.safeEnd.verSafe}; at the end unsafe ${r.safeEnd.seqUnsafe}, safe lag ${r.safeEnd.seqSafeLagSeconds} s`,
    result: safeOk ? "ok" : "FAIL the safe head did not advance",
  });
  const summary =
    `${Math.round(secs)} s: ${txs} txs, ${l.reads} reads, ${r.errors.length} errors; ` +
    `worst RSS growth ${pct(worstGrowth)}${judgeGrowth ? "" : " (not judged)"}; worst event-loop p99 ${ms(worstLag)} ms; ` +
    `safe lag at end ${r.safeEnd.seqSafeLagSeconds} s`;
  return { rows, passed, summary };
}
