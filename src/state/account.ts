/**
 * One account as the WorldState holds it during a block: the stored fields, the storage slots read
 * or written (current values), and the per-tx and per-block flags the journal and the commit need.
 * Mutated only through WorldState, which journals every change.
 */
import { KECCAK256_EMPTY } from "../crypto/keccak.js";
import { EMPTY_TRIE_ROOT } from "../trie/node.js";

/** Shared empty code; never written to. */
export const EMPTY_CODE: Uint8Array = new Uint8Array(0);

export class Account {
  nonce = 0n;
  balance = 0n;
  codeHash: Uint8Array = KECCAK256_EMPTY;
  /** null until loaded from the reader. */
  code: Uint8Array | null = EMPTY_CODE;
  /** The storage root of the stored row (EMPTY_TRIE_ROOT for new accounts); refreshed at commit. */
  storageRoot: Uint8Array = EMPTY_TRIE_ROOT;
  /** Present in the state (possibly empty). */
  exists = false;
  /** The reader had a row for this account when it was loaded (so the reader may hold storage). */
  stored = false;
  /**
   * Whether the reader may hold slots of this account: null until the first slot the storage map
   * misses asks (WorldState.sload); false only when the row's storage root is empty and the reader
   * confirmed it has no rows. Reset at commit, when the rows change.
   */
  readerSlots: boolean | null = null;
  /** Current value of every slot read or written. */
  storage: Map<bigint, bigint> = new Map();
  /** The reader's slots are void: the account was destroyed or re-created in this block. */
  wiped = false;
  /** Slots written in this block (their rows are rewritten at commit). */
  dirtySlots: Set<bigint> | null = null;
  /**
   * Slots the reader had no row for when this block first read them (a row is never zero, so a 0
   * from the reader is an absent row): a row written for one at commit is new (WriteBatch.insert),
   * and undoing it needs no read. Reset at commit.
   */
  absentSlots: Set<bigint> | null = null;
  /** Value at the start of the running tx of each slot written in it (EIP-2200 "original"). */
  txOriginal: Map<bigint, bigint> | null = null;
  /** The account row must be rewritten (or deleted) at commit. */
  dirty = false;
  /** The code changed in this block (its row goes to the code table at commit). */
  codeDirty = false;
  // Per-tx flags, cleared by WorldState.finalizeTx.
  createdInTx = false;
  destructed = false;
  touched = false;
  /** Listed in WorldState's per-tx account list. */
  inTx = false;

  constructor(
    /** The address as a 160-bit integer (the map key; the EVM's stack form). */
    readonly address: bigint,
    /** The 20 address bytes. */
    readonly addressBytes: Uint8Array,
    /** keccak256(address): the key of every flat-state row of this account. */
    readonly hashedAddress: Uint8Array,
  ) {}

  /** EIP-161: no nonce, no balance, no code. */
  isEmpty(): boolean {
    return this.nonce === 0n && this.balance === 0n && this.codeHash === KECCAK256_EMPTY;
  }
}
