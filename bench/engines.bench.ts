/**
 * `npm run bench -- engines`: the two storage engines (`--db.engine=rocksdb|lmdb`) under the node's
 * own paths, so operators can choose with numbers (issue 9):
 * - block import: `Blockchain.insertBlock` of the shared workloads' blocks (eth-transfers,
 *   erc20-transfers, storage-writes) on a chain initialised from the workload's genesis, on a store
 *   opened by `openStore` and wrapped in CachedKv as execNode.ts does; senders recovered inside
 *   the import on the main thread (no sigRecover pool); recovered alongside execution by a
 *   sigRecover pool of 1, engine_newPayload's path (tx/sharedRecovery.ts: txs decoded and the
 *   recovery started inside the timer, "senders alongside"); and recovered beforehand and passed
 *   in ("senders given", execution and roots alone); storage tries hashed here (no trieHash pool);
 * - eth_call: ERC-20 `balanceOf` of each of erc20-transfers' 5,000 fresh recipients, once each,
 *   through the node's method table (`ethCallMethods`, a Registry dispatcher, JSON text in and out)
 *   on the main thread, after the store was closed and reopened, so the slots come from the
 *   engine's files (no reply cache: that lives in rpc/callOffload.ts, not on this path).
 * The blocks are built once per workload by the node's block builder (`Blockchain.buildBlock`, the
 * workload's txs as forced txs) on a MemoryKv chain, checked against the workload's recorded
 * gasUsed, state root and receipts root, and the same RLP is imported on a fresh store each run.
 */
import { readFileSync } from "node:fs";
import { decodeBlock, encodeBlock } from "../src/block/block.js";
import { Blockchain } from "../src/chain/blockchain.js";
import { parseGenesis } from "../src/chain/genesis.js";
import { PiscinaPool } from "../src/node/pools.js";
import { equalBytes } from "../src/primitives/bytes.js";
import { bytesToHex } from "../src/primitives/hex.js";
import type { RpcConnection } from "../src/rpc/dispatch.js";
import { ethCallMethods } from "../src/rpc/eth/api.js";
import { EthBackend } from "../src/rpc/eth/backend.js";
import { ChainReader } from "../src/rpc/eth/chainReader.js";
import { Registry } from "../src/rpc/registry.js";
import { CachedKv } from "../src/storage/cachedKv.js";
import { type DbEngine, type OpenedStore, openStore } from "../src/storage/engine.js";
import type { KvStore } from "../src/storage/kv.js";
import { MemoryKv } from "../src/storage/memory.js";
import { decodeTx } from "../src/tx/envelope.js";
import { startSharedRecovery } from "../src/tx/sharedRecovery.js";
import { recoverSender } from "../src/tx/signer.js";
import type { TaskPool } from "../src/util/taskPool.js";
import { makeTmpDir, removeDir } from "../test/utils/tmpDir.js";
import type { BenchRow } from "./lib.js";
import { loadWorkload, type Workload } from "./workload.js";

const SECTION = "engines";
const ENGINES: readonly { label: string; engine: DbEngine }[] = [
  { label: "RocksDB", engine: "rocksdb" },
  { label: "LMDB", engine: "lmdb" },
];
const IMPORT_WORKLOADS = ["eth-transfers", "erc20-transfers", "storage-writes"] as const;
/** The workload whose post-state the eth_call part reads. */
const CALL_WORKLOAD = "erc20-transfers";
/** Measured imports per engine and workload, after one warm-up import (`OPAL_BENCH_ENGINES_RUNS`). */
const DEFAULT_RUNS = 3;
/** eth_calls per timed chunk; the figure is the median chunk. */
const CALL_CHUNK = 500;
/** ERC-20 selectors (BenchToken's methodIdentifiers in contracts.json). */
const TRANSFER = "a9059cbb";
const BALANCE_OF = "70a08231";
const GAS_CAP = 50_000_000n;
const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "127.0.0.1" }, subs: null };

