/**
 * Genesis files in geth's format (`config`, `alloc`, header fields; OP chains with the `optimism`
 * section and OP fork times): parsed into a chain config, the allocations and block 0's header as
 * geth's `Genesis.ToBlock` builds it (core/genesis.go): fork-dependent fields appear exactly when
 * their fork is active at genesis — the 1 gwei London base fee when none is given, the empty
 * withdrawals root (OP Isthmus: the L2ToL1MessagePasser storage root), zero blob gas and beacon
 * root from Cancun, the empty requests hash from Prague.
 */
import { INITIAL_BASE_FEE } from "../block/baseFee.js";
import { EMPTY_OMMERS_HASH, type Header } from "../block/header.js";
import { keccak256 } from "../crypto/keccak.js";
import { sha256 } from "../crypto/sha256.js";
import { hexToBytes } from "../primitives/hex.js";
import { type ChainConfig, parseChainConfig, rulesAt } from "../spec/chainConfig.js";
import { Fork, OpFork } from "../spec/forks.js";
import type { KvReader } from "../storage/kv.js";
import { MemoryKv } from "../storage/memory.js";
import { accountStorageRoot } from "../trie/account.js";
import { EMPTY_TRIE_ROOT } from "../trie/node.js";
import { type AllocAccount, writeAlloc } from "./genesisState.js";

/** geth params.GenesisGasLimit, used when a genesis file gives none. */
export const DEFAULT_GENESIS_GAS_LIMIT = 4_712_388n;
/** The OP predeploy whose storage root Isthmus headers carry as withdrawalsRoot. */
export const L2_TO_L1_MESSAGE_PASSER: Uint8Array = hexToBytes("0x4200000000000000000000000000000000000016");

export class GenesisError extends Error {
  override readonly name = "GenesisError";
}

export interface Genesis {
  readonly config: ChainConfig;
  readonly alloc: readonly AllocAccount[];
  readonly nonce: Uint8Array;
  readonly timestamp: number;
  readonly extraData: Uint8Array;
  readonly gasLimit: bigint;
  readonly difficulty: bigint;
  readonly mixHash: Uint8Array;
  readonly coinbase: Uint8Array;
  readonly number: number;
  readonly gasUsed: number;
  readonly parentHash: Uint8Array;
  readonly baseFeePerGas: bigint | null;
  readonly excessBlobGas: number | null;
  readonly blobGasUsed: number | null;
}

type Json = Record<string, unknown>;

function field(g: Json, name: string): unknown {
  const v = g[name];
  return v === null ? undefined : v;
}

function big(g: Json, name: string, dflt: bigint): bigint {
  const v = field(g, name);
  if (v === undefined) return dflt;
  if (typeof v === "number" && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v)) return BigInt(v);
  throw new GenesisError(`genesis.${name}: want a non-negative number or 0x quantity, got ${JSON.stringify(v)}`);
}

function bytes(g: Json, name: string, size: number | null, dflt: Uint8Array): Uint8Array {
  const v = field(g, name);
  if (v === undefined) return dflt;
  if (typeof v !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(v)) {
    throw new GenesisError(`genesis.${name}: want 0x-prefixed hex bytes, got ${JSON.stringify(v)}`);
  }
  const b = hexToBytes(v);
  if (size !== null && b.length !== size) {
    if (b.length > size) throw new GenesisError(`genesis.${name}: want ${size} bytes, got ${b.length}`);
    const out = new Uint8Array(size);
    out.set(b, size - b.length);
    return out;
  }
  return b;
}

/** A storage key or value: geth's common.Hash, 0x and up to 64 hex digits (shorter ones left-padded). */
function storageWord(path: string, v: unknown): bigint {
  if (typeof v === "string" && /^0x[0-9a-fA-F]{1,64}$/.test(v)) return BigInt(v);
  throw new GenesisError(`${path}: want 0x-prefixed hex of at most 32 bytes, got ${JSON.stringify(v)?.slice(0, 80)}`);
}

/** geth's genesis `nonce` is a u64 quantity; the header holds it as 8 big-endian bytes. */
function nonceBytes(n: bigint): Uint8Array {
  if (n >= 1n << 64n) throw new GenesisError("genesis.nonce: above 2^64-1");
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, n);
  return out;
}

function allocOf(raw: unknown): AllocAccount[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new GenesisError("genesis.alloc: want an object of accounts");
  const out: AllocAccount[] = [];
  for (const [addr, v] of Object.entries(raw as Json)) {
    const a = addr.startsWith("0x") ? addr : `0x${addr}`;
    if (!/^0x[0-9a-fA-F]{40}$/.test(a)) throw new GenesisError(`genesis.alloc: bad address ${addr}`);
    const acc = (v ?? {}) as Json;
    const storage: [bigint, bigint][] = [];
    const st = field(acc, "storage");
    if (st !== undefined) {
      if (typeof st !== "object" || Array.isArray(st))
        throw new GenesisError(`genesis.alloc.${addr}.storage: want an object`);
      for (const [k, val] of Object.entries(st as Json)) {
        storage.push([
          storageWord(`genesis.alloc.${addr}.storage key`, k),
          storageWord(`genesis.alloc.${addr}.storage[${k}]`, val),
        ]);
      }
    }
    out.push({
      address: hexToBytes(a),
      nonce: big(acc, "nonce", 0n),
      balance: big(acc, "balance", 0n),
      code: bytes(acc, "code", null, new Uint8Array(0)),
      storage,
    });
  }
  return out;
}

