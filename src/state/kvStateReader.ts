/**
 * StateReader over the flat tables of a KvStore (storage/tables.ts): hashedAccounts rows are
 * account RLP, hashedStorage rows minimal big-endian words, code rows raw bytes. Every call is one
 * synchronous point read; caching is the WorldState's job (it keeps what a block touched). Reads
 * are `getShared`: the records' byte fields and the code may be a cache's own bytes (read-only).
 */
import { KECCAK256_EMPTY } from "../crypto/keccak.js";
import { bytesKey, bytesKeyOf, equalBytes } from "../primitives/bytes.js";
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

/**
 * A contract's storage read whole once its point reads in a reader's life pass `loadAt` (see
 * KvStateReader `wholeStorage`): `rows` is then every row it has (hashed slot, latin-1 → word);
 * null while it has not been, or not been small enough.
 */
interface StorageReads {
  reads: number;
  loadAt: number;
  rows: Map<string, bigint> | null;
}

/** Point reads of one contract before its rows are first read whole (at most twice as many rows). */
const WHOLE_STORAGE_FIRST_TRY = 64;

export class KvStateReader implements StateReader {
  /** Per contract (hashed address, latin-1): its slot reads, and its rows once read whole. */
  private readonly storageReads: Map<string, StorageReads> | null;

  /**
   * With `wholeStorage`, a contract whose slots this reader has been asked for many times has all
   * its rows read in one range scan as soon as they number at most twice those reads (tried at
   * WHOLE_STORAGE_FIRST_TRY reads, then each time the reads double), and its later slots are
   * answered from them: a block of 5,000 transfers of a token with 200 holders reads 200 rows in
   * one pass instead of 5,000 absent slots one point read each (~18 µs apiece in a block's import
   * here). A bigger contract costs the bounded scans (at most two rows a read done). Only for a
   * reader whose store does not change during its life except by writes of every slot it returned
   * (a block's import from Byzantium on: nothing is written before its execution ends).
   */
  constructor(
    private readonly kv: KvReader,
    opts: { readonly wholeStorage?: boolean } = {},
  ) {
    this.storageReads = opts.wholeStorage === true ? new Map() : null;
  }

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
    if (this.storageReads !== null) {
      const whole = this.wholeStorage(hashedAddress);
      if (whole !== null) return whole.get(bytesKey(hashedSlot)) ?? 0n;
    }
    const key = new Uint8Array(64);
    key.set(hashedAddress, 0);
    key.set(hashedSlot, 32);
    const row = getShared(this.kv, "hashedStorage", key);
    return row === undefined ? 0n : bytesToBigint(row);
  }

  /** The contract's rows when read whole (now, if its reads have reached the next try), else null. */
  private wholeStorage(hashedAddress: Uint8Array): Map<string, bigint> | null {
    const a = bytesKey(hashedAddress);
    let r = this.storageReads!.get(a);
    if (r === undefined) {
      r = { reads: 0, loadAt: WHOLE_STORAGE_FIRST_TRY, rows: null };
      this.storageReads!.set(a, r);
    }
    if (r.rows !== null) return r.rows;
    if (++r.reads < r.loadAt) return null;
    r.loadAt *= 2;
    const limit = 2 * r.reads;
    const rows = new Map<string, bigint>();
    for (const [k, v] of this.kv.iterate("hashedStorage", {
      gte: hashedAddress,
      lt: prefixEnd(hashedAddress),
      limit: limit + 1,
    })) {
      if (rows.size === limit) return null;
      rows.set(bytesKeyOf(k, 32, 64), bytesToBigint(v));
    }
    r.rows = rows;
    return rows;
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