interface BuiltChain {
  /** The blocks' RLP, in order. */
  blocks: Uint8Array[];
  /** Each block's senders, recovered once here (for the "senders given" imports). */
  senders: (Uint8Array | null)[][];
  gasUsed: number;
}

/** The workload's genesis as the file has it (geth format): what `opal-exec init` would read. */
export function genesisJson(w: Workload): { config: unknown } {
  return (JSON.parse(readFileSync(w.file, "utf8")) as { genesis: { config: unknown } }).genesis;
}

function initChain(kv: KvStore, w: Workload): Blockchain {
  const g = genesisJson(w);
  return Blockchain.init(kv, parseGenesis(g), g.config);
}

/**
 * The workload's blocks as the node's builder makes them (header fields from the workload, the
 * roots and bloom computed), checked against what the workload recorded.
 */
export function buildBlocks(w: Workload): BuiltChain {
  const chain = initChain(new MemoryKv(), w);
  let parent = chain.headBlockHash;
  const blocks: Uint8Array[] = [];
  let gasUsed = 0;
  let last: { stateRoot: Uint8Array; receiptsRoot: Uint8Array } | null = null;
  for (const b of w.blocks) {
    const h = b.header;
    const res = chain.buildBlock({
      parentHash: parent,
      timestamp: h.timestamp,
      feeRecipient: h.coinbase,
      prevRandao: h.prevRandao,
      gasLimit: h.gasLimit,
      extraData: new Uint8Array(0),
      withdrawals: [],
      parentBeaconBlockRoot: h.parentBeaconBlockRoot ?? null,
      forced: b.transactions,
      pool: null,
    });
    if ("error" in res) throw new Error(`${w.name}: building block ${h.number}: ${res.error}`);
    blocks.push(encodeBlock({ header: res.header, body: res.body }));
    gasUsed += res.header.gasUsed;
    last = res.header;
    parent = res.hash;
  }
  const want = w.expect;
  if (gasUsed !== want.gasUsed) throw new Error(`${w.name}: built blocks use ${gasUsed} gas, want ${want.gasUsed}`);
  if (last === null || !equalBytes(last.stateRoot, want.stateRoot))
    throw new Error(
      `${w.name}: built state root ${last && bytesToHex(last.stateRoot)}, want ${bytesToHex(want.stateRoot)}`,
    );
  if (!equalBytes(last.receiptsRoot, want.receiptsRoot))
    throw new Error(
      `${w.name}: built receipts root ${bytesToHex(last.receiptsRoot)}, want ${bytesToHex(want.receiptsRoot)}`,
    );
  const senders = w.blocks.map((b) => b.transactions.map((t) => recoverSender(decodeTx(t))));
  return { blocks, senders, gasUsed };
}

interface Imported {
  ms: number;
  dir: string;
  store: OpenedStore;
  chain: Blockchain;
}

/**
 * A fresh store with the workload's genesis, then the timed `insertBlock` of every block; with
 * `given`, the senders recovered beforehand are passed in (as the Engine API does with the pool's).
 */
async function importOnce(
  engine: DbEngine,
  w: Workload,
  built: BuiltChain,
  mode: SenderMode,
  pool: TaskPool,
): Promise<Imported> {
  const dir = makeTmpDir(`opal-bench-engines-${engine}-`);
  const store = await openStore(dir, engine);
  try {
    const chain = initChain(new CachedKv(store.kv), w);
    const t0 = performance.now();
    for (let i = 0; i < built.blocks.length; i++) {
      const rlp = built.blocks[i]!;
      const senders =
        mode === "given"
          ? built.senders[i]!
          : mode === "alongside"
            ? startSharedRecovery(decodeBlock(rlp).body.transactions, pool)
            : undefined;
      const r = chain.insertBlock(rlp, senders === undefined ? {} : { senders });
      if (r.status !== "VALID") throw new Error(`${w.name} on ${engine}: import ${r.status}: ${r.error}`);
    }
    const ms = performance.now() - t0;
    return { ms, dir, store, chain };
  } catch (e) {
    await store.close();
    removeDir(dir);
    throw e;
  }
}

