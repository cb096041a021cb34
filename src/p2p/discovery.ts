/**
 * Peer discovery over discv5 (op-node p2p/discovery.go): the node's record carries its IP, TCP and
 * UDP ports and the `opstack` entry — `uvarint(chainId) ‖ uvarint(version 0)`, stored as an RLP byte
 * string like every ENR value — and discovered records without that entry, of another chain, of
 * another version, without a TCP port or outside `--p2p.netrestrict` are dropped; the rest are
 * reported as libp2p peers (`/ipX/…/tcp/…/p2p/<peer id>`, the same secp256k1 key names both).
 * `--p2p.bootnodes` seeds the table; `--p2p.discovery.path` keeps the records seen (one JSON file
 * in that folder, read back at start as extra seeds; `memory` keeps nothing). A background loop
 * looks up random nodes every 5 s while the node wants peers, else every 20 s.
 *
 * @chainsafe/discv5 11 is the libp2p-2 generation: it takes multiaddr 12 objects (the `multiaddr12`
 * alias) and libp2p-2 keys. They stay inside this module; its API is strings and bytes.
 */
import { EventEmitter } from "node:events";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import { join } from "node:path";
import type { Logger } from "../util/log.js";

export class DiscoveryError extends Error {
  override readonly name = "DiscoveryError";
}

export interface DiscoveredPeer {
  readonly peerId: string;
  readonly multiaddr: string;
  readonly enr: string;
}

export interface DiscoveryOptions {
  /** The 32-byte secp256k1 network key (shared with libp2p). */
  readonly privateKey: Uint8Array;
  readonly chainId: bigint;
  readonly listenIp: string;
  /** The UDP port to bind (the caller resolves `--p2p.listen.udp` 0 to the TCP port). */
  readonly udpPort: number;
  /** The libp2p TCP port for the record. */
  readonly tcpPort: number;
  readonly advertiseIp?: string;
  readonly advertiseTcp?: number;
  readonly advertiseUdp?: number;
  readonly bootnodes: readonly string[];
  readonly dbPath: string;
  readonly netrestrict?: (ip: string) => boolean;
  readonly log?: Logger;
  /** Whether the node wants more peers (fast lookups then). */
  readonly wantMore?: () => boolean;
}

const FAST_MS = 5_000;
const SLOW_MS = 20_000;
const DB_FILE = "opal_discovery.json";
const MAX_DB_RECORDS = 1000;

function putUvarint(out: number[], v: bigint): void {
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
}

/** The `opstack` ENR value: `uvarint(chainId) ‖ uvarint(0)`. */
export function opstackEnrValue(chainId: bigint): Uint8Array {
  const out: number[] = [];
  putUvarint(out, chainId);
  putUvarint(out, 0n);
  return new Uint8Array(out);
}

/** Reads an `opstack` value; null when malformed. */
export function parseOpstackEnrValue(b: Uint8Array): { chainId: bigint; version: number } | null {
  const vals: bigint[] = [];
  let i = 0;
  for (let k = 0; k < 2; k++) {
    let v = 0n;
    let shift = 0n;
    for (;;) {
      if (i >= b.length || shift > 63n) return null;
      const c = b[i++]!;
      v |= BigInt(c & 0x7f) << shift;
      shift += 7n;
      if ((c & 0x80) === 0) break;
    }
    vals.push(v);
  }
  if (i !== b.length) return null;
  return { chainId: vals[0]!, version: Number(vals[1]!) };
}

type Enr = {
  encodeTxt(): string;
  nodeId: string;
  ip?: string | undefined;
  ip6?: string | undefined;
  tcp?: number | undefined;
  tcp6?: number | undefined;
  udp?: number | undefined;
  kvs: ReadonlyMap<string, Uint8Array>;
  peerId: { toString(): string };
};

interface Discv5Like {
  start(): Promise<void>;
  stop(): Promise<void>;
  addEnr(enr: string): void;
  kadValues(): Enr[];
  findRandomNode(): Promise<Enr[]>;
  enr: Enr;
  on(ev: "discovered", fn: (enr: Enr) => void): void;
}

