/**
 * Replays that see each tx's changes committed (debug_intermediateRoots, debug_storageRangeAt): the
 * block runs on its parent's state held in a LayeredKv, and a commit writes the WorldState's changes
 * into that layer exactly as block import writes them to the store (flat rows; with `root`, the
 * trie's branch records and the storage roots patched into the account rows), so the state after
 * tx i and its root come from the same code as import's, and nothing reaches the store.
 */
import type { ChainView } from "../../chain/blockchain.js";
import { keccak256 } from "../../crypto/keccak.js";
import { BlockExecutor } from "../../executor/executeBlock.js";
import { bytesKey } from "../../primitives/bytes.js";
import { bigintToBytes32 } from "../../primitives/u256.js";
import type { Account } from "../../state/account.js";
import { KvStateReader } from "../../state/kvStateReader.js";
import { WorldState } from "../../state/worldState.js";
import { updateStateRoot } from "../../trie/stateRoot.js";
import type { DecodedBlock } from "../eth/chainReader.js";
import { LayeredKv } from "./layeredKv.js";
import { blockEnv, stateAfter } from "./replay.js";

/** A WorldState that remembers which slots of which account it read or wrote (their preimages). */
class SlotRecordingState extends WorldState {
  readonly slots = new Map<bigint, Set<bigint>>();

  override sload(a: Account, slot: bigint): bigint {
    let s = this.slots.get(a.address);
    if (s === undefined) this.slots.set(a.address, (s = new Set()));
    s.add(slot);
    return super.sload(a, slot);
  }
}

export class LayeredReplay {
  /** The state as committed so far (the parent's, then each commit's changes). */
  readonly kv: LayeredKv;
  private readonly state: SlotRecordingState;
  private readonly x: BlockExecutor;
  /** Index of the next tx to run. */
  next = 0;

  /** Starts `b` on its parent's state: the block's system calls have run, no tx has. */
  constructor(
    chain: ChainView,
    private readonly b: DecodedBlock,
  ) {
    this.kv = LayeredKv.over(stateAfter(chain, b.header.parentHash));
    this.state = new SlotRecordingState(new KvStateReader(this.kv), this.kv);
    this.x = new BlockExecutor(this.state, b.header, blockEnv(chain, b.header));
    this.x.evm.tracer = null;
    this.x.begin();
  }

  /** Runs the next tx; its rejection code when it does not apply (the state is then unchanged). */
  step(): string | null {
    const i = this.next++;
    const r = this.x.applyTx(this.b.txs[i]!, this.b.senders[i]!);
    return typeof r === "string" ? r : null;
  }

  /**
   * Commits the changes made since the last commit into the layer. With `root` the trie follows and
   * the state root is returned; a replay asking for roots must ask at every commit, since the trie
   * update covers only the keys of this commit.
   */
  commit(root: boolean): Uint8Array | null {
    const c = this.state.commitBlock();
    this.kv.apply(c.batch);
    if (!root) return null;
    const r = updateStateRoot(this.kv, c.changeset);
    this.kv.apply(r.batch);
    this.state.setStorageRoots(r.storageRoots);
    return r.root;
  }

  /**
   * keccak(slot) → slot for every slot of `address` the replay read or wrote so far: the only slot
   * preimages Opal knows (it keeps no preimage table; geth only with --cache.preimages).
   */
  slotPreimages(address: bigint): Map<string, Uint8Array> {
    const out = new Map<string, Uint8Array>();
    for (const s of this.state.slots.get(address) ?? []) {
      const slot = bigintToBytes32(s);
      out.set(bytesKey(keccak256(slot)), slot);
    }
    return out;
  }
}

/**
 * debug_intermediateRoots (geth eth/tracers/api.go IntermediateRoots): the state root after each tx
 * of `b`, its system calls counted in the first. A tx that does not apply ends the list there
 * without an error, as geth returns the roots it has ("the caller already knows that a certain
 * transaction fails to be included", which only a bad block can do).
 */
export function intermediateRoots(chain: ChainView, b: DecodedBlock): Uint8Array[] {
  const r = new LayeredReplay(chain, b);
  const roots: Uint8Array[] = [];
  for (let i = 0; i < b.txs.length; i++) {
    if (r.step() !== null) break;
    roots.push(r.commit(true)!);
  }
  return roots;
}