/** Parses a geth genesis document; `config` may be supplied separately (superchain-registry files carry none). */
export function parseGenesis(json: unknown, config?: ChainConfig): Genesis {
  if (typeof json !== "object" || json === null || Array.isArray(json))
    throw new GenesisError("genesis: want a JSON object");
  const g = json as Json;
  let cfg = config;
  if (cfg === undefined) {
    if (field(g, "config") === undefined) throw new GenesisError("genesis.config: missing");
    cfg = parseChainConfig(g.config);
  }
  const optNum = (name: string): number | null => {
    const v = field(g, name);
    return v === undefined ? null : Number(big(g, name, 0n));
  };
  const baseFee = field(g, "baseFeePerGas");
  return {
    config: cfg,
    alloc: allocOf(g.alloc),
    nonce: nonceBytes(big(g, "nonce", 0n)),
    timestamp: Number(big(g, "timestamp", 0n)),
    extraData: bytes(g, "extraData", null, new Uint8Array(0)),
    gasLimit: big(g, "gasLimit", 0n),
    difficulty: big(g, "difficulty", 0n),
    mixHash: bytes(g, "mixHash", 32, new Uint8Array(32)),
    coinbase: bytes(g, "coinbase", 20, new Uint8Array(20)),
    number: Number(big(g, "number", 0n)),
    gasUsed: Number(big(g, "gasUsed", 0n)),
    parentHash: bytes(g, "parentHash", 32, new Uint8Array(32)),
    baseFeePerGas: baseFee === undefined ? null : big(g, "baseFeePerGas", 0n),
    excessBlobGas: optNum("excessBlobGas"),
    blobGasUsed: optNum("blobGasUsed"),
  };
}

/** Block 0's header for `genesis` whose allocations hash to `stateRoot`; `passerStorageRoot` is needed for OP Isthmus. */
export function genesisHeader(
  genesis: Genesis,
  stateRoot: Uint8Array,
  passerStorageRoot: Uint8Array = EMPTY_TRIE_ROOT,
): Header {
  const cfg = genesis.config;
  const rules = rulesAt(cfg, genesis.number, genesis.timestamp);
  const fork = rules.fork;
  const isthmus = cfg.optimism !== null && rules.op !== null && rules.op >= OpFork.Isthmus;
  return {
    parentHash: genesis.parentHash,
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: genesis.coinbase,
    stateRoot,
    transactionsRoot: EMPTY_TRIE_ROOT,
    receiptsRoot: EMPTY_TRIE_ROOT,
    logsBloom: new Uint8Array(256),
    difficulty: genesis.difficulty,
    number: genesis.number,
    gasLimit: genesis.gasLimit === 0n ? DEFAULT_GENESIS_GAS_LIMIT : genesis.gasLimit,
    gasUsed: genesis.gasUsed,
    timestamp: genesis.timestamp,
    extraData: genesis.extraData,
    mixHash: genesis.mixHash,
    nonce: genesis.nonce,
    baseFeePerGas: fork >= Fork.London ? (genesis.baseFeePerGas ?? INITIAL_BASE_FEE) : null,
    withdrawalsRoot: fork >= Fork.Shanghai ? (isthmus ? passerStorageRoot : EMPTY_TRIE_ROOT) : null,
    blobGasUsed: fork >= Fork.Cancun ? (genesis.blobGasUsed ?? 0) : null,
    excessBlobGas: fork >= Fork.Cancun ? (genesis.excessBlobGas ?? 0) : null,
    parentBeaconBlockRoot: fork >= Fork.Cancun ? new Uint8Array(32) : null,
    requestsHash: fork >= Fork.Prague ? sha256(new Uint8Array(0)) : null,
  };
}

/** Genesis state root and header computed in memory (no store needed): tools and tests. */
export function genesisBlockOf(genesis: Genesis): { header: Header; stateRoot: Uint8Array } {
  const kv = new MemoryKv();
  const stateRoot = writeAlloc(kv, genesis.alloc);
  return { header: genesisHeader(genesis, stateRoot, passerRoot(kv)), stateRoot };
}

/** Storage root of the L2ToL1MessagePasser in a store built by writeAlloc. */
export function passerRoot(kv: KvReader): Uint8Array {
  const row = kv.get("hashedAccounts", keccak256(L2_TO_L1_MESSAGE_PASSER));
  if (row === undefined) return EMPTY_TRIE_ROOT;
  return accountStorageRoot(row);
}