export class Discovery {
  private readonly listeners: ((p: DiscoveredPeer) => void)[] = [];
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly reported = new Set<string>();
  private lookingUp = false;

  private constructor(
    private readonly d: Discv5Like,
    private readonly opts: DiscoveryOptions,
    private readonly dbFile: string | null,
  ) {}

  static async start(opts: DiscoveryOptions): Promise<Discovery> {
    const [{ Discv5 }, { SignableENR, ENR }, { multiaddr }, { privateKeyFromRaw }] = await Promise.all([
      import("@chainsafe/discv5"),
      import("@chainsafe/enr"),
      import("multiaddr12"),
      import("@libp2p/crypto/keys"),
    ]);
    const seeds: string[] = [];
    for (const b of opts.bootnodes) {
      try {
        ENR.decodeTxt(b);
      } catch (e) {
        throw new DiscoveryError(`--p2p.bootnodes: not a node record: ${b.slice(0, 40)}…: ${(e as Error).message}`);
      }
      seeds.push(b);
    }
    let dbFile: string | null = null;
    if (opts.dbPath !== "memory") {
      try {
        mkdirSync(opts.dbPath, { recursive: true });
      } catch (e) {
        throw new DiscoveryError(`--p2p.discovery.path: cannot create ${opts.dbPath}: ${(e as Error).message}`);
      }
      dbFile = join(opts.dbPath, DB_FILE);
      try {
        const saved = JSON.parse(readFileSync(dbFile, "utf8")) as unknown;
        if (Array.isArray(saved)) for (const s of saved) if (typeof s === "string") seeds.push(s);
      } catch {
        // No records yet (or a damaged file, which the next save replaces).
      }
    }
    const key = privateKeyFromRaw(opts.privateKey);
    const enr = SignableENR.createFromPrivateKey(key as never);
    enr.set("opstack", opstackEnrValue(opts.chainId));
    const ip = opts.advertiseIp ?? opts.listenIp;
    const v6 = ip.includes(":");
    if (isIP(ip) !== 0 && ip !== "0.0.0.0" && ip !== "::") {
      enr.setLocationMultiaddr(
        multiaddr(`/${v6 ? "ip6" : "ip4"}/${ip}/udp/${opts.advertiseUdp || opts.udpPort}`) as never,
      );
      enr.setLocationMultiaddr(
        multiaddr(`/${v6 ? "ip6" : "ip4"}/${ip}/tcp/${opts.advertiseTcp || opts.tcpPort}`) as never,
      );
    } else {
      enr.set(v6 ? "udp6" : "udp", portBytes(opts.advertiseUdp || opts.udpPort));
      enr.set(v6 ? "tcp6" : "tcp", portBytes(opts.advertiseTcp || opts.tcpPort));
    }
    const bind = multiaddr(`/${opts.listenIp.includes(":") ? "ip6" : "ip4"}/${opts.listenIp}/udp/${opts.udpPort}`);
    let d: Discv5Like;
    try {
      const created = Discv5.create({
        enr,
        privateKey: key as never,
        bindAddrs: opts.listenIp.includes(":") ? { ip6: bind } : { ip4: bind },
        config: { enrUpdate: !opts.advertiseIp, lookupTimeout: 5000 },
      } as never);
      // Discv5 extends node's EventEmitter, but its typings reach that base through
      // strict-event-emitter-types, whose default export does not resolve under NodeNext, so `on`
      // is missing from the type; checked here instead of asserted.
      if (!(created instanceof EventEmitter)) throw new Error("@chainsafe/discv5 service is not an EventEmitter");
      d = created;
      await d.start();
    } catch (e) {
      throw new DiscoveryError(`cannot start discv5 on UDP ${opts.listenIp}:${opts.udpPort}: ${(e as Error).message}`);
    }
    const disc = new Discovery(d, opts, dbFile);
    d.on("discovered", (r) => disc.consider(r));
    for (const s of seeds) {
      try {
        d.addEnr(s);
      } catch (e) {
        opts.log?.debug("discovery: skipping a seed record", { err: (e as Error).message });
      }
    }
    for (const r of d.kadValues()) disc.consider(r);
    disc.schedule(0);
    return disc;
  }

