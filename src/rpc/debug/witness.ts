/**
 * debug_executionWitness: what a stateless client needs to re-execute a block on its parent's state
 * root alone, in reth's `ExecutionWitness` shape (alloy-rpc-types-debug; op-reth serves it for OP
 * proofs): `state` (trie node RLPs), `codes` (bytecodes), `keys` (the preimages of the hashed keys:
 * each address, then the slots read or written under it), `headers` (RLP of the ancestors from the
 * lowest BLOCKHASH target to the parent; the parent alone when none).
 *
 * Opal keeps no trie node by hash (flat leaves plus branch records by path, trie/storedTrie.ts), so
 * the nodes are found by doing what a stateless client does: the block runs over sparse tries
 * (trie/sparseTrie.ts) whose nodes are rebuilt from the store on demand, path by path; every node
 * one of them had to resolve — the paths of every account and slot read or written, and the
 * siblings a deletion merges upwards — is in the witness. `verifyWitness` is the other side: the
 * same run with nothing but the witness, from the parent header's state root, which must end at the
 * block's state root, gas used and receipts root.
 */
import { decodeHeader, type Header, headerHash } from "../../block/header.js";
import { encodeReceiptsForRoot } from "../../block/receipt.js";
import type { ChainView } from "../../chain/blockchain.js";
import { KECCAK256_EMPTY, keccak256 } from "../../crypto/keccak.js";
import { type BlockExecEnv, executeBlock } from "../../executor/executeBlock.js";
import { bytesKey, equalBytes } from "../../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import { bigintToBytes32, bytesToBigint } from "../../primitives/u256.js";
import { decodeRlp, expectBytes } from "../../rlp/decode.js";
import { type ChainConfig, rulesAt } from "../../spec/chainConfig.js";
import { Fork, OpFork } from "../../spec/forks.js";
import type { Account } from "../../state/account.js";
import { decodeAccountRecord } from "../../state/kvStateReader.js";
import type { AccountRecord, StateReader } from "../../state/stateReader.js";
import { type BlockCommit, bigintToAddress, WorldState } from "../../state/worldState.js";
import { withStorageRoot } from "../../trie/account.js";
import { EMPTY_TRIE_ROOT } from "../../trie/node.js";
import { orderedTrieRoot } from "../../trie/orderedRoot.js";
import { type NodeSource, SparseTrie, storedNodeSource } from "../../trie/sparseTrie.js";
import { storageLeafValue } from "../../trie/stateRoot.js";
import { ACCOUNT_TRIE_VIEW, storageTrieView } from "../../trie/storedTrie.js";
import { RpcError } from "../errors.js";
import type { DecodedBlock } from "../eth/chainReader.js";
import { LayeredKv } from "./layeredKv.js";
import { ancestorHashes, execEnv, stateAfter } from "./replay.js";

/** reth's ExecutionWitness (alloy-rpc-types-debug), fields in its order. */
export interface ExecutionWitness {
  readonly state: Uint8Array[];
  readonly codes: Uint8Array[];
  readonly keys: Uint8Array[];
  readonly headers: Uint8Array[];
}

/** A witness that does not carry what the block needs, or a run that contradicts the block. */
export class WitnessError extends Error {
  override readonly name = "WitnessError";
}

/** What a run over sparse tries reads besides its nodes. */
interface RunSource {
  /** Nodes of the account trie (owner null) or of one account's storage trie. */
  readonly node: (owner: Uint8Array | null) => NodeSource;
  readonly code: (hash: Uint8Array) => Uint8Array | undefined;
  readonly blockHash: (n: bigint) => bigint;
}

/** Records the address and slot preimages the block touches, in first-touch order. */
class KeyRecordingState extends WorldState {
  readonly touched = new Map<bigint, Set<bigint>>();

  override account(address: bigint): Account {
    if (!this.touched.has(address)) this.touched.set(address, new Set());
    return super.account(address);
  }

  override sload(a: Account, slot: bigint): bigint {
    let slots = this.touched.get(a.address);
    if (slots === undefined) this.touched.set(a.address, (slots = new Set()));
    slots.add(slot);
    return super.sload(a, slot);
  }
}

