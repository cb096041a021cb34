/**
 * The discv4 Kademlia table as geth keeps it (p2p/discover/table.go): 17 buckets of 16 entries
 * (`nBuckets = hashBits / 15`; log-distances 239 and below share bucket 0, as almost no node is that
 * close), up to 10 replacements per bucket, at most 2 nodes of one /24 per bucket and 10 per table
 * (LAN addresses exempt, geth netutil.DistinctNetSet). Entries are ordered most recently verified
 * first; revalidation pings the last.
 */

import type { NodeAddr } from "./enode.js";
import type { Enr } from "./enr.js";
import { isLanIp } from "./ip.js";

/** SPEC: geth table.go: bucketSize 16, maxReplacements 10, nBuckets 17, bucketMinDistance 239. */
export const BUCKET_SIZE = 16;
export const MAX_REPLACEMENTS = 10;
export const N_BUCKETS = 17;
const BUCKET_MIN_DISTANCE = 256 - N_BUCKETS;
/** SPEC: geth table.go bucketIPLimit 2 / tableIPLimit 10 per /24 (bucketSubnet, tableSubnet 24). */
export const BUCKET_IP_LIMIT = 2;
export const TABLE_IP_LIMIT = 10;

export interface TableEntry {
  readonly node: NodeAddr;
  /** The node's record once fetched (ENRRequest), else null. */
  enr: Enr | null;
  addedAt: number;
  /** Consecutive revalidation successes. */
  livenessChecks: number;
}

interface Bucket {
  entries: TableEntry[];
  replacements: TableEntry[];
}

/** Leading zero bits of a ⊕ b subtracted from 256: the log distance (0 for equal ids). */
export function logDistance(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const x = a[i]! ^ b[i]!;
    if (x !== 0) return (32 - i) * 8 - Math.clz32(x) + 24;
  }
  return 0;
}

/** -1, 0, 1 as `a` is closer to, as close as, or farther from `target` than `b` (XOR metric). */
export function compareDistance(target: Uint8Array, a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const da = a[i]! ^ target[i]!;
    const db = b[i]! ^ target[i]!;
    if (da !== db) return da < db ? -1 : 1;
  }
  return 0;
}

function subnetKey(ip: Uint8Array): string | null {
  if (isLanIp(ip)) return null;
  // /24 for IPv4; geth uses the same prefix length (24 bits) for IPv6.
  return `${ip.length}:${ip[0]}.${ip[1]}.${ip[2]}`;
}

export class KademliaTable {
  private readonly buckets: Bucket[] = Array.from({ length: N_BUCKETS }, () => ({ entries: [], replacements: [] }));
  private readonly byId = new Map<string, TableEntry>();
  private readonly tableNets = new Map<string, number>();

  constructor(private readonly self: Uint8Array) {}

  static key(id: Uint8Array): string {
    return Buffer.from(id).toString("latin1");
  }

  bucketIndex(id: Uint8Array): number {
    const d = logDistance(this.self, id);
    return d <= BUCKET_MIN_DISTANCE ? 0 : d - BUCKET_MIN_DISTANCE - 1;
  }

  get size(): number {
    return this.byId.size;
  }

  get(id: Uint8Array): TableEntry | undefined {
    return this.byId.get(KademliaTable.key(id));
  }

  entries(): TableEntry[] {
    return [...this.byId.values()];
  }

  /**
   * A node seen in a Neighbors answer (geth addFoundNode): appended when its bucket has room, else
   * kept as a replacement. Returns the entry when it entered the table.
   */
  addSeen(node: NodeAddr, now: number): TableEntry | null {
    return this.add(node, now, false);
  }

  /** A node that answered a ping (geth addInboundNode/addVerifiedNode): moved or inserted at the front. */
  addVerified(node: NodeAddr, now: number): TableEntry | null {
    return this.add(node, now, true);
  }

