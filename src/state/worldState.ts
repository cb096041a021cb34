/**
 * Journaled world state for block execution: the EVM's one view of accounts, storage, code,
 * EIP-2929 access sets, EIP-1153 transient storage, logs and the refund counter.
 *
 * - Reads go to the StateReader once per account / slot per block; the Account objects then serve
 *   as the cache for the rest of the block (and later blocks, until `clearCache`).
 * - Every change pushes a journal entry; `checkpoint()` / `revert(id)` / `commit(id)` nest like
 *   call frames. Logs and the refund counter are restored from the checkpoint itself.
 * - `finalizeTx(eip158)` applies the end-of-tx rules (self-destructs, EIP-161 deletion of touched
 *   empty accounts) and forgets the per-tx sets; `commitBlock()` turns the block's changes into
 *   flat-table writes plus the StateChangeset the trie needs for the new root.
 *
 * Addresses are 160-bit bigints (the EVM stack form; a Map keyed by bigint measured 43 ns a lookup
 * here against 190 ns for a hex-string key), slots 256-bit bigints. Nothing here throws inside
 * execution; the only errors are a malformed stored row (StateError) and checkpoint misuse.
 */
import { KECCAK256_EMPTY, keccak256, keccak256Batch, packItems } from "../crypto/keccak.js";
import { bytesKey, equalBytes } from "../primitives/bytes.js";
import { bigintToBytes, bigintToBytes32, bytesToBigint, writeMinimalBytes } from "../primitives/u256.js";
import { encodeRlp, uintToRlpBytes } from "../rlp/encode.js";
import type { KvReader } from "../storage/kv.js";
import { WriteBatch } from "../storage/kv.js";
import type { PackedPuts } from "../storage/sharedRows.js";
import { EMPTY_TRIE_ROOT } from "../trie/node.js";
import { sortPackedKeyOrder } from "../trie/packLeaves.js";
import type { SortedRows } from "../trie/sortedTrie.js";
import type { StateChangeset, StorageChange } from "../trie/stateRoot.js";
import { sharedBytes, sharedInts } from "../util/sharedClaims.js";
import { Account, EMPTY_CODE } from "./account.js";
import { StateError } from "./errors.js";
import { prefixEnd } from "./kvStateReader.js";
import type { AccountRecord, StateReader } from "./stateReader.js";

enum J {
  Balance,
  Nonce,
  Code,
  Storage,
  Exists,
  Reset,
  Destruct,
  Touch,
  WarmAddress,
  WarmSlot,
  Transient,
}

interface Entry {
  k: J;
  a: Account | null;
  /** slot (Storage, WarmSlot, Transient) or address (WarmAddress, Transient) */
  s: bigint;
  /** previous bigint value (Balance, Nonce, Storage, Transient) */
  v: bigint;
  /** previous object value (Code: code; Reset: snapshot) */
  o: unknown;
}

interface ResetSnapshot {
  nonce: bigint;
  codeHash: Uint8Array;
  code: Uint8Array | null;
  storage: Map<bigint, bigint>;
  wiped: boolean;
  exists: boolean;
  createdInTx: boolean;
  txOriginal: Map<bigint, bigint> | null;
}

/** The value of a deleted storage row in StorageChange.values; never written to. */
const EMPTY_ROW = new Uint8Array(0);

/** The precompile whose touch survives a revert (geth journal.go, mainnet block 2675119). */
const RIPEMD = 3n;

/** An address (or any big-endian bytes) as the bigint key the journal and caches use. */
export function addressToBigint(a: Uint8Array): bigint {
  return bytesToBigint(a); // PERF: six bytes per BigInt step, not one (import profile: 2.2x per call)
}

