/**
 * Collects, while a HashBuilder runs, the RLP of every node whose path is a prefix of one of the
 * target keys: exactly the nodes a proof of those keys needs (presence or absence). Targets are
 * nibble paths; nodes are kept by path (a path names at most one node).
 */
import { compareBytes } from "../primitives/bytes.js";

export interface RetainedNode {
  /** Nibble path of the node. */
  readonly path: Uint8Array;
  readonly rlp: Uint8Array;
}

export class ProofRetainer {
  private readonly targets: Uint8Array[];
  private readonly nodes: RetainedNode[] = [];

  /** `targets`: nibble paths (for 32-byte keys, 64 nibbles each). */
  constructor(targets: readonly Uint8Array[]) {
    this.targets = [...targets].sort(compareBytes);
  }

  /** True when `path[0..len)` is a prefix of some target. */
  private wanted(path: Uint8Array, len: number): boolean {
    const t = this.targets;
    // Lower bound: first target whose first `len` nibbles are >= path[0..len).
    let lo = 0;
    let hi = t.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (comparePrefix(t[mid], path, len) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo < t.length && comparePrefix(t[lo], path, len) === 0;
  }

  /** Called by the builder for each node it encodes; `rlp` may be scratch memory and is copied. */
  retain(path: Uint8Array, len: number, rlp: Uint8Array): void {
    if (this.wanted(path, len)) this.nodes.push({ path: path.slice(0, len), rlp: rlp.slice() });
  }

  /** Every retained node, in the order the builder produced them. */
  retained(): readonly RetainedNode[] {
    return this.nodes;
  }

  /**
   * The proof of `target` (geth / eth_getProof semantics): the root node, then each node on the path
   * that is referenced by hash (RLP of 32 bytes or more); embedded nodes travel inside their parent.
   */
  proof(target: Uint8Array): Uint8Array[] {
    const onPath = this.nodes.filter(
      (n) => n.path.length <= target.length && comparePrefix(target, n.path, n.path.length) === 0,
    );
    onPath.sort((a, b) => a.path.length - b.path.length);
    return onPath.filter((n) => n.path.length === 0 || n.rlp.length >= 32).map((n) => n.rlp);
  }
}

/** Compares `a[0..len)` with `p[0..len)` (a shorter `a` sorts first). */
function comparePrefix(a: Uint8Array, p: Uint8Array, len: number): number {
  const n = Math.min(a.length, len);
  for (let i = 0; i < n; i++) {
    const d = a[i] - p[i];
    if (d !== 0) return d;
  }
  return a.length >= len ? 0 : -1;
}