  private add(node: NodeAddr, now: number, front: boolean): TableEntry | null {
    if (node.id.length !== 32 || compareDistance(this.self, node.id, this.self) === 0) return null;
    const k = KademliaTable.key(node.id);
    const b = this.buckets[this.bucketIndex(node.id)]!;
    const existing = this.byId.get(k);
    if (existing !== undefined) {
      if (front) {
        const i = b.entries.indexOf(existing);
        if (i > 0) {
          b.entries.splice(i, 1);
          b.entries.unshift(existing);
        }
      }
      return existing;
    }
    const entry: TableEntry = { node, enr: null, addedAt: now, livenessChecks: front ? 1 : 0 };
    if (b.entries.length >= BUCKET_SIZE) {
      this.addReplacement(b, entry);
      return null;
    }
    if (!this.netAllowed(b, node.ip)) return null;
    this.netAdd(node.ip);
    const ri = b.replacements.findIndex((r) => KademliaTable.key(r.node.id) === k);
    if (ri >= 0) b.replacements.splice(ri, 1);
    if (front) b.entries.unshift(entry);
    else b.entries.push(entry);
    this.byId.set(k, entry);
    return entry;
  }

  private addReplacement(b: Bucket, e: TableEntry): void {
    const k = KademliaTable.key(e.node.id);
    if (b.replacements.some((r) => KademliaTable.key(r.node.id) === k)) return;
    b.replacements.unshift(e);
    if (b.replacements.length > MAX_REPLACEMENTS) b.replacements.pop();
  }

  private netAllowed(b: Bucket, ip: Uint8Array): boolean {
    const n = subnetKey(ip);
    if (n === null) return true;
    if ((this.tableNets.get(n) ?? 0) >= TABLE_IP_LIMIT) return false;
    let inBucket = 0;
    for (const e of b.entries) if (subnetKey(e.node.ip) === n) inBucket++;
    return inBucket < BUCKET_IP_LIMIT;
  }

  private netAdd(ip: Uint8Array): void {
    const n = subnetKey(ip);
    if (n !== null) this.tableNets.set(n, (this.tableNets.get(n) ?? 0) + 1);
  }

  private netRemove(ip: Uint8Array): void {
    const n = subnetKey(ip);
    if (n === null) return;
    const c = (this.tableNets.get(n) ?? 1) - 1;
    if (c <= 0) this.tableNets.delete(n);
    else this.tableNets.set(n, c);
  }

  /** Removes a dead node; a replacement of its bucket takes the place (geth replace). */
  remove(id: Uint8Array): void {
    const k = KademliaTable.key(id);
    const e = this.byId.get(k);
    if (e === undefined) return;
    const b = this.buckets[this.bucketIndex(id)]!;
    b.entries.splice(b.entries.indexOf(e), 1);
    this.byId.delete(k);
    this.netRemove(e.node.ip);
    while (b.replacements.length > 0) {
      const r = b.replacements.splice(Math.floor(Math.random() * b.replacements.length), 1)[0]!;
      if (!this.netAllowed(b, r.node.ip)) continue;
      this.netAdd(r.node.ip);
      b.entries.push(r);
      this.byId.set(KademliaTable.key(r.node.id), r);
      break;
    }
  }

  /** Marks a revalidation success: the node moves to the front of its bucket. */
  bump(id: Uint8Array): void {
    const e = this.get(id);
    if (e === undefined) return;
    e.livenessChecks++;
    const b = this.buckets[this.bucketIndex(id)]!;
    const i = b.entries.indexOf(e);
    if (i > 0) {
      b.entries.splice(i, 1);
      b.entries.unshift(e);
    }
  }

  /** The `n` entries closest to `target` (a 32-byte id). */
  closest(target: Uint8Array, n: number, filter?: (e: TableEntry) => boolean): TableEntry[] {
    const all = filter === undefined ? this.entries() : this.entries().filter(filter);
    all.sort((a, b) => compareDistance(target, a.node.id, b.node.id));
    return all.slice(0, n);
  }

  /** The least recently verified entry of a random non-empty bucket (geth doRevalidate), or null. */
  revalidationCandidate(): TableEntry | null {
    const nonEmpty = this.buckets.filter((b) => b.entries.length > 0);
    if (nonEmpty.length === 0) return null;
    const b = nonEmpty[Math.floor(Math.random() * nonEmpty.length)]!;
    return b.entries[b.entries.length - 1]!;
  }

  /** Bucket fill for diagnostics. */
  bucketSizes(): number[] {
    return this.buckets.map((b) => b.entries.length);
  }
}