/** The parent's state as sparse tries: the StateReader of the run, and where its commits go. */
class SparseState implements StateReader {
  private readonly accounts: SparseTrie;
  /** The storage trie of each hashed address now (a wiped or deleted account gets a new, empty one). */
  private readonly slots = new Map<string, SparseTrie>();
  /**
   * Every trie of the run, in creation order, replaced ones included: a storage trie read by one tx
   * and wiped by a later one still needed its nodes for that read.
   */
  private readonly tries: SparseTrie[] = [];
  /** Account records as the parent state has them (read before any commit). */
  private readonly parent = new Map<string, AccountRecord | null>();
  /** Codes read, in order (hash key → code). */
  readonly codesRead = new Map<string, Uint8Array>();
  /** Codes the block created (hash key → code). */
  readonly codesCreated = new Map<string, Uint8Array>();

  constructor(
    root: Uint8Array,
    private readonly src: RunSource,
  ) {
    this.accounts = new SparseTrie(root, src.node(null));
    this.tries.push(this.accounts);
  }

  private newStorageTrie(hashedAddress: Uint8Array, root: Uint8Array): SparseTrie {
    const t = new SparseTrie(root, this.src.node(hashedAddress));
    this.slots.set(bytesKey(hashedAddress), t);
    this.tries.push(t);
    return t;
  }

  private record(hashedAddress: Uint8Array): AccountRecord | null {
    const k = bytesKey(hashedAddress);
    if (this.parent.has(k)) return this.parent.get(k)!;
    const rlp = this.accounts.get(hashedAddress);
    const rec = rlp === null ? null : decodeAccountRecord(rlp);
    this.parent.set(k, rec);
    return rec;
  }

  private storageTrie(hashedAddress: Uint8Array): SparseTrie {
    const k = bytesKey(hashedAddress);
    const t = this.slots.get(k);
    if (t !== undefined) return t;
    const rec = this.record(hashedAddress);
    return this.newStorageTrie(hashedAddress, rec === null ? EMPTY_TRIE_ROOT : rec.storageRoot);
  }

  account(hashedAddress: Uint8Array): AccountRecord | null {
    return this.record(hashedAddress);
  }

  storage(hashedAddress: Uint8Array, hashedSlot: Uint8Array): bigint {
    const v = this.storageTrie(hashedAddress).get(hashedSlot);
    return v === null ? 0n : bytesToBigint(expectBytes(decodeRlp(v), "storage value"));
  }

  code(codeHash: Uint8Array): Uint8Array {
    if (equalBytes(codeHash, KECCAK256_EMPTY)) return new Uint8Array(0);
    const seen = this.codesRead.get(bytesKey(codeHash));
    if (seen !== undefined) return seen;
    const c = this.src.code(codeHash);
    if (c === undefined || !equalBytes(keccak256(c), codeHash)) {
      throw new WitnessError(`missing code ${bytesToHex(codeHash)}`);
    }
    this.codesRead.set(bytesKey(codeHash), c);
    return c;
  }

  /** From the storage trie as the commits so far left it (its root is in the account leaf: no node read). */
  hasStorage(hashedAddress: Uint8Array): boolean {
    return !equalBytes(this.storageTrie(hashedAddress).rootHash(), EMPTY_TRIE_ROOT);
  }

  /** The storage root of an account in the trie as it is now (its path is resolved), or null when absent. */
  currentStorageRoot(hashedAddress: Uint8Array): Uint8Array | null {
    const rlp = this.accounts.get(hashedAddress);
    return rlp === null ? null : decodeAccountRecord(rlp).storageRoot;
  }

  /** Applies one WorldState commit to the tries; returns the new state root and the storage roots. */
  apply(c: BlockCommit): { root: Uint8Array; storageRoots: { hashedAddress: Uint8Array; root: Uint8Array }[] } {
    const changed = new Map<string, Uint8Array>();
    const reset = (h: Uint8Array): void => {
      this.newStorageTrie(h, EMPTY_TRIE_ROOT);
      changed.set(bytesKey(h), h);
    };
    for (const s of c.changeset.storage ?? []) if (s.wiped === true) reset(s.hashedAddress);
    const accountOps: { h: Uint8Array; row: Uint8Array | null }[] = [];
    for (const op of c.batch.ops) {
      if (op.table === "hashedStorage") {
        const h = op.key.subarray(0, 32);
        const slot = op.key.subarray(32, 64);
        const t = this.storageTrie(h);
        const leaf = op.type === "put" ? storageLeafValue(slot, op.value) : null;
        if (leaf === null) t.del(slot);
        else t.put(slot, leaf);
        changed.set(bytesKey(h), h);
      } else if (op.table === "hashedAccounts") {
        accountOps.push({ h: op.key, row: op.type === "put" ? op.value : null });
      } else if (op.table === "code" && op.type === "put") {
        this.codesCreated.set(bytesKey(op.key), op.value);
      }
    }
    const storageRoots: { hashedAddress: Uint8Array; root: Uint8Array }[] = [];
    for (const h of changed.values()) storageRoots.push({ hashedAddress: h, root: this.storageTrie(h).rootHash() });
    const roots = new Map(storageRoots.map((r) => [bytesKey(r.hashedAddress), r.root]));
    for (const { h, row } of accountOps) {
      if (row === null) {
        this.accounts.del(h);
        // A deleted account's storage goes with it: a later incarnation starts empty.
        reset(h);
        continue;
      }
      const root = roots.get(bytesKey(h));
      this.accounts.put(h, root === undefined ? row : withStorageRoot(row, root));
    }
    return { root: this.accounts.rootHash(), storageRoots };
  }