async function discard(x: Imported): Promise<void> {
  await x.store.close();
  removeDir(x.dir);
}

/** erc20-transfers' `transfer(to, amount)` calls: the token, and each recipient's balance summed. */
function recipients(w: Workload): { token: Uint8Array; balances: Map<string, bigint> } {
  let token: Uint8Array | null = null;
  const balances = new Map<string, bigint>();
  for (const b of w.blocks) {
    for (const raw of b.transactions) {
      const tx = decodeTx(raw);
      const data = bytesToHex(tx.data).slice(2);
      if (tx.to === null || !data.startsWith(TRANSFER) || data.length !== 8 + 128)
        throw new Error(`${w.name}: a tx that is not transfer(address,uint256)`);
      if (token === null) token = tx.to;
      else if (!equalBytes(token, tx.to)) throw new Error(`${w.name}: transfers to more than one token`);
      const to = `0x${data.slice(8 + 24, 8 + 64)}`;
      balances.set(to, (balances.get(to) ?? 0n) + BigInt(`0x${data.slice(8 + 64)}`));
    }
  }
  if (token === null) throw new Error(`${w.name}: no txs`);
  return { token, balances };
}

interface CallResult {
  /** calls/s of the median chunk. */
  perSec: number;
  chunks: number;
}

/**
 * Reopens the store left by the last import and makes one `balanceOf` eth_call per recipient,
 * each address once, in chunks of CALL_CHUNK; every reply is checked against the summed transfers.
 */