export function bigintToAddress(v: bigint): Uint8Array {
  const out = new Uint8Array(20);
  for (let i = 19; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** Sets a newly made account from its stored record (null: absent). */
function loadRecord(a: Account, rec: AccountRecord | null): void {
  if (rec === null) return;
  a.exists = true;
  a.stored = true;
  a.nonce = rec.nonce;
  a.balance = rec.balance;
  a.storageRoot = rec.storageRoot;
  if (equalBytes(rec.codeHash, KECCAK256_EMPTY)) {
    a.codeHash = KECCAK256_EMPTY;
  } else {
    a.codeHash = rec.codeHash;
    a.code = null;
  }
}

export interface BlockCommit {
  /** Flat-state writes: account rows (old storage roots; the trie patches them), storage rows, code. */
  readonly batch: WriteBatch;
  /** The keys the trie must re-hash. */
  readonly changeset: StateChangeset;
  /**
   * With `commitBlock(freshRowsMin)`: the new storage rows of the contracts whose rows are all new
   * (created, or storage found empty) and number at least that many, out of `batch`; else null.
   * All puts (WriteBatch.insert) of keys without a row before, which the state root never reads
   * (their tries fold from StorageChange.values): the batch's keys and values are views into the
   * rows, packed in shared memory for a worker to write (storage/sharedRows.ts).
   */
  readonly freshRows: PackedPuts | null;
}

export class WorldState {
  private readonly accounts = new Map<bigint, Account>();
  private journal: Entry[] = [];
  private cpJournal: number[] = [];
  private cpLogs: number[] = [];
  private cpRefund: number[] = [];
  /** Accounts changed or touched in the running tx. */
  private txAccounts: Account[] = [];
  private warmAddresses = new Set<bigint>();
  /** Warm for the whole tx without entries of their own (warmAllForTx); null outside a tx. */
  private warmForTx: ReadonlySet<bigint> | null = null;
  private warmSlots = new Map<bigint, Set<bigint>>();
  private transient = new Map<bigint, Map<bigint, bigint>>();
  /** Logs of the running tx (address, topics, data), trimmed on revert. */
  logs: { address: Uint8Array; topics: Uint8Array[]; data: Uint8Array }[] = [];
  /** Gas refund counter of the running tx (may go negative inside a tx under EIP-2200 accounting). */
  refund = 0;

  constructor(
    private readonly reader: StateReader,
    /** Flat tables the reader reads, needed to delete the storage rows of a wiped account at commit. */
    private readonly kv: KvReader | null = null,
    /**
     * Hashes an address into its account key. Read-only runs pass a memo (state/addressHashes.ts);
     * whatever commits keeps the default, a fresh array per account (its keys go into batches and
     * to workers).
     */
    private readonly hashAddress: (address: Uint8Array) => Uint8Array = keccak256,
  ) {}

  // ---- accounts -------------------------------------------------------------------------------

  /** The account object of `address` (loaded once, cached); exists=false when absent. */
  account(address: bigint): Account {
    let a = this.accounts.get(address);
    if (a === undefined) {
      const bytes = bigintToAddress(address);
      a = new Account(address, bytes, this.hashAddress(bytes));
      loadRecord(a, this.reader.account(a.hashedAddress));
      this.accounts.set(address, a);
    }
    return a;
  }

  /**
   * Loads the accounts of `addresses` not loaded yet, hashing their keys in one batch and reading
   * their rows in one read of the store (`StateReader.accountBatch`), where `account` would hash and
   * read each one as execution first reaches it. PERF: a block of 10,000 transfers to fresh
   * accounts (bench workload eth-transfers) spent ~15 µs a key on single reads of the misses.
   * Loading is not a change: nothing is journaled, and an account nothing then changes is not
   * written. Does nothing for a reader without batch reads, or with a memoised `hashAddress`.
   */
  prefetchAccounts(addresses: readonly Uint8Array[]): void {
    if (this.reader.accountBatch === undefined || this.hashAddress !== keccak256) return;
    const todo: Uint8Array[] = [];
    const keys: bigint[] = [];
    const seen = new Set<bigint>();
    for (const bytes of addresses) {
      const k = addressToBigint(bytes);
      if (this.accounts.has(k) || seen.has(k)) continue;
      seen.add(k);
      todo.push(bytes);
      keys.push(k);
    }
    if (todo.length === 0) return;
    const { packed, offsets } = packItems(todo);
    const hashes = keccak256Batch(packed, offsets);
    // Fresh arrays per key: the keys go into batches and to workers, and a view would carry the
    // whole buffer with it.
    const hashed = todo.map((_, i) => hashes.slice(32 * i, 32 * i + 32));
    const recs = this.reader.accountBatch(hashed);
    for (let i = 0; i < todo.length; i++) {
      const a = new Account(keys[i]!, todo[i]!.slice(), hashed[i]!);
      loadRecord(a, recs[i]!);
      this.accounts.set(keys[i]!, a);
    }
  }

  code(a: Account): Uint8Array {
    let c = a.code;
    if (c === null) {
      c = this.reader.code(a.codeHash);
      a.code = c;
    }
    return c;
  }

  private track(a: Account): void {
    if (!a.inTx) {
      a.inTx = true;
      this.txAccounts.push(a);
    }
  }

  private push(k: J, a: Account | null, s: bigint, v: bigint, o: unknown): void {
    this.journal.push({ k, a, s, v, o });
  }

  touch(a: Account): void {
    this.track(a);
    if (!a.touched) {
      a.touched = true;
      this.push(J.Touch, a, 0n, 0n, null);
    }
  }

  setBalance(a: Account, v: bigint): void {
    this.touch(a);
    this.push(J.Balance, a, 0n, a.balance, null);
    a.balance = v;
    a.dirty = true;
    if (!a.exists) this.markExists(a);
  }

  addBalance(a: Account, v: bigint): void {
    this.setBalance(a, a.balance + v);
  }

  subBalance(a: Account, v: bigint): void {
    this.setBalance(a, a.balance - v);
  }

  setNonce(a: Account, v: bigint): void {
    this.touch(a);
    this.push(J.Nonce, a, 0n, a.nonce, null);
    a.nonce = v;
    a.dirty = true;
    if (!a.exists) this.markExists(a);
  }

  setCode(a: Account, code: Uint8Array): void {
    this.touch(a);
    this.push(J.Code, a, 0n, 0n, [a.code, a.codeHash, a.codeDirty]);
    a.code = code;
    a.codeHash = code.length === 0 ? KECCAK256_EMPTY : keccak256(code);
    a.codeDirty = code.length !== 0;
    a.dirty = true;
    if (!a.exists) this.markExists(a);
  }

  /** Makes an absent account present (empty); pre-EIP-161 calls and transfers create accounts. */
  markExists(a: Account): void {
    this.track(a);
    this.push(J.Exists, a, 0n, 0n, a.exists);
    a.exists = true;
    a.dirty = true;
  }

  /**
   * CREATE/CREATE2 target: a fresh account at the address, keeping only its balance (geth
   * CreateAccount + CreateContract). Storage of any earlier incarnation is void from here on.
   */
  createContract(a: Account): void {
    this.touch(a);
    const snap: ResetSnapshot = {
      nonce: a.nonce,
      codeHash: a.codeHash,
      code: a.code,
      storage: a.storage,
      wiped: a.wiped,
      exists: a.exists,
      createdInTx: a.createdInTx,
      txOriginal: a.txOriginal,
    };
    this.push(J.Reset, a, 0n, 0n, snap);
    a.nonce = 0n;
    a.codeHash = KECCAK256_EMPTY;
    a.code = EMPTY_CODE;
    a.storage = new Map();
    a.txOriginal = null;
    a.wiped = true;
    a.exists = true;
    a.createdInTx = true;
    a.dirty = true;
  }

  /** Marks `a` destroyed at the end of the tx (its balance is moved by the caller). */
  selfDestruct(a: Account): void {
    this.track(a);
    this.push(J.Destruct, a, 0n, 0n, a.destructed);
    a.destructed = true;
  }

  // ---- storage --------------------------------------------------------------------------------

  sload(a: Account, slot: bigint): bigint {
    const v = a.storage.get(slot);
    if (v !== undefined) return v;
    let w = 0n;
    if (a.stored && !a.wiped && this.readerSlots(a)) {
      w = this.reader.storage(a.hashedAddress, keccak256(bigintToBytes32(slot)));
      if (w === 0n) (a.absentSlots ??= new Set()).add(slot);
    }
    a.storage.set(slot, w);
    return w;
  }

  /**
   * Whether the reader may hold slots of the stored account `a`. PERF: an account whose row says its
   * storage trie is empty (a contract yet to write any slot) costs one `hasStorage` seek per block
   * instead of a keccak and a point read per slot it touches (storage-writes in the evm bench). The
   * rows are asked, not just the root: an overlay written without a root (eth_call state overrides)
   * holds slots under an account row whose root is still the empty one.
   */
  private readerSlots(a: Account): boolean {
    let has = a.readerSlots;
    if (has === null) {
      has = !equalBytes(a.storageRoot, EMPTY_TRIE_ROOT) || this.reader.hasStorage(a.hashedAddress);
      a.readerSlots = has;
    }
    return has;
  }

  /**
   * The slot's value when the running tx started (EIP-2200 "original value"). `current`, when the
   * caller has it, is `sload(a, slot)`: a slot the tx has not written still holds its original.
   */
  originalStorage(a: Account, slot: bigint, current?: bigint): bigint {
    const o = a.txOriginal?.get(slot);
    return o !== undefined ? o : (current ?? this.sload(a, slot));
  }

  /** Writes the slot; `cur`, when the caller has it, is `sload(a, slot)` (SSTORE just read it). */
  sstore(a: Account, slot: bigint, value: bigint, cur: bigint = this.sload(a, slot)): void {
    this.track(a);
    let orig = a.txOriginal;
    if (orig === null) {
      orig = new Map();
      a.txOriginal = orig;
    }
    if (!orig.has(slot)) orig.set(slot, cur);
    this.push(J.Storage, a, slot, cur, null);
    a.storage.set(slot, value);
    (a.dirtySlots ??= new Set()).add(slot);
  }

  /** EIP-7610: the account has stored storage (a CREATE to it collides). */
  hasStorage(a: Account): boolean {
    for (const v of a.storage.values()) if (v !== 0n) return true;
    if (!a.stored || a.wiped) return false;
    return this.reader.hasStorage(a.hashedAddress);
  }

  // ---- EIP-1153 transient storage -------------------------------------------------------------

  tload(address: bigint, slot: bigint): bigint {
    return this.transient.get(address)?.get(slot) ?? 0n;
  }

  tstore(address: bigint, slot: bigint, value: bigint): void {
    let m = this.transient.get(address);
    if (m === undefined) {
      m = new Map();
      this.transient.set(address, m);
    }
    this.push(J.Transient, null, slot, m.get(slot) ?? 0n, address);
    m.set(slot, value);
  }

  // ---- EIP-2929 access sets -------------------------------------------------------------------

  /**
   * Makes every address of `set` warm until the tx ends: the fork's precompiles, which a tx warms at
   * its start, before any checkpoint, so no revert can take them back. PERF: one shared set instead
   * of a set entry, a BigInt and a journal record per precompile per tx.
   */
  warmAllForTx(set: ReadonlySet<bigint>): void {
    this.warmForTx = set;
  }

  isWarmAddress(address: bigint): boolean {
    return this.warmAddresses.has(address) || this.warmForTx?.has(address) === true;
  }

  /** Adds `address` to the access set; returns true when it was already warm. */
  warmAddress(address: bigint): boolean {
    if (this.warmForTx?.has(address) === true || this.warmAddresses.has(address)) return true;
    this.warmAddresses.add(address);
    this.push(J.WarmAddress, null, address, 0n, null);
    return false;
  }

  /** Adds (address, slot) to the access set; returns true when it was already warm. */
  warmSlot(address: bigint, slot: bigint): boolean {
    let s = this.warmSlots.get(address);
    if (s === undefined) {
      s = new Set();
      this.warmSlots.set(address, s);
    } else if (s.has(slot)) {
      return true;
    }
    s.add(slot);
    this.push(J.WarmSlot, null, slot, 0n, address);
    return false;
  }

  // ---- checkpoints ----------------------------------------------------------------------------

  checkpoint(): number {
    this.cpJournal.push(this.journal.length);
    this.cpLogs.push(this.logs.length);
    this.cpRefund.push(this.refund);
    return this.cpJournal.length - 1;
  }

  commit(id: number): void {
    if (id !== this.cpJournal.length - 1) throw new StateError("BAD_CHECKPOINT", `commit ${id} is not the innermost`);
    this.cpJournal.pop();
    this.cpLogs.pop();
    this.cpRefund.pop();
  }

  revert(id: number): void {
    if (id !== this.cpJournal.length - 1) throw new StateError("BAD_CHECKPOINT", `revert ${id} is not the innermost`);
    const to = this.cpJournal.pop() as number;
    this.logs.length = this.cpLogs.pop() as number;
    this.refund = this.cpRefund.pop() as number;
    const j = this.journal;
    for (let i = j.length - 1; i >= to; i--) this.undo(j[i]);
    j.length = to;
  }

  private undo(e: Entry): void {
    const a = e.a as Account;
    switch (e.k) {
      case J.Balance:
        a.balance = e.v;
        break;
      case J.Nonce:
        a.nonce = e.v;
        break;
      case J.Code: {
        const [code, hash, dirty] = e.o as [Uint8Array | null, Uint8Array, boolean];
        a.code = code;
        a.codeHash = hash;
        a.codeDirty = dirty;
        break;
      }
      case J.Storage:
        a.storage.set(e.s, e.v);
        break;
      case J.Exists:
        a.exists = e.o as boolean;
        break;
      case J.Reset: {
        const s = e.o as ResetSnapshot;
        a.nonce = s.nonce;
        a.codeHash = s.codeHash;
        a.code = s.code;
        a.storage = s.storage;
        a.wiped = s.wiped;
        a.exists = s.exists;
        a.createdInTx = s.createdInTx;
        a.txOriginal = s.txOriginal;
        break;
      }
      case J.Destruct:
        a.destructed = e.o as boolean;
        break;
      case J.Touch:
        if (a.address !== RIPEMD) a.touched = false;
        break;
      case J.WarmAddress:
        this.warmAddresses.delete(e.s);
        break;
      case J.WarmSlot:
        this.warmSlots.get(e.o as bigint)?.delete(e.s);
        break;
      case J.Transient:
        this.transient.get(e.o as bigint)?.set(e.s, e.v);
        break;
    }
  }

  // ---- tx and block boundaries ----------------------------------------------------------------

  /**
   * End-of-tx rules: destroyed accounts are deleted, and from EIP-161 (`eip158`) so is every
   * touched account left empty. Clears the journal, access sets, transient storage and logs.
   */
  finalizeTx(eip158: boolean): void {
    const list = this.txAccounts;
    for (let i = 0; i < list.length; i++) {
      const a = list[i];
      if (a.destructed || (eip158 && a.touched && a.exists && a.isEmpty())) this.deleteAccount(a);
      a.txOriginal = null;
      a.createdInTx = false;
      a.destructed = false;
      a.touched = false;
      a.inTx = false;
    }
    this.txAccounts = [];
    this.journal = [];
    this.cpJournal.length = 0;
    this.cpLogs.length = 0;
    this.cpRefund.length = 0;
    this.warmAddresses.clear();
    this.warmForTx = null;
    this.warmSlots.clear();
    this.transient.clear();
    this.logs = [];
    this.refund = 0;
  }

  private deleteAccount(a: Account): void {
    a.exists = false;
    a.nonce = 0n;
    a.balance = 0n;
    a.codeHash = KECCAK256_EMPTY;
    a.code = EMPTY_CODE;
    a.codeDirty = false;
    a.storage = new Map();
    a.storageRoot = EMPTY_TRIE_ROOT;
    a.wiped = true;
    a.dirty = true;
  }

  /**
   * The block's changes as flat-table writes and the trie changeset. Afterwards the cached accounts
   * describe the committed state (dirty flags cleared); call `setStorageRoots` with the roots the
   * trie computed so later commits write the right account rows.
   */
  commitBlock(freshRowsMin = Number.POSITIVE_INFINITY): BlockCommit {
    const batch = new WriteBatch();
    const accounts: Uint8Array[] = [];
    const storage: StorageChange[] = [];
    /** Accounts that get a row and had none (StateChangeset.created). */
    const created: Uint8Array[] = [];
    const fresh = this.freshRowsBuffers(freshRowsMin);
    for (const a of this.accounts.values()) {
      const slotsDirty = a.dirtySlots !== null && a.dirtySlots.size > 0;
      if (!a.dirty && !slotsDirty && !a.wiped) continue;
      const h = a.hashedAddress;
      // An account that had no row and has none now (touched while empty, or created and destroyed
      // in the block) changes no row and no trie key: PERF, the trie need not look for storage
      // nodes to drop under it (a storage-trie cursor a block: the system address of system calls).
      if ((a.dirty || a.wiped) && (a.exists || a.stored)) accounts.push(h);
      if (!a.exists) {
        if (a.stored) {
          batch.del("hashedAccounts", h);
          this.deleteStorageRows(batch, h);
        }
        a.stored = false;
      } else {
        const slots: Uint8Array[] = [];
        // The account had no rows besides these (new, storage found empty, or wiped): the trie
        // builds its storage root from the values without reading the rows back.
        const values: Uint8Array[] | undefined = !a.stored || a.wiped || a.readerSlots === false ? [] : undefined;
        // Its rows are all new (a wiped stored account's old rows are deleted in this batch, first).
        const absent = rowsAllNew(a);
        if (a.wiped && a.stored) this.deleteStorageRows(batch, h);
        // This account's packed rows, which are also its trie's leaves (StorageChange.packed).
        let packed: SortedRows | undefined;
        if (a.dirtySlots !== null && a.dirtySlots.size > 0) {
          const dirty = [...a.dirtySlots];
          const hashed = hashSlots(dirty);
          // PERF: rows in key order: RocksDB and LMDB take a sorted run of 10k fresh rows for ~20%
          // less CPU than a random one, and the trie then finds the slots already sorted.
          const order = sortPackedKeyOrder(hashed);
          // Packed: keys and values written into the shared buffers, the ops' arrays views of them.
          const pack = fresh !== null && absent && dirty.length >= freshRowsMin ? fresh : null;
          const firstRow = pack === null ? 0 : pack.n;
          for (let k = 0; k < order.length; k++) {
            const i = order[k]!;
            const slot = dirty[i]!;
            const hs = hashed.subarray(32 * i, 32 * i + 32);
            const v = a.storage.get(slot) ?? 0n;
            if (pack !== null && v !== 0n) {
              const r = pack.n++;
              const { keys, keyOffsets, values: packed, valueOffsets } = pack.rows;
              const kAt = 64 * r;
              keys.set(h, kAt);
              keys.set(hs, kAt + 32);
              const vAt = valueOffsets[r]!;
              const vEnd = vAt + writeMinimalBytes(v, packed, vAt);
              keyOffsets[r + 1] = kAt + 64;
              valueOffsets[r + 1] = vEnd;
              const row = packed.subarray(vAt, vEnd);
              pack.batch.insert("hashedStorage", keys.subarray(kAt, kAt + 64), row);
              slots.push(hs);
              values?.push(row);
              continue;
            }
            const key = new Uint8Array(64);
            key.set(h, 0);
            key.set(hs, 32);
            const row = v === 0n ? EMPTY_ROW : bigintToBytes(v);
            if (v === 0n) batch.del("hashedStorage", key);
            else if (absent || a.absentSlots?.has(slot) === true) batch.insert("hashedStorage", key, row);
            else batch.put("hashedStorage", key, row);
            slots.push(hs);
            values?.push(row);
          }
          if (pack !== null && pack.n > firstRow) {
            const { keys, values: words, valueOffsets } = pack.rows;
            packed = {
              keys: keys.subarray(64 * firstRow, 64 * pack.n),
              values: words,
              // The same offsets (never negative) read as the fold takes them.
              offsets: new Uint32Array(
                valueOffsets.buffer,
                valueOffsets.byteOffset + 4 * firstRow,
                pack.n - firstRow + 1,
              ),
            };
          }
        }
        if (slots.length > 0 || a.wiped)
          storage.push({ hashedAddress: h, slots, wiped: a.wiped && a.stored, values, packed });
        if (a.codeDirty && a.code !== null) batch.put("code", a.codeHash, a.code);
        const row = encodeRlp([uintToRlpBytes(a.nonce), uintToRlpBytes(a.balance), a.storageRoot, a.codeHash]);
        // An account the reader had no row for gets a new one: undone by a delete, unread.
        if (a.stored) batch.put("hashedAccounts", h, row);
        else {
          batch.insert("hashedAccounts", h, row);
          created.push(h);
        }
        a.stored = true;
      }
      a.dirty = false;
      a.codeDirty = false;
      a.wiped = false;
      a.dirtySlots = null;
      a.absentSlots = null;
      a.readerSlots = null;
    }
    let freshRows: PackedPuts | null = null;
    if (fresh !== null) {
      const { keys, keyOffsets, values, valueOffsets } = fresh.rows;
      const n = fresh.n;
      freshRows = {
        batch: fresh.batch,
        rows: {
          keys: keys.subarray(0, 64 * n),
          keyOffsets: keyOffsets.subarray(0, n + 1),
          values: values.subarray(0, valueOffsets[n]!),
          valueOffsets: valueOffsets.subarray(0, n + 1),
        },
      };
    }
    return { batch, changeset: { accounts, storage, created }, freshRows };
  }

  /**
   * Room for the rows `commitBlock(freshRowsMin)` packs (see BlockCommit.freshRows): every dirty slot
   * of the accounts whose rows will all be new, when they have at least `freshRowsMin`; null when none.
   */
  private freshRowsBuffers(freshRowsMin: number): (PackedPuts & { n: number }) | null {
    if (freshRowsMin === Number.POSITIVE_INFINITY) return null;
    let slots = 0;
    for (const a of this.accounts.values()) {
      // The accounts commitBlock packs: existing, with all rows new (`absent` there).
      const n = a.dirtySlots?.size ?? 0;
      if (n >= freshRowsMin && a.exists && rowsAllNew(a)) slots += n;
    }
    if (slots === 0) return null;
    return {
      batch: new WriteBatch(),
      rows: {
        keys: sharedBytes(64 * slots),
        keyOffsets: sharedInts(slots + 1),
        // A value takes ≤ 32 bytes; writeMinimalBytes needs 32 bytes of room at each start.
        values: sharedBytes(32 * slots),
        valueOffsets: sharedInts(slots + 1),
      },
      n: 0,
    };
  }

  /** Records the storage roots the trie computed for the last commit. */
  setStorageRoots(roots: readonly { hashedAddress: Uint8Array; root: Uint8Array }[]): void {
    if (roots.length === 0) return;
    const byHash = new Map<string, Uint8Array>();
    for (const r of roots) byHash.set(bytesKey(r.hashedAddress), r.root);
    for (const a of this.accounts.values()) {
      const r = byHash.get(bytesKey(a.hashedAddress));
      if (r !== undefined) a.storageRoot = r;
    }
  }

  private deleteStorageRows(batch: WriteBatch, h: Uint8Array): void {
    if (this.kv === null) return;
    for (const [k] of this.kv.iterate("hashedStorage", { gte: h, lt: prefixEnd(h) })) batch.del("hashedStorage", k);
  }

  /** Drops every cached account (after a reorg, or to bound memory between blocks). */
  clearCache(): void {
    this.accounts.clear();
  }
}

/**
 * Whether every storage row `a` writes is new: it had no row (a new account), or the reader found its
 * storage empty, and it was not wiped (a wiped stored account deletes its old rows first).
 */
function rowsAllNew(a: Account): boolean {
  return !a.stored || (!a.wiped && a.readerSlots === false);
}

/**
 * keccak256 of each slot's 32-byte word, packed back to back (slot i's at 32i). PERF: one batched
 * native call for the block's slots of an account instead of one call per slot, and no view per hash
 * (commitBlock sorts the packed hashes in one call and takes a view per row it writes).
 */
function hashSlots(slots: readonly bigint[]): Uint8Array {
  const n = slots.length;
  const words = new Uint8Array(32 * n);
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < n; i++) {
    bigintToBytes32(slots[i]!, words, 32 * i, true);
    offsets[i + 1] = 32 * (i + 1);
  }
  return keccak256Batch(words, offsets);
}