  /** Every node resolved, account trie first, each once. */
  nodes(): Uint8Array[] {
    const seen = new Set<string>();
    const out: Uint8Array[] = [];
    for (const t of this.tries) {
      for (const n of t.resolved) {
        const k = bytesKey(n.hash);
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(n.rlp);
      }
    }
    return out;
  }
}

interface RunResult {
  readonly root: Uint8Array;
  readonly gasUsed: number;
  readonly receiptsRoot: Uint8Array;
  readonly state: SparseState;
  readonly keys: Map<bigint, Set<bigint>>;
  /**
   * From OP Isthmus the header's withdrawalsRoot is the L2ToL1MessagePasser's storage root after the
   * block: read from the sparse account trie, so its path is in the witness too. Null before.
   */
  readonly withdrawalsRoot: Uint8Array | null;
}

/** OP's L2ToL1MessagePasser predeploy, hashed: its storage root is the Isthmus withdrawalsRoot. */
const HASHED_MESSAGE_PASSER = keccak256(hexToBytes("0x4200000000000000000000000000000000000016"));

/** Runs `b` over sparse tries rooted at `parentRoot`; every read goes through `src`. */
function runSparse(cfg: ChainConfig, b: DecodedBlock, parentRoot: Uint8Array, src: RunSource): RunResult {
  const h = b.header;
  const sparse = new SparseState(parentRoot, src);
  const state = new KeyRecordingState(sparse, null);
  let root = parentRoot;
  const commit = (): Uint8Array => {
    const r = sparse.apply(state.commitBlock());
    state.setStorageRoots(r.storageRoots);
    root = r.root;
    return root;
  };
  const rules = rulesAt(cfg, h.number, h.timestamp);
  const env: BlockExecEnv = {
    ...execEnv(cfg, h, src.blockHash),
    intermediateRoot: rules.fork < Fork.Byzantium ? commit : null,
  };
  const res = executeBlock(
    state,
    { header: h, txs: b.txs, senders: b.senders, ommers: b.body.ommers, withdrawals: b.body.withdrawals },
    env,
  );
  if ("error" in res) throw new WitnessError(`block execution failed at tx ${res.txIndex}: ${res.error}`);
  commit();
  const receiptsRoot = orderedTrieRoot(encodeReceiptsForRoot(res.receipts, rules));
  const withdrawalsRoot =
    rules.op !== null && rules.op >= OpFork.Isthmus
      ? (sparse.currentStorageRoot(HASHED_MESSAGE_PASSER) ?? EMPTY_TRIE_ROOT)
      : null;
  return { root, gasUsed: res.gasUsed, receiptsRoot, state: sparse, keys: state.touched, withdrawalsRoot };
}

/** The witness's `keys`: each touched address, then the slots touched under it. */
function keyList(touched: Map<bigint, Set<bigint>>): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const [address, slots] of touched) {
    out.push(bigintToAddress(address));
    for (const s of slots) out.push(bigintToBytes32(s));
  }
  return out;
}

/**
 * The execution witness of `b` (a stored block whose parent state the node can read): the block
 * runs over sparse tries resolved from the parent's stored state, and the run must reach the
 * block's own state root, or the witness would not be one.
 */