async function ethCalls(engine: DbEngine, dir: string, w: Workload): Promise<CallResult> {
  const { token, balances } = recipients(w);
  const store = await openStore(dir, engine);
  try {
    const chain = Blockchain.open(new CachedKv(store.kv));
    const be = new EthBackend({ chain, reader: new ChainReader(chain), gasCap: GAS_CAP });
    const d = new Registry(ethCallMethods(be)).forApis(["eth"]);
    const to = bytesToHex(token);
    const request = (id: number, holder: string): string =>
      `{"jsonrpc":"2.0","id":${id},"method":"eth_call","params":[{"to":"${to}","input":"0x${BALANCE_OF}${"0".repeat(24)}${holder.slice(2)}"},"latest"]}`;
    const holders = [...balances.keys()];
    const texts = holders.map((h, i) => request(i, h));
    const replies: string[] = new Array(texts.length);
    const chunkMs: number[] = [];
    for (let i = 0; i < texts.length; i += CALL_CHUNK) {
      const end = Math.min(texts.length, i + CALL_CHUNK);
      const t0 = performance.now();
      for (let j = i; j < end; j++) {
        const r = d.handleText(texts[j]!, HTTP);
        replies[j] = String(r instanceof Promise ? await r : r);
      }
      chunkMs.push(((performance.now() - t0) * CALL_CHUNK) / (end - i));
    }
    for (let j = 0; j < holders.length; j++) {
      const reply = JSON.parse(replies[j]!) as { result?: string; error?: { message: string } };
      const want = balances.get(holders[j]!)!;
      if (reply.result === undefined || BigInt(reply.result) !== want)
        throw new Error(`${engine}: balanceOf(${holders[j]}) answered ${replies[j]}, want ${want}`);
    }
    return { perSec: (CALL_CHUNK * 1000) / median(chunkMs), chunks: chunkMs.length };
  } finally {
    await store.close();
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function runsWanted(): number {
  const v = process.env.OPAL_BENCH_ENGINES_RUNS;
  if (v === undefined || v === "") return DEFAULT_RUNS;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`OPAL_BENCH_ENGINES_RUNS=${v}: want a positive integer`);
  return n;
}

/** How the import gets its senders: recovered in it, alongside it on a pool, or given. */
type SenderMode = "inline" | "alongside" | "given";
const SENDER_MODES: readonly SenderMode[] = ["inline", "alongside", "given"];

export async function run(): Promise<BenchRow[]> {
  const runs = runsWanted();
  const pool = new PiscinaPool("sigRecover", { threads: 1 });
  await pool.warm();
  const rows: BenchRow[] = [];
  const lines: string[] = [];
  /** The last import of CALL_WORKLOAD per engine, kept (closed) for the eth_call part. */
  const callDirs = new Map<DbEngine, string>();
  try {
    for (const name of IMPORT_WORKLOADS) {
      const w = loadWorkload(name);
      const tb = performance.now();
      const built = buildBlocks(w);
      const buildMs = performance.now() - tb;
      // Per mode (senders recovered in the import, or given), one warm-up import per engine, then
      // the measured ones alternate engines so that a slow spell of the shared VM hits both.
      for (const mode of SENDER_MODES) {
        const samples = new Map<DbEngine, number[]>(ENGINES.map((e) => [e.engine, []]));
        for (let i = 0; i <= runs; i++) {
          for (const { engine } of ENGINES) {
            const x = await importOnce(engine, w, built, mode, pool);
            if (i > 0) samples.get(engine)!.push(x.ms);
            if (i === runs && mode === "inline" && name === CALL_WORKLOAD) {
              x.chain.setHead(x.chain.stateBlockHash);
              await x.store.close();
              callDirs.set(engine, x.dir);
            } else {
              await discard(x);
            }
          }
        }
        const suffix = mode === "given" ? ", senders given" : mode === "alongside" ? ", senders alongside" : "";
        const mgas: number[] = [];
        for (const { label, engine } of ENGINES) {
          const s = samples.get(engine)!;
          const ms = median(s);
          mgas.push(built.gasUsed / ms / 1000);
          rows.push({
            section: SECTION,
            name: `import ${name} on ${label}${suffix}`,
            opsPerSec: 1000 / ms,
            // The median import (the field is named for tinybench's mean).
            meanMs: ms,
            items: built.gasUsed,
            samples: s.length,
          });
        }
        lines.push(
          `  import ${`${name}${suffix}`.padEnd(31)} ${ENGINES.map((e, i) => `${e.label} ${mgas[i]!.toFixed(1)}`).join(" / ")} Mgas/s` +
            ` (LMDB/RocksDB ${(mgas[1]! / mgas[0]!).toFixed(2)}x)`,
        );
      }
      lines.push(
        `    (${name}: ${w.expect.txCount} txs, ${built.gasUsed} gas; block built in ${Math.round(buildMs)} ms)`,
      );
    }

    const w = loadWorkload(CALL_WORKLOAD);
    const perSec: number[] = [];
    for (const { label, engine } of ENGINES) {
      const r = await ethCalls(engine, callDirs.get(engine)!, w);
      perSec.push(r.perSec);
      rows.push({
        section: SECTION,
        name: `eth_call balanceOf on ${label}`,
        opsPerSec: r.perSec,
        meanMs: 1000 / r.perSec,
        items: 1,
        samples: r.chunks,
      });
    }
    lines.push(
      `  eth_call balanceOf${" ".repeat(24)} ${ENGINES.map((e, i) => `${e.label} ${Math.round(perSec[i]!)}`).join(" / ")} calls/s` +
        ` (LMDB/RocksDB ${(perSec[1]! / perSec[0]!).toFixed(2)}x; each of ${CALL_WORKLOAD}' recipients once, after a reopen)`,
    );
  } finally {
    for (const dir of callDirs.values()) removeDir(dir);
    await pool.destroy();
  }
  console.log(
    `engines summary: Mgas/s = gas / median insertBlock ms (${runs} runs after a warm-up); eth_call = median of chunks of ${CALL_CHUNK}`,
  );
  for (const l of lines) console.log(l);
  return rows;
}
