/**
 * `npm run bench -- scale`: how block import and reads hold as the state grows (issue 25). For each
 * size (`OPAL_BENCH_SCALE_ACCOUNTS`, comma-separated; default 100k, 1M and 10M accounts):
 * 1. a synthetic state is written into a fresh RocksDB datadir with the node's own writers
 *    (scale/scaleState.ts: plain accounts, funded senders, a token with `OPAL_BENCH_SCALE_HOLDERS`
 *    holders, default 1M, at most the account count);
 * 2. a stream of 50 blocks (`OPAL_BENCH_SCALE_BLOCKS`) of mixed transactions is built on a copy of
 *    it by the node's block builder: 200 txs a block, 60% ETH transfers and 40% token transfers from
 *    the senders to plain accounts or holders picked at random (cold reads), one in ten to a new
 *    address;
 * 3. `opal-exec` is started on the datadir (a fresh process, `--cache` from
 *    `OPAL_BENCH_SCALE_CACHE`, default 1024 MB) and imports the stream through the Engine API as a
 *    verifier does (engine_newPayloadV4, then engine_forkchoiceUpdatedV3, JWT over HTTP), while
 *    four clients send it random `eth_getBalance` and `eth_call balanceOf` reads over HTTP (on a
 *    thread of their own, scale/readers.ts, each on a kept-alive connection);
 * 4. the head's state root, reached incrementally, is checked against a full recomputation from the
 *    flat state (buildFreshStateRoot, compute only).
 * `OPAL_BENCH_SCALE_DIR` keeps the datadirs; with `OPAL_BENCH_SCALE_REUSE=1` the written state is
 * reused across runs (writeState).
 * One line per size: `scale <N> accounts: import <X> Mgas/s, root <ms> ms/block, db <GB> GB, rss
 * <MB> MB, reads p99 <ms> ms`, then `scale ratio <largest>/<smallest>: <r>` (import rate). The
 * root time per block comes from the node's `opal_chain_import_root_seconds_total`, the trie reads
 * of the roots on a trieHash worker (all, and those that missed its trie cache) from
 * `opal_chain_import_root_trie_reads_total` / `…_trie_store_reads_total`; rss is the
 * node's largest `process_resident_memory_bytes` sampled during the import.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { Blockchain } from "../src/chain/blockchain.js";
import { equalBytes } from "../src/primitives/bytes.js";
import { bytesToHex } from "../src/primitives/hex.js";
import { openStore } from "../src/storage/engine.js";
import { buildFreshStateRoot } from "../src/trie/freshStateRoot.js";
import { encodeTx } from "../src/tx/envelope.js";
import { signTx } from "../src/tx/signer.js";
import { feeMarketTx } from "../test/unit/tx/builders.js";
import { call } from "../test/utils/jsonRpc.js";
import { makeTmpDir, removeDir } from "../test/utils/tmpDir.js";
import { tsWorker } from "../test/utils/tsWorker.js";
import { type EngineBlock, ExecProcess, engineBlock, metric } from "./execProcess.js";
import { type BenchRow, erc20TransferData } from "./lib.js";
import {
  accountAddress,
  buildScaleState,
  HOLDER_TOKENS,
  rng,
  SCALE_GAS_LIMIT,
  type ScaleSpec,
  senderKey,
  TOKEN,
} from "./scale/scaleState.js";

const SENDERS = 2_000;
const TXS_PER_BLOCK = 200;
const READERS = 4;
const GWEI = 10n ** 9n;

function balanceOfData(holder: Uint8Array): string {
  return `0x70a08231${"0".repeat(24)}${bytesToHex(holder).slice(2)}`;
}

interface Stream {
  readonly blocks: EngineBlock[];
  readonly gas: number;
  readonly headRoot: Uint8Array;
}

/** Builds the block stream on a copy of the datadir (the original stays at its head for the import). */
async function buildStream(datadir: string, spec: ScaleSpec, blocks: number): Promise<Stream> {
  const copy = `${datadir}-build`;
  rmSync(copy, { recursive: true, force: true });
  cpSync(datadir, copy, { recursive: true });
  const opened = await openStore(join(copy, "chaindata"), "rocksdb");
  try {
    const chain = Blockchain.open(opened.kv);
    const chainId = chain.config.chainId;
    const keys = Array.from({ length: SENDERS }, (_, j) => senderKey(j));
    // The state is fresh: every sender starts at nonce 0.
    const nonces = new Array<bigint>(SENDERS).fill(0n);
    const r = rng(0x5ca1e + spec.accounts);
    const out: Stream["blocks"] = [];
    let gas = 0;
    let next = 0;
    for (let b = 0; b < blocks; b++) {
      const txs: Uint8Array[] = [];
      for (let t = 0; t < TXS_PER_BLOCK; t++) {
        const j = next++ % SENDERS;
        const fresh = r() < 0.1;
        const token = r() < 0.4;
        const pick = token ? Math.floor(r() * Math.min(spec.holders, spec.accounts)) : Math.floor(r() * spec.accounts);
        const to = fresh ? accountAddress(spec.accounts + 1_000_000 * (b + 1) + t) : accountAddress(pick);
        const tx = feeMarketTx({
          chainId,
          nonce: nonces[j]!,
          maxPriorityFeePerGas: GWEI,
          maxFeePerGas: 100n * GWEI,
          gasLimit: token ? 80_000n : 21_000n,
          to: token ? TOKEN : to,
          value: token ? 0n : 1_000n,
          data: token ? erc20TransferData(to, HOLDER_TOKENS / 1000n) : new Uint8Array(0),
        });
        nonces[j]!++;
        txs.push(encodeTx(signTx(tx, keys[j]!)));
      }
      const parent = chain.head;
      const built = chain.buildBlock({
        parentHash: chain.headBlockHash,
        timestamp: parent.timestamp + 12,
        feeRecipient: new Uint8Array(20).fill(0xfe),
        prevRandao: new Uint8Array(32).fill(b & 0xff),
        gasLimit: SCALE_GAS_LIMIT,
        extraData: new Uint8Array(0),
        withdrawals: [],
        parentBeaconBlockRoot: new Uint8Array(32).fill(4),
        forced: txs,
        pool: null,
      });
      if ("error" in built) throw new Error(`scale: building block ${b}: ${built.error}`);
      chain.setHead(built.hash);
      gas += built.header.gasUsed;
      out.push(engineBlock(built.header, built.body, built.hash, false));
    }
    return { blocks: out, gas, headRoot: chain.head.stateRoot };
  } finally {
    await opened.close();
    rmSync(copy, { recursive: true, force: true });
  }
}