export function executionWitness(chain: ChainView, b: DecodedBlock): ExecutionWitness {
  const h = b.header;
  if (h.number === 0) throw RpcError.server("genesis has no parent state to witness");
  const parent = chain.store.header(h.parentHash);
  if (parent === null) throw RpcError.server(`block ${bytesToHex(h.parentHash)} not found`);
  const kv = LayeredKv.over(stateAfter(chain, h.parentHash));
  const sources = new Map<string, NodeSource>();
  const node = (owner: Uint8Array | null): NodeSource => {
    const k = owner === null ? "" : bytesKey(owner);
    let s = sources.get(k);
    if (s === undefined) {
      s = storedNodeSource(kv, owner === null ? ACCOUNT_TRIE_VIEW : storageTrieView(owner));
      sources.set(k, s);
    }
    return s;
  };
  const ancestors = ancestorHashes(chain, h.parentHash);
  let lowest = h.number - 1;
  const blockHash = (n: bigint): bigint => {
    if (n < BigInt(lowest)) lowest = Number(n);
    return ancestors(n);
  };
  const r = runSparse(chain.config, b, parent.stateRoot, {
    node,
    code: (hash) => kv.get("code", hash),
    blockHash,
  });
  if (!equalBytes(r.root, h.stateRoot)) {
    throw RpcError.server(`witness run reached state root ${bytesToHex(r.root)}, block has ${bytesToHex(h.stateRoot)}`);
  }
  const headers: Uint8Array[] = [];
  for (let cursor = h.parentHash; ; ) {
    const rlp = chain.store.headerRlp(cursor);
    if (rlp === undefined) throw RpcError.server(`header ${bytesToHex(cursor)} not found`);
    headers.push(rlp);
    const hd = decodeHeader(rlp);
    if (hd.number <= lowest || hd.number === 0) break;
    cursor = hd.parentHash;
  }
  headers.reverse();
  const codes = new Map(r.state.codesRead);
  for (const [k, c] of r.state.codesCreated) if (!codes.has(k)) codes.set(k, c);
  return { state: r.state.nodes(), codes: [...codes.values()], keys: keyList(r.keys), headers };
}

/**
 * Re-executes `b` from `w` alone: the parent header is the last of `w.headers` and must be the
 * block's parent (each header the parent of the next), its state root the root every node is
 * resolved from by hash, every code must hash to a code hash the run reads, BLOCKHASH answers only
 * from the headers. The run must end at the block's state root, gas used and receipts root.
 * Throws WitnessError (or a TrieError for a missing or altered node) otherwise.
 */
export function verifyWitness(cfg: ChainConfig, b: DecodedBlock, w: ExecutionWitness): void {
  if (w.headers.length === 0) throw new WitnessError("no parent header");
  const byNumber = new Map<number, bigint>();
  let prev: Header | null = null;
  let prevHash: Uint8Array | null = null;
  for (const rlp of w.headers) {
    const hd = decodeHeader(rlp);
    const hash = headerHash(hd);
    if (prev !== null && (hd.number !== prev.number + 1 || !equalBytes(hd.parentHash, prevHash!))) {
      throw new WitnessError(`header #${hd.number} does not follow #${prev.number}`);
    }
    byNumber.set(hd.number, bytesToBigint(hash));
    prev = hd;
    prevHash = hash;
  }
  if (!equalBytes(prevHash!, b.header.parentHash)) throw new WitnessError("last header is not the block's parent");
  const nodes = new Map<string, Uint8Array>();
  for (const n of w.state) nodes.set(bytesKey(keccak256(n)), n);
  const codes = new Map<string, Uint8Array>();
  for (const c of w.codes) codes.set(bytesKey(keccak256(c)), c);
  const r = runSparse(cfg, b, prev!.stateRoot, {
    node: () => (hash) => nodes.get(bytesKey(hash)),
    code: (hash) => codes.get(bytesKey(hash)),
    blockHash: (n) => {
      const v = byNumber.get(Number(n));
      if (v === undefined) throw new WitnessError(`BLOCKHASH(${n}) needs a header the witness lacks`);
      return v;
    },
  });
  if (!equalBytes(r.root, b.header.stateRoot)) {
    throw new WitnessError(`state root ${bytesToHex(r.root)}, block has ${bytesToHex(b.header.stateRoot)}`);
  }
  if (r.gasUsed !== b.header.gasUsed) throw new WitnessError(`gas used ${r.gasUsed}, block has ${b.header.gasUsed}`);
  if (!equalBytes(r.receiptsRoot, b.header.receiptsRoot)) throw new WitnessError("receipts root differs");
  const wr = b.header.withdrawalsRoot;
  if (r.withdrawalsRoot !== null && (wr === null || !equalBytes(r.withdrawalsRoot, wr))) {
    throw new WitnessError("message passer storage root differs from the withdrawals root");
  }
}

/** The JSON answer: hex strings throughout, fields in reth's order. */
export function witnessJson(w: ExecutionWitness): Record<string, string[]> {
  const hex = (l: Uint8Array[]) => l.map((x) => bytesToHex(x));
  return { state: hex(w.state), codes: hex(w.codes), keys: hex(w.keys), headers: hex(w.headers) };
}
