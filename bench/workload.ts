/**
 * Block workloads for the `evm` bench: `../shared/bench/workloads/*.json`, schema
 * `bench-peers/workload/v1` (a geth-format genesis with `alloc`, blocks of signed raw txs, and the
 * gasUsed / stateRoot / receiptsRoot that ethereumjs recorded for them, `expect.recordedBy`).
 *
 * This file is the edge: hex is decoded here once, and every field is checked, so a bad file fails
 * with its name and the JSON path of the field (`eth-transfers.json: blocks[0].header.gasLimit: …`)
 * instead of as a wrong figure later. `contracts.json` in the same folder is not a workload (it is
 * solc's ABI + bytecode of the contracts the workloads deploy) and is not listed.
 */
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { REPO_ROOT } from "../test/utils/fixtures.js";

/** Where the workloads live, beside the repository like the other shared corpora. */
export const WORKLOADS_DIR = resolve(REPO_ROOT, "../shared/bench/workloads");

/** The four block workloads, in the order the section prints them. */
export const WORKLOAD_NAMES = ["eth-transfers", "erc20-transfers", "storage-writes", "compute-keccak"] as const;

export const WORKLOAD_SCHEMA = "bench-peers/workload/v1";

export interface GenesisAccount {
  /** 20 bytes; the same address as the alloc map key. */
  address: Uint8Array;
  balance: bigint;
  nonce: number;
  /** Empty for accounts without code. */
  code: Uint8Array;
  /** Slot → value, both 256-bit words; zero values are dropped (they are not in the trie). */
  storage: ReadonlyMap<bigint, bigint>;
}

/** The genesis header fields a runner may need as the parent of block 1. */
export interface GenesisHeader {
  number: number;
  timestamp: number;
  gasLimit: bigint;
  baseFeePerGas: bigint | undefined;
  difficulty: bigint;
  coinbase: Uint8Array;
  mixHash: Uint8Array;
  parentHash: Uint8Array;
  extraData: Uint8Array;
  excessBlobGas: bigint | undefined;
  blobGasUsed: bigint | undefined;
}

export interface Genesis {
  header: GenesisHeader;
  /** Lower-case `0x` address → account. */
  alloc: ReadonlyMap<string, GenesisAccount>;
  /** `genesis.config` as written (geth chain config), for runners that want the fork schedule. */
  config: Readonly<Record<string, unknown>>;
}

/** Header fields of a workload block; what the file leaves out (roots, gasUsed, bloom) is computed. */
export interface WorkloadHeader {
  number: number;
  timestamp: number;
  gasLimit: bigint;
  coinbase: Uint8Array;
  baseFeePerGas: bigint | undefined;
  /** 32 bytes (the post-merge `mixHash` slot). */
  prevRandao: Uint8Array;
  parentBeaconBlockRoot: Uint8Array | undefined;
  excessBlobGas: bigint | undefined;
  blobGasUsed: bigint | undefined;
}

export interface WorkloadBlock {
  header: WorkloadHeader;
  /** Signed txs, canonical encoding (typed txs as `type || rlp`), one Uint8Array each. */
  transactions: Uint8Array[];
}

export interface WorkloadExpect {
  /** Summed over all blocks. */
  gasUsed: number;
  /** State root after the last block. */
  stateRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  txCount: number;
  failedTxs: number;
  recordedBy: string;
}

export interface Workload {
  /** Workload name (`eth-transfers`), from the file. */
  name: string;
  /** Absolute path of the file read. */
  file: string;
  description: string;
  /** Fork name as the file spells it (`cancun`), lower case. */
  hardfork: string;
  chainId: bigint;
  genesis: Genesis;
  blocks: WorkloadBlock[];
  expect: WorkloadExpect;
}

export class WorkloadError extends Error {
  constructor(
    readonly file: string,
    readonly field: string,
    detail: string,
  ) {
    super(`${basename(file)}: ${field}: ${detail}`);
    this.name = "WorkloadError";
  }
}

/** The four workload files, absolute paths, in `WORKLOAD_NAMES` order. */
export function listWorkloads(): string[] {
  return WORKLOAD_NAMES.map((n) => resolve(WORKLOADS_DIR, `${n}.json`));
}

