/**
 * Block header through Osaka (Yellow Paper §4.3; EIP-1559 baseFee, EIP-4895 withdrawalsRoot, EIP-4844
 * blob gas, EIP-4788 parent beacon root, EIP-7685 requestsHash) and its RLP codec.
 *
 * The optional fields are trailing and ordered: a header with one of them has all earlier ones. The
 * decoder accepts 15 to 21 fields and is fork-agnostic; which count a fork requires is
 * `headerFieldCount` and is checked by block validation, not here. Absent fields are `null`, so every
 * header has one object shape. Decoded byte fields are views into the input.
 *
 * OP Stack: the same layout. Isthmus headers carry `requestsHash` = sha256("") and repurpose
 * `withdrawalsRoot`; Jovian's `blobGasUsed` is the block's DA footprint (op-stack.md §3.4, §3.6).
 */
import { keccak256 } from "../crypto/keccak.js";
import { BLOOM_BYTES } from "../primitives/bloom.js";
import { encodeRlp, type RlpInput, uintToRlpBytes } from "../rlp/encode.js";
import { Fork } from "../spec/forks.js";
import { BlockError } from "./errors.js";
import { ListReader } from "./listReader.js";

export interface Header {
  parentHash: Uint8Array;
  /** keccak256(rlp(ommers)); `EMPTY_OMMERS_HASH` after the merge. RPC name `sha3Uncles`. */
  ommersHash: Uint8Array;
  /** Fee recipient, 20 bytes. RPC name `miner`. */
  coinbase: Uint8Array;
  stateRoot: Uint8Array;
  transactionsRoot: Uint8Array;
  receiptsRoot: Uint8Array;
  /** 256 bytes. */
  logsBloom: Uint8Array;
  difficulty: bigint;
  number: number;
  /**
   * u64 as bigint: a cap taken from outside input, and valid L1 fixtures use values up to 2^63-1.
   * Gas the EVM actually counts (gasUsed, blobGasUsed) is `number` (ARCHITECTURE.md, numeric types).
   */
  gasLimit: bigint;
  gasUsed: number;
  timestamp: number;
  extraData: Uint8Array;
  /** 32 bytes; `prevRandao` after the merge (EIP-4399). */
  mixHash: Uint8Array;
  /** 8 bytes; zero after the merge. */
  nonce: Uint8Array;
  /** London (EIP-1559). */
  baseFeePerGas: bigint | null;
  /** Shanghai (EIP-4895). */
  withdrawalsRoot: Uint8Array | null;
  /** Cancun (EIP-4844). */
  blobGasUsed: number | null;
  /** Cancun (EIP-4844). */
  excessBlobGas: number | null;
  /** Cancun (EIP-4788). */
  parentBeaconBlockRoot: Uint8Array | null;
  /** Prague (EIP-7685). */
  requestsHash: Uint8Array | null;
}

/** Fields of a pre-London header. */
export const HEADER_BASE_FIELDS = 15;
/** Fields with every optional field present (Prague, Osaka). */
export const HEADER_MAX_FIELDS = 21;

/** keccak256(rlp([])): the ommers hash of a block without ommers. */
export const EMPTY_OMMERS_HASH: Uint8Array = keccak256(Uint8Array.of(0xc0));

/** Number of header fields a block of `fork` must have (OP forks: use the L1 fork of `opRules`). */
export function headerFieldCount(fork: Fork): number {
  if (fork >= Fork.Prague) return 21;
  if (fork >= Fork.Cancun) return 20;
  if (fork >= Fork.Shanghai) return 17;
  if (fork >= Fork.London) return 16;
  return HEADER_BASE_FIELDS;
}

/** Number of fields `header` encodes to (15 plus its present optional fields). */
export function headerFieldsPresent(h: Header): number {
  if (h.requestsHash !== null) return 21;
  if (h.parentBeaconBlockRoot !== null) return 20;
  if (h.excessBlobGas !== null) return 19;
  if (h.blobGasUsed !== null) return 18;
  if (h.withdrawalsRoot !== null) return 17;
  if (h.baseFeePerGas !== null) return 16;
  return HEADER_BASE_FIELDS;
}

