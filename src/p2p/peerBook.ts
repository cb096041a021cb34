/**
 * What the node remembers about peers across restarts (op-node p2p/store + gating): score bans with
 * an expiry (`--p2p.ban.*`), the operator's blocks of peers, IPs and subnets (opp2p_block*), and the
 * copy of the node's own network key op-node keeps in its peerstore. Stored as one JSON file in the
 * `--p2p.peerstore.path` folder, replaced atomically (write to a temp file, fsync, rename) on every
 * change, so a crash leaves the old or the new book, never half of one; `memory` keeps nothing.
 *
 * Address checks use node:net's BlockList, which matches IPv4 and IPv6 addresses and subnets.
 */
import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import { BlockList, isIP } from "node:net";
import { join } from "node:path";

export class PeerBookError extends Error {
  override readonly name = "PeerBookError";
}

interface BookJson {
  version: 1;
  /** Peer id → ban expiry (ms since the epoch). */
  bannedPeers: Record<string, number>;
  /** IP → ban expiry. */
  bannedIps: Record<string, number>;
  blockedPeers: string[];
  blockedAddrs: string[];
  blockedSubnets: string[];
  /** Hex copy of the node's network private key (op-node keeps one in its peerstore). */
  privateKey?: string;
}

const FILE = "opal_peerbook.json";

function emptyBook(): BookJson {
  return { version: 1, bannedPeers: {}, bannedIps: {}, blockedPeers: [], blockedAddrs: [], blockedSubnets: [] };
}

/** "10.0.0.0/8" → [address, prefix, family], or null. */
export function parseCidr(cidr: string): { address: string; prefix: number; family: "ipv4" | "ipv6" } | null {
  const slash = cidr.indexOf("/");
  if (slash < 0) return null;
  const address = cidr.slice(0, slash);
  const prefix = Number(cidr.slice(slash + 1));
  const v = isIP(address);
  if (v === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (v === 4 ? 32 : 128)) return null;
  return { address, prefix, family: v === 4 ? "ipv4" : "ipv6" };
}

/** A set of subnets that answers "is this IP inside one of them". */
export class SubnetSet {
  private list = new BlockList();
  private readonly cidrs: string[] = [];

  constructor(cidrs: readonly string[] = []) {
    for (const c of cidrs) this.add(c);
  }

  add(cidr: string): void {
    const c = parseCidr(cidr);
    if (c === null) throw new PeerBookError(`not a CIDR subnet: ${cidr}`);
    if (this.cidrs.includes(cidr)) return;
    this.cidrs.push(cidr);
    this.list.addSubnet(c.address, c.prefix, c.family);
  }

  remove(cidr: string): void {
    const i = this.cidrs.indexOf(cidr);
    if (i < 0) return;
    this.cidrs.splice(i, 1);
    this.list = new BlockList();
    for (const c of this.cidrs) {
      const p = parseCidr(c)!;
      this.list.addSubnet(p.address, p.prefix, p.family);
    }
  }

  has(ip: string): boolean {
    const v = isIP(ip);
    if (v === 0) return false;
    return this.list.check(ip, v === 4 ? "ipv4" : "ipv6");
  }

  get size(): number {
    return this.cidrs.length;
  }

  values(): string[] {
    return [...this.cidrs];
  }
}

export class PeerBook {
  private readonly subnets: SubnetSet;

  private constructor(
    private readonly file: string | null,
    private readonly book: BookJson,
    private readonly now: () => number,
  ) {
    this.subnets = new SubnetSet(book.blockedSubnets);
  }