/** Reads and validates one workload; `nameOrPath` is a workload name or a path to a `.json` file. */
export function loadWorkload(nameOrPath: string): Workload {
  const file = nameOrPath.endsWith(".json") ? resolve(nameOrPath) : resolve(WORKLOADS_DIR, `${nameOrPath}.json`);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new WorkloadError(file, "(file)", `cannot read: ${e instanceof Error ? e.message : String(e)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new WorkloadError(file, "(file)", `not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  return parseWorkload(json, file);
}

/** Validates an already-parsed workload document; `file` only names it in errors. */
export function parseWorkload(json: unknown, file: string): Workload {
  const r = new Reader(file);
  const root = r.obj(json, "(root)");
  const schema = r.str(root.schema, "schema");
  if (schema !== WORKLOAD_SCHEMA) r.fail("schema", `is ${JSON.stringify(schema)}, want ${WORKLOAD_SCHEMA}`);
  const hardfork = r.str(root.hardfork, "hardfork");
  if (!/^[a-z][a-zA-Z]*$/.test(hardfork)) r.fail("hardfork", `not a fork name: ${JSON.stringify(hardfork)}`);
  const chainId = r.uint(root.chainId, "chainId");

  const g = r.obj(root.genesis, "genesis");
  const config = r.obj(g.config, "genesis.config");
  if (config.chainId !== undefined && r.uint(config.chainId, "genesis.config.chainId") !== chainId) {
    r.fail("genesis.config.chainId", `differs from chainId ${chainId}`);
  }
  const header: GenesisHeader = {
    number: r.num(g.number ?? "0x0", "genesis.number"),
    timestamp: r.num(g.timestamp, "genesis.timestamp"),
    gasLimit: r.uint(g.gasLimit, "genesis.gasLimit"),
    baseFeePerGas: r.optUint(g.baseFeePerGas, "genesis.baseFeePerGas"),
    difficulty: r.uint(g.difficulty ?? "0x0", "genesis.difficulty"),
    coinbase: r.bytes(g.coinbase ?? `0x${"00".repeat(20)}`, "genesis.coinbase", 20),
    mixHash: r.bytes(g.mixHash ?? `0x${"00".repeat(32)}`, "genesis.mixHash", 32),
    parentHash: r.bytes(g.parentHash ?? `0x${"00".repeat(32)}`, "genesis.parentHash", 32),
    extraData: r.bytes(g.extraData ?? "0x", "genesis.extraData"),
    excessBlobGas: r.optUint(g.excessBlobGas, "genesis.excessBlobGas"),
    blobGasUsed: r.optUint(g.blobGasUsed, "genesis.blobGasUsed"),
  };
  const allocJson = r.obj(g.alloc, "genesis.alloc");
  const alloc = new Map<string, GenesisAccount>();
  for (const [addrHex, acctJson] of Object.entries(allocJson)) {
    const at = `genesis.alloc[${addrHex}]`;
    const address = r.bytes(addrHex.startsWith("0x") ? addrHex : `0x${addrHex}`, `${at} (key)`, 20);
    const a = r.obj(acctJson, at);
    const storage = new Map<bigint, bigint>();
    if (a.storage !== undefined) {
      for (const [k, v] of Object.entries(r.obj(a.storage, `${at}.storage`))) {
        const slot = r.word(k, `${at}.storage key ${k}`);
        const value = r.word(v, `${at}.storage[${k}]`);
        if (value !== 0n) storage.set(slot, value);
      }
    }
    const key = `0x${addrHex.replace(/^0x/, "").toLowerCase()}`;
    if (alloc.has(key)) r.fail(at, "address listed twice");
    alloc.set(key, {
      address,
      balance: r.uint(a.balance ?? "0x0", `${at}.balance`),
      nonce: r.num(a.nonce ?? "0x0", `${at}.nonce`),
      code: r.bytes(a.code ?? "0x", `${at}.code`),
      storage,
    });
  }

  const blocksJson = r.arr(root.blocks, "blocks");
  if (blocksJson.length === 0) r.fail("blocks", "is empty");
  const blocks = blocksJson.map((bj, i): WorkloadBlock => {
    const at = `blocks[${i}]`;
    const b = r.obj(bj, at);
    const h = r.obj(b.header, `${at}.header`);
    const hp = `${at}.header`;
    const txs = r.arr(b.transactions, `${at}.transactions`);
    return {
      header: {
        number: r.num(h.number, `${hp}.number`),
        timestamp: r.num(h.timestamp, `${hp}.timestamp`),
        gasLimit: r.uint(h.gasLimit, `${hp}.gasLimit`),
        coinbase: r.bytes(h.coinbase, `${hp}.coinbase`, 20),
        baseFeePerGas: r.optUint(h.baseFeePerGas, `${hp}.baseFeePerGas`),
        prevRandao: r.bytes(h.prevRandao ?? h.mixHash, `${hp}.prevRandao`, 32),
        parentBeaconBlockRoot:
          h.parentBeaconBlockRoot === undefined
            ? undefined
            : r.bytes(h.parentBeaconBlockRoot, `${hp}.parentBeaconBlockRoot`, 32),
        excessBlobGas: r.optUint(h.excessBlobGas, `${hp}.excessBlobGas`),
        blobGasUsed: r.optUint(h.blobGasUsed, `${hp}.blobGasUsed`),
      },
      transactions: txs.map((t, j) => {
        const tx = r.bytes(t, `${at}.transactions[${j}]`);
        if (tx.length === 0) r.fail(`${at}.transactions[${j}]`, "is empty");
        return tx;
      }),
    };
  });
  for (let i = 1; i < blocks.length; i++) {
    if (blocks[i]!.header.number !== blocks[i - 1]!.header.number + 1) {
      r.fail(`blocks[${i}].header.number`, `is ${blocks[i]!.header.number}, want ${blocks[i - 1]!.header.number + 1}`);
    }
  }

  const e = r.obj(root.expect, "expect");
  const txTotal = blocks.reduce((n, b) => n + b.transactions.length, 0);
  const expect: WorkloadExpect = {
    gasUsed: r.num(e.gasUsed, "expect.gasUsed"),
    stateRoot: r.bytes(e.stateRoot, "expect.stateRoot", 32),
    receiptsRoot: r.bytes(e.receiptsRoot, "expect.receiptsRoot", 32),
    txCount: e.txCount === undefined ? txTotal : r.num(e.txCount, "expect.txCount"),
    failedTxs: e.failedTxs === undefined ? 0 : r.num(e.failedTxs, "expect.failedTxs"),
    recordedBy: e.recordedBy === undefined ? "unknown" : r.str(e.recordedBy, "expect.recordedBy"),
  };
  if (expect.txCount !== txTotal) r.fail("expect.txCount", `is ${expect.txCount}, but the blocks hold ${txTotal} txs`);
  if (e.gasUsedDec !== undefined && String(expect.gasUsed) !== r.str(e.gasUsedDec, "expect.gasUsedDec")) {
    r.fail("expect.gasUsedDec", `${String(e.gasUsedDec)} differs from expect.gasUsed ${expect.gasUsed}`);
  }

  return {
    name: root.name === undefined ? basename(file, ".json") : r.str(root.name, "name"),
    file,
    description: root.description === undefined ? "" : r.str(root.description, "description"),
    hardfork,
    chainId,
    genesis: { header, alloc, config },
    blocks,
    expect,
  };
}

const HEX_QUANTITY = /^0x[0-9a-fA-F]+$/;
const HEX_DATA = /^0x(?:[0-9a-fA-F]{2})*$/;
const WORD_MAX = (1n << 256n) - 1n;

/** Field readers that name the file and the JSON path on every failure. */
class Reader {
  constructor(private readonly file: string) {}

  fail(field: string, detail: string): never {
    throw new WorkloadError(this.file, field, detail);
  }

  obj(v: unknown, field: string): Record<string, unknown> {
    if (typeof v !== "object" || v === null || Array.isArray(v)) this.fail(field, `want an object, got ${kind(v)}`);
    return v as Record<string, unknown>;
  }

  arr(v: unknown, field: string): unknown[] {
    if (!Array.isArray(v)) this.fail(field, `want an array, got ${kind(v)}`);
    return v;
  }

  str(v: unknown, field: string): string {
    if (typeof v !== "string") this.fail(field, `want a string, got ${kind(v)}`);
    return v;
  }

  /** Non-negative integer: a `0x` hex quantity (leading zeros allowed, as geth genesis files have) or a JSON integer. */
  uint(v: unknown, field: string): bigint {
    if (typeof v === "number") {
      if (!Number.isSafeInteger(v) || v < 0) this.fail(field, `not a non-negative safe integer: ${v}`);
      return BigInt(v);
    }
    if (typeof v !== "string" || !HEX_QUANTITY.test(v)) this.fail(field, `want a 0x hex quantity, got ${show(v)}`);
    return BigInt(v);
  }

  optUint(v: unknown, field: string): bigint | undefined {
    return v === undefined ? undefined : this.uint(v, field);
  }

  /** A quantity that must fit a `number` (gas, block numbers, timestamps, nonces). */
  num(v: unknown, field: string): number {
    const n = this.uint(v, field);
    if (n > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(field, `${n} exceeds 2^53-1`);
    return Number(n);
  }

  /** A 256-bit word: a hex quantity or 32-byte data, at most 2^256-1. */
  word(v: unknown, field: string): bigint {
    const n = this.uint(v, field);
    if (n > WORD_MAX) this.fail(field, "exceeds 2^256-1");
    return n;
  }

  bytes(v: unknown, field: string, length?: number): Uint8Array {
    if (typeof v !== "string" || !HEX_DATA.test(v)) this.fail(field, `want 0x hex bytes, got ${show(v)}`);
    const out = Buffer.from(v.slice(2), "hex");
    if (length !== undefined && out.length !== length) this.fail(field, `is ${out.length} bytes, want ${length}`);
    // A plain Uint8Array (not a Buffer view into Node's pool), so runners may keep or transfer it.
    return new Uint8Array(out);
  }
}

function kind(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v;
}

function show(v: unknown): string {
  const s = typeof v === "string" ? JSON.stringify(v) : kind(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