  onPeer(fn: (p: DiscoveredPeer) => void): void {
    this.listeners.push(fn);
    // Records already in the table count as discovered for a late listener.
    for (const r of this.d.kadValues()) {
      const p = this.peerOf(r);
      if (p !== null) fn(p);
    }
  }

  localEnr(): string {
    return this.d.enr.encodeTxt();
  }

  nodeId(): string {
    return this.d.enr.nodeId;
  }

  /** The routing table (opp2p_discoveryTable). */
  table(): { enr: string; nodeId: string; ip?: string; tcp?: number; udp?: number }[] {
    return this.d.kadValues().map((r) => ({
      enr: r.encodeTxt(),
      nodeId: r.nodeId,
      ...(r.ip === undefined ? {} : { ip: r.ip }),
      ...(r.tcp === undefined ? {} : { tcp: r.tcp }),
      ...(r.udp === undefined ? {} : { udp: r.udp }),
    }));
  }

  /** One random lookup; reports what it finds. */
  async findPeers(): Promise<number> {
    if (this.lookingUp || this.stopped) return 0;
    this.lookingUp = true;
    try {
      const found = await this.d.findRandomNode();
      let n = 0;
      for (const r of found) if (this.consider(r)) n++;
      for (const r of this.d.kadValues()) this.consider(r);
      return n;
    } catch (e) {
      this.opts.log?.debug("discovery lookup failed", { err: (e as Error).message });
      return 0;
    } finally {
      this.lookingUp = false;
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(async () => {
      await this.findPeers();
      this.save();
      this.schedule(this.opts.wantMore === undefined || this.opts.wantMore() ? FAST_MS : SLOW_MS);
    }, ms);
    this.timer.unref();
  }

  /** The libp2p view of a record, or null when it is not an OP peer of this chain we may dial. */
  private peerOf(r: Enr): DiscoveredPeer | null {
    const v = r.kvs.get("opstack");
    if (v === undefined) return null;
    const o = parseOpstackEnrValue(v);
    if (o === null || o.chainId !== this.opts.chainId || o.version !== 0) return null;
    const ip = r.ip ?? r.ip6;
    const tcp = r.ip !== undefined ? r.tcp : r.tcp6;
    if (ip === undefined || tcp === undefined || tcp === 0) return null;
    if (this.opts.netrestrict !== undefined && !this.opts.netrestrict(ip)) return null;
    const peerId = r.peerId.toString();
    return {
      peerId,
      multiaddr: `/${r.ip !== undefined ? "ip4" : "ip6"}/${ip}/tcp/${tcp}/p2p/${peerId}`,
      enr: r.encodeTxt(),
    };
  }

  private consider(r: Enr): boolean {
    if (r.nodeId === this.d.enr.nodeId) return false;
    const p = this.peerOf(r);
    if (p === null) return false;
    const fresh = !this.reported.has(p.multiaddr);
    this.reported.add(p.multiaddr);
    for (const l of this.listeners) l(p);
    return fresh;
  }

  /** Writes the table (OP peers only) to the discovery db; atomic replace. */
  private save(): void {
    if (this.dbFile === null) return;
    const records = this.d
      .kadValues()
      .filter((r) => this.peerOf(r) !== null)
      .slice(0, MAX_DB_RECORDS)
      .map((r) => r.encodeTxt());
    try {
      writeFileSync(`${this.dbFile}.tmp`, JSON.stringify(records));
      renameSync(`${this.dbFile}.tmp`, this.dbFile);
    } catch (e) {
      this.opts.log?.warn("cannot save the discovery db", { err: (e as Error).message });
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.save();
    await this.d.stop();
  }
}

function portBytes(p: number): Uint8Array {
  return p < 256 ? new Uint8Array([p]) : new Uint8Array([p >>> 8, p & 0xff]);
}