function dirBytes(p: string): number {
  let n = 0;
  for (const e of readdirSync(p, { withFileTypes: true })) {
    const f = join(p, e.name);
    n += e.isDirectory() ? dirBytes(f) : statSync(f).size;
  }
  return n;
}

interface ImportFigures {
  readonly seconds: number;
  readonly rootMsPerBlock: number;
  /** Trie-table point reads per block of the roots on a worker, and of those the store reads. */
  readonly trieReadsPerBlock: number;
  readonly trieStoreReadsPerBlock: number;
  readonly rssMb: number;
  readonly readsP99Ms: number;
  /** The reads' median and p90, ms (less at the mercy of a run's few longest pauses than p99). */
  readonly readsP50Ms: number;
  readonly readsP90Ms: number;
  readonly reads: number;
}

async function importWithReads(
  datadir: string,
  spec: ScaleSpec,
  stream: Stream,
  cacheMb: number,
): Promise<ImportFigures> {
  const node = await ExecProcess.start(datadir, [`--cache=${cacheMb}`]);
  const http = node.http;
  try {
    const before = await node.metrics();
    let rssMax = metric(before, "process_resident_memory_bytes");
    const sampler = setInterval(() => {
      node
        .metrics()
        .then((t) => {
          rssMax = Math.max(rssMax, metric(t, "process_resident_memory_bytes"));
        })
        .catch(() => undefined);
    }, 250);
    // Warm-up, not counted: the first eth_call starts the node's evmCall worker.
    for (let i = 0; i < 20; i++) {
      await call(http, "eth_getBalance", [bytesToHex(accountAddress(i)), "latest"]);
      await call(http, "eth_call", [{ to: bytesToHex(TOKEN), data: balanceOfData(accountAddress(i)) }, "latest"]);
    }
    const readers = tsWorker(new URL("./scale/readers.ts", import.meta.url), {
      workerData: {
        port: node.httpPort,
        readers: READERS,
        accounts: spec.accounts,
        holders: spec.holders,
        seed: 0xbeef,
      },
    });
    let started: () => void = () => undefined;
    const ready = new Promise<void>((resolve) => {
      started = resolve;
    });
    const done = new Promise<Float64Array>((resolve, reject) => {
      readers.on("message", (m: "ready" | Float64Array | { error: string }) => {
        if (m === "ready") started();
        else if (m instanceof Float64Array) resolve(m);
        else reject(new Error(m.error));
      });
      readers.once("error", reject);
    });
    await Promise.race([ready, done]);
    const t0 = performance.now();
    for (const b of stream.blocks) await node.feed(b);
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(sampler);
    readers.postMessage("stop");
    const latencies = await done.finally(() => readers.terminate());
    const after = await node.metrics();
    rssMax = Math.max(rssMax, metric(after, "process_resident_memory_bytes"));
    const rootS =
      metric(after, "opal_chain_import_root_seconds_total") - metric(before, "opal_chain_import_root_seconds_total");
    const delta = (name: string): number => metric(after, name) - metric(before, name);
    latencies.sort((a, b) => a - b);
    return {
      seconds,
      rootMsPerBlock: (rootS * 1000) / stream.blocks.length,
      trieReadsPerBlock: delta("opal_chain_import_root_trie_reads_total") / stream.blocks.length,
      trieStoreReadsPerBlock: delta("opal_chain_import_root_trie_store_reads_total") / stream.blocks.length,
      rssMb: rssMax / 2 ** 20,
      readsP99Ms: latencies[Math.floor(latencies.length * 0.99)] ?? 0,
      readsP50Ms: latencies[Math.floor(latencies.length * 0.5)] ?? 0,
      readsP90Ms: latencies[Math.floor(latencies.length * 0.9)] ?? 0,
      reads: latencies.length,
    };
  } finally {
    await node.stop();
  }
}