  /** Opens the book in `dir` (created if missing); `memory` keeps everything in memory. */
  static open(dir: string, now: () => number = Date.now): PeerBook {
    if (dir === "memory") return new PeerBook(null, emptyBook(), now);
    try {
      mkdirSync(dir, { recursive: true });
    } catch (e) {
      throw new PeerBookError(`--p2p.peerstore.path: cannot create ${dir}: ${(e as Error).message}`);
    }
    const file = join(dir, FILE);
    let book = emptyBook();
    let text: string | null = null;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "ENOENT") {
        throw new PeerBookError(`--p2p.peerstore.path: cannot read ${file}: ${(e as Error).message}`);
      }
    }
    if (text !== null) {
      try {
        const j = JSON.parse(text) as Partial<BookJson>;
        book = {
          ...emptyBook(),
          ...j,
          version: 1,
        };
        if (typeof book.bannedPeers !== "object" || !Array.isArray(book.blockedSubnets)) throw new Error("bad shape");
      } catch (e) {
        throw new PeerBookError(`--p2p.peerstore.path: ${file} is not a peer book: ${(e as Error).message}`);
      }
    }
    return new PeerBook(file, book, now);
  }

  private save(): void {
    if (this.file === null) return;
    const tmp = `${this.file}.tmp`;
    const fd = openSync(tmp, "w", 0o600);
    try {
      writeSync(fd, JSON.stringify(this.book));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.file);
  }

  // --- score bans (expiring) ---

  banPeer(id: string, durationMs: number): void {
    this.book.bannedPeers[id] = this.now() + durationMs;
    this.save();
  }

  banIp(ip: string, durationMs: number): void {
    this.book.bannedIps[ip] = this.now() + durationMs;
    this.save();
  }

  /** When the ban on `id` ends (ms), or null when it is not banned. Expired bans are forgotten. */
  peerBanExpiry(id: string): number | null {
    const until = this.book.bannedPeers[id];
    if (until === undefined) return null;
    if (until <= this.now()) {
      delete this.book.bannedPeers[id];
      this.save();
      return null;
    }
    return until;
  }

  isIpBanned(ip: string): boolean {
    const until = this.book.bannedIps[ip];
    if (until === undefined) return false;
    if (until <= this.now()) {
      delete this.book.bannedIps[ip];
      this.save();
      return false;
    }
    return true;
  }

  bannedPeers(): Record<string, number> {
    const now = this.now();
    return Object.fromEntries(Object.entries(this.book.bannedPeers).filter(([, t]) => t > now));
  }

  bannedIps(): Record<string, number> {
    const now = this.now();
    return Object.fromEntries(Object.entries(this.book.bannedIps).filter(([, t]) => t > now));
  }

  // --- operator blocks (until unblocked) ---

  blockPeer(id: string): void {
    if (!this.book.blockedPeers.includes(id)) this.book.blockedPeers.push(id);
    this.save();
  }

  unblockPeer(id: string): void {
    this.book.blockedPeers = this.book.blockedPeers.filter((p) => p !== id);
    delete this.book.bannedPeers[id];
    this.save();
  }

  blockedPeers(): string[] {
    return [...this.book.blockedPeers];
  }

  blockAddr(ip: string): void {
    if (!this.book.blockedAddrs.includes(ip)) this.book.blockedAddrs.push(ip);
    this.save();
  }

  unblockAddr(ip: string): void {
    this.book.blockedAddrs = this.book.blockedAddrs.filter((a) => a !== ip);
    delete this.book.bannedIps[ip];
    this.save();
  }

  blockedAddrs(): string[] {
    return [...this.book.blockedAddrs];
  }

  blockSubnet(cidr: string): void {
    this.subnets.add(cidr);
    this.book.blockedSubnets = this.subnets.values();
    this.save();
  }

  unblockSubnet(cidr: string): void {
    this.subnets.remove(cidr);
    this.book.blockedSubnets = this.subnets.values();
    this.save();
  }

  blockedSubnets(): string[] {
    return this.subnets.values();
  }

  /** Whether a peer may connect or be dialled: not blocked, not banned. */
  peerAllowed(id: string): boolean {
    return !this.book.blockedPeers.includes(id) && this.peerBanExpiry(id) === null;
  }

  /** Whether an IP may be used: not blocked, not banned, not in a blocked subnet. */
  ipAllowed(ip: string): boolean {
    return !this.book.blockedAddrs.includes(ip) && !this.isIpBanned(ip) && !this.subnets.has(ip);
  }

  // --- the node's key copy ---

  get privateKeyCopy(): string | null {
    return this.book.privateKey ?? null;
  }

  storePrivateKeyCopy(hex: string): void {
    if (this.book.privateKey === hex) return;
    this.book.privateKey = hex;
    this.save();
  }
}
