/**
 * StateReader over the flat tables of a KvStore (storage/tables.ts): hashedAccounts rows are
 * account RLP, hashedStorage rows minimal big-endian words, code rows raw bytes. Every call is one
 * synchronous point read; caching is the WorldState's job (it keeps what a block touched). Reads
 * are `getShared`: the records' byte fields and the code may be a cache's own bytes (read-only).
 */
import { KECCAK256_EMPTY } from "../crypto/keccak.js";
import { equalBytes } from "../primitives/bytes.js";
import { bytesToBigint } from "../primitives/u256.js";
import { decodeRlp, expectBytes, expectList } from "../rlp/decode.js";
import { getManyShared, getShared, type KvReader } from "../storage/kv.js";
import { canonicalAccountFields } from "../trie/account.js";
import { StateError } from "./errors.js";
import type { AccountRecord, StateReader } from "./stateReader.js";

const EMPTY_CODE = new Uint8Array(0);

export function decodeAccountRecord(row: Uint8Array): AccountRecord {
  return decodeAccountFast(row) ?? decodeAccountItems(row);
}

/** The generic path: any row the fast path does not take, with its precise error for a bad one. */
function decodeAccountItems(row: Uint8Array): AccountRecord {
  const fields = expectList(decodeRlp(row), "account");
  if (fields.length !== 4) throw new StateError("BAD_ACCOUNT", `account row has ${fields.length} fields, expected 4`);
  const storageRoot = expectBytes(fields[2], "account.storageRoot");
  const codeHash = expectBytes(fields[3], "account.codeHash");
  if (storageRoot.length !== 32 || codeHash.length !== 32) {
    throw new StateError("BAD_ACCOUNT", "account hashes are not 32 bytes");
  }
  return {
    nonce: bytesToBigint(expectBytes(fields[0], "account.nonce")),
    balance: bytesToBigint(expectBytes(fields[1], "account.balance")),
    storageRoot,
    codeHash,
  };
}

const at = new Int32Array(4);

/**
 * An account row read in place when it has the canonical shape (trie/account.ts
 * canonicalAccountFields); null for anything else, which the generic path then decodes or refuses,
 * so both accept exactly the same rows. PERF: eth_getBalance and every account the executor loads
 * go through here; the generic RLP tree cost 2.8 µs of a ~70 µs request (profile, issue 25).
 * Exported for the differential test.
 */
export function decodeAccountFast(row: Uint8Array): AccountRecord | null {
  if (!canonicalAccountFields(row, at)) return null;
  const root = at[3] + 1;
  return {
    nonce: bytesToBigint(row.subarray(at[0], at[1])),
    balance: bytesToBigint(row.subarray(at[2], at[3])),
    storageRoot: row.subarray(root, root + 32),
    codeHash: row.subarray(root + 33, root + 65),
  };
}

export class KvStateReader implements StateReader {
  constructor(private readonly kv: KvReader) {}

  account(hashedAddress: Uint8Array): AccountRecord | null {
    const row = getShared(this.kv, "hashedAccounts", hashedAddress);
    return row === undefined ? null : decodeAccountRecord(row);
  }

  /** `account(h)?.balance ?? 0n`, decoding the balance alone (eth_getBalance). */
  balance(hashedAddress: Uint8Array): bigint {
    const row = getShared(this.kv, "hashedAccounts", hashedAddress);
    if (row === undefined) return 0n;
    return canonicalAccountFields(row, at)
      ? bytesToBigint(row.subarray(at[2], at[3]))
      : decodeAccountItems(row).balance;
  }

  accountBatch(hashedAddresses: readonly Uint8Array[]): (AccountRecord | null)[] {
    const rows = getManyShared(this.kv, "hashedAccounts", hashedAddresses);
    const out: (AccountRecord | null)[] = new Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i];
      out[i] = row === undefined ? null : decodeAccountRecord(row);
    }
    return out;
  }

  storage(hashedAddress: Uint8Array, hashedSlot: Uint8Array): bigint {
    const key = new Uint8Array(64);
    key.set(hashedAddress, 0);
    key.set(hashedSlot, 32);
    const row = getShared(this.kv, "hashedStorage", key);
    return row === undefined ? 0n : bytesToBigint(row);
  }

  code(codeHash: Uint8Array): Uint8Array {
    if (equalBytes(codeHash, KECCAK256_EMPTY)) return EMPTY_CODE;
    return getShared(this.kv, "code", codeHash) ?? EMPTY_CODE;
  }

  hasStorage(hashedAddress: Uint8Array): boolean {
    const c = this.kv.cursor("hashedStorage", { gte: hashedAddress, lt: prefixEnd(hashedAddress) });
    try {
      return c.seek(hashedAddress);
    } finally {
      c.close();
    }
  }
}

/** The smallest key greater than every key starting with `prefix` (a 32-byte hash; never all 0xff in practice). */
export function prefixEnd(prefix: Uint8Array): Uint8Array {
  const out = prefix.slice();
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] !== 0xff) {
      out[i]++;
      return out.subarray(0, i + 1);
    }
  }
  return new Uint8Array(prefix.length + 1).fill(0xff);
}