/**
 * With `OPAL_DEBUG_TURNS=<file>` (inherited by the node, util/turnTrace.ts): the node's longest
 * main-thread turns during the run, by kind, from the summary it wrote at exit.
 */
function printTurnTrace(): void {
  const file = process.env.OPAL_DEBUG_TURNS;
  if (file === undefined || file === "" || !existsSync(file)) return;
  type Series = { count: number; buckets: Record<string, number>; longest: { ms: number; what: string }[] };
  const t = JSON.parse(readFileSync(file, "utf8")) as Record<
    "sliceTurns" | "sliceTurnsCpu" | "loopLateness" | "gcPauses",
    Series
  >;
  const line = (name: string, s: Series, top: number): void => {
    const b = Object.entries(s.buckets)
      .map(([k, v]) => `${k}:${v}`)
      .join(" ");
    const ms = s.longest
      .slice(0, top)
      .map((e) => e.ms.toFixed(1))
      .join(" ");
    console.log(`  ${name}: ${s.count} (ms ${b}); longest ${ms}`);
  };
  console.log("node's main thread during the run (OPAL_DEBUG_TURNS):");
  line("chain turns, wall", t.sliceTurns, 10);
  line("chain turns, CPU", t.sliceTurnsCpu, 10);
  for (const e of t.sliceTurnsCpu.longest.slice(0, 10)) console.log(`    ${e.ms.toFixed(1)} ms ${e.what}`);
  line("loop lateness", t.loopLateness, 10);
  line("gc pauses", t.gcPauses, 10);
  for (const e of t.gcPauses.longest.slice(0, 5)) console.log(`    ${e.ms.toFixed(1)} ms ${e.what}`);
}

/** The head's root (reached incrementally by the imports) against a full recomputation from the flat state. */
async function checkRoot(datadir: string, want: Uint8Array): Promise<void> {
  const opened = await openStore(join(datadir, "chaindata"), "rocksdb");
  try {
    const chain = Blockchain.open(opened.kv);
    if (!equalBytes(chain.head.stateRoot, want)) throw new Error("scale: the imported head is not the built head");
    const full = buildFreshStateRoot(opened.kv, { computeOnly: true });
    if (!equalBytes(full.root, want))
      throw new Error(`scale: full recomputation ${bytesToHex(full.root)} ≠ incremental ${bytesToHex(want)}`);
  } finally {
    await opened.close();
  }
}