/** Reads a header from a reader over the header list's payload, consuming all of it (block decoding uses this). */
export function readHeader(r: ListReader): Header {
  const parentHash = r.fixed(32, "header.parentHash");
  const ommersHash = r.fixed(32, "header.ommersHash");
  const coinbase = r.fixed(20, "header.coinbase");
  const stateRoot = r.fixed(32, "header.stateRoot");
  const transactionsRoot = r.fixed(32, "header.transactionsRoot");
  const receiptsRoot = r.fixed(32, "header.receiptsRoot");
  const logsBloom = r.fixed(BLOOM_BYTES, "header.logsBloom");
  const difficulty = r.bigint("header.difficulty", 32);
  const number = r.safeInt("header.number");
  const gasLimit = r.bigint("header.gasLimit", 8);
  const gasUsed = r.safeInt("header.gasUsed");
  const timestamp = r.safeInt("header.timestamp");
  const extraData = r.bytes("header.extraData");
  const mixHash = r.fixed(32, "header.mixHash");
  const nonce = r.fixed(8, "header.nonce");
  const h: Header = {
    parentHash,
    ommersHash,
    coinbase,
    stateRoot,
    transactionsRoot,
    receiptsRoot,
    logsBloom,
    difficulty,
    number,
    gasLimit,
    gasUsed,
    timestamp,
    extraData,
    mixHash,
    nonce,
    baseFeePerGas: null,
    withdrawalsRoot: null,
    blobGasUsed: null,
    excessBlobGas: null,
    parentBeaconBlockRoot: null,
    requestsHash: null,
  };
  // SPEC: optional fields are trailing and ordered, so reading stops at the list's end.
  if (!r.hasMore()) return h;
  h.baseFeePerGas = r.bigint("header.baseFeePerGas", 32);
  if (!r.hasMore()) return h;
  h.withdrawalsRoot = r.fixed(32, "header.withdrawalsRoot");
  if (!r.hasMore()) return h;
  h.blobGasUsed = r.safeInt("header.blobGasUsed");
  if (!r.hasMore()) return h;
  h.excessBlobGas = r.safeInt("header.excessBlobGas");
  if (!r.hasMore()) return h;
  h.parentBeaconBlockRoot = r.fixed(32, "header.parentBeaconBlockRoot");
  if (!r.hasMore()) return h;
  h.requestsHash = r.fixed(32, "header.requestsHash");
  r.finish("header");
  return h;
}

/** Decodes an RLP header spanning all of `input`. Byte fields are views into `input`. */
export function decodeHeader(input: Uint8Array): Header {
  return readHeader(ListReader.whole(input, "header"));
}

function checkLength(b: Uint8Array, size: number, what: string): Uint8Array {
  if (b.length !== size) throw new BlockError("FIELD_LENGTH", `${what}: expected ${size} bytes, got ${b.length}`);
  return b;
}

/** The header's RLP items (before list encoding), validating fixed sizes and optional-field order. */
export function headerRlpFields(h: Header): RlpInput[] {
  const n = headerFieldsPresent(h);
  const fields: RlpInput[] = [
    checkLength(h.parentHash, 32, "header.parentHash"),
    checkLength(h.ommersHash, 32, "header.ommersHash"),
    checkLength(h.coinbase, 20, "header.coinbase"),
    checkLength(h.stateRoot, 32, "header.stateRoot"),
    checkLength(h.transactionsRoot, 32, "header.transactionsRoot"),
    checkLength(h.receiptsRoot, 32, "header.receiptsRoot"),
    checkLength(h.logsBloom, BLOOM_BYTES, "header.logsBloom"),
    uintToRlpBytes(h.difficulty),
    uintToRlpBytes(h.number),
    uintToRlpBytes(h.gasLimit),
    uintToRlpBytes(h.gasUsed),
    uintToRlpBytes(h.timestamp),
    h.extraData,
    checkLength(h.mixHash, 32, "header.mixHash"),
    checkLength(h.nonce, 8, "header.nonce"),
  ];
  if (n > 15) fields.push(uintToRlpBytes(present(h.baseFeePerGas, "baseFeePerGas")));
  if (n > 16) fields.push(checkLength(present(h.withdrawalsRoot, "withdrawalsRoot"), 32, "header.withdrawalsRoot"));
  if (n > 17) fields.push(uintToRlpBytes(present(h.blobGasUsed, "blobGasUsed")));
  if (n > 18) fields.push(uintToRlpBytes(present(h.excessBlobGas, "excessBlobGas")));
  if (n > 19) {
    const root = present(h.parentBeaconBlockRoot, "parentBeaconBlockRoot");
    fields.push(checkLength(root, 32, "header.parentBeaconBlockRoot"));
  }
  if (n > 20) fields.push(checkLength(present(h.requestsHash, "requestsHash"), 32, "header.requestsHash"));
  return fields;
}

function present<T>(v: T | null, name: string): T {
  if (v === null) throw new BlockError("FIELD_ORDER", `header.${name} is null but a later optional field is set`);
  return v;
}

/** RLP encoding of `h`: the exact bytes a decoded canonical header came from. */
export function encodeHeader(h: Header): Uint8Array {
  return encodeRlp(headerRlpFields(h));
}

/** Block hash: keccak256 of the header's RLP. */
export function headerHash(h: Header): Uint8Array {
  return keccak256(encodeHeader(h));
}