/**
 * Writes the synthetic state into `datadir`. With `OPAL_BENCH_SCALE_DIR` set, a pristine copy is
 * kept beside it (`scale-<N>.state`) and, with `OPAL_BENCH_SCALE_REUSE=1`, a later run copies that
 * instead of writing the state again (minutes at 10M accounts), so A/B runs of the import start
 * from the same bytes.
 */
async function writeState(datadir: string, spec: ScaleSpec): Promise<void> {
  const kept = process.env.OPAL_BENCH_SCALE_DIR === undefined ? null : `${datadir}.state`;
  if (kept !== null && process.env.OPAL_BENCH_SCALE_REUSE === "1" && existsSync(kept)) {
    cpSync(kept, datadir, { recursive: true });
    console.log(`scale ${spec.accounts} accounts: state copied from ${kept}`);
    return;
  }
  const st = await buildScaleState(datadir, spec, (l) => console.log(l));
  console.log(
    `scale ${spec.accounts} accounts: state written in ${(st.writeMs / 1000).toFixed(1)} s, root (full) in ${(st.rootMs / 1000).toFixed(1)} s, ${spec.holders.toLocaleString("en-US")} token holders`,
  );
  if (kept !== null) {
    rmSync(kept, { recursive: true, force: true });
    cpSync(datadir, kept, { recursive: true });
  }
}

export async function run(): Promise<BenchRow[]> {
  const sizes = (process.env.OPAL_BENCH_SCALE_ACCOUNTS ?? "100000,1000000,10000000")
    .split(",")
    .map((s) => Number(s.replace(/_/g, "")));
  const holdersWanted = Number(process.env.OPAL_BENCH_SCALE_HOLDERS ?? 1_000_000);
  const blocks = Number(process.env.OPAL_BENCH_SCALE_BLOCKS ?? 50);
  const cacheMb = Number(process.env.OPAL_BENCH_SCALE_CACHE ?? 1024);
  const base = process.env.OPAL_BENCH_SCALE_DIR ?? makeTmpDir();
  mkdirSync(base, { recursive: true });
  const rows: BenchRow[] = [];
  const rates: number[] = [];
  try {
    for (const accounts of sizes) {
      const spec: ScaleSpec = { accounts, holders: Math.min(holdersWanted, accounts), senders: SENDERS };
      const datadir = join(base, `scale-${accounts}`);
      rmSync(datadir, { recursive: true, force: true });
      await writeState(datadir, spec);
      const stream = await buildStream(datadir, spec, blocks);
      const f = await importWithReads(datadir, spec, stream, cacheMb);
      printTurnTrace();
      await checkRoot(datadir, stream.headRoot);
      const mgas = stream.gas / 1e6 / f.seconds;
      rates.push(mgas);
      const gb = dirBytes(join(datadir, "chaindata")) / 2 ** 30;
      console.log(
        `scale ${accounts} accounts: import ${mgas.toFixed(1)} Mgas/s, root ${f.rootMsPerBlock.toFixed(1)} ms/block (${f.trieReadsPerBlock.toFixed(0)} trie reads, ${f.trieStoreReadsPerBlock.toFixed(0)} from the store), db ${gb.toFixed(2)} GB, rss ${f.rssMb.toFixed(0)} MB, reads p99 ${f.readsP99Ms.toFixed(1)} ms (${f.reads} reads, p50 ${f.readsP50Ms.toFixed(1)} ms, p90 ${f.readsP90Ms.toFixed(1)} ms; root checked against a full recomputation)`,
      );
      rows.push({
        section: "scale",
        name: `import ${accounts} accounts`,
        opsPerSec: blocks / f.seconds,
        meanMs: (f.seconds * 1000) / blocks,
        items: stream.gas / blocks,
        samples: blocks,
      });
      if (process.env.OPAL_BENCH_SCALE_DIR === undefined) rmSync(datadir, { recursive: true, force: true });
    }
    if (rates.length > 1) {
      console.log(`scale ratio ${sizes.at(-1)}/${sizes[0]}: ${(rates.at(-1)! / rates[0]!).toFixed(2)}`);
    }
  } finally {
    if (process.env.OPAL_BENCH_SCALE_DIR === undefined && existsSync(base)) removeDir(base);
  }
  return rows;
}
