/**
 * Node discovery v4 over UDP (devp2p discv4.md, EIP-868), after geth's p2p/discover/v4_udp.go:
 * ping/pong with the endpoint proof (a sender may query us only after answering our ping within
 * 24 h, and we ping back a pinger we have no proof for), findnode answered with the 16 closest
 * nodes in Neighbors packets of 12, ENRRequest/ENRResponse, recursive lookups with alpha 3,
 * revalidation of the least recently seen node of a random bucket every 10 s, a refresh lookup
 * every 30 min. Every incoming datagram passes a per-IP token bucket, the size limit and the
 * decoder; what fails is counted by reason and dropped, never thrown.
 */

import { randomBytes } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { equalBytes } from "../../primitives/bytes.js";
import type { RlpInput } from "../../rlp/encode.js";
import { type Logger, SILENT_LOGGER } from "../../util/log.js";
import type { NodeAddr } from "./enode.js";
import { Enr } from "./enr.js";
import { ipFromBytes, ipToBytes, isLanIp, type Netlist } from "./ip.js";
import { BUCKET_SIZE, compareDistance, KademliaTable, type TableEntry } from "./kademliaTable.js";
import { isValidPublicKey, type NodeKey, nodeIdOf } from "./nodeKey.js";
import {
  decodePacket,
  type Endpoint,
  encodePacket,
  MAX_PACKET_SIZE,
  PacketType,
  type V4Packet,
  type WireNode,
} from "./v4wire.js";

/** SPEC: geth v4_udp.go: respTimeout 500 ms, expiration 20 s, bondExpiration 24 h, maxFindnodeFailures 5. */
const RESP_TIMEOUT_MS = 500;
const EXPIRATION_S = 20;
const BOND_EXPIRATION_MS = 24 * 3600 * 1000;
const MAX_FINDNODE_FAILURES = 5;
/** SPEC: discv4.md lookups: alpha = 3. */
export const ALPHA = 3;
/** SPEC: geth v4wire: 12 nodes fill a Neighbors packet with IPv6 endpoints below 1280 bytes. */
const MAX_NEIGHBORS = 12;
/** SPEC: geth table.go (pre-1.14) revalidateInterval 10 s, refreshInterval 30 min. */
const REVALIDATE_MS = 10_000;
const REFRESH_MS = 30 * 60_000;
/**
 * Incoming rate: each source IP gets a bucket of 200 packets refilled at 100/s. Chosen here (geth
 * v4 has no per-IP limit): a lookup draws at most 2 Neighbors per findnode and a revalidation one
 * pong, so a well-behaved peer stays far below; a flood from one address costs one map lookup per
 * datagram. At most 10,000 addresses are tracked; the map is cleared past that.
 */
const RATE_PER_S = 100;
const RATE_BURST = 200;
const MAX_TRACKED_IPS = 10_000;
/** Outstanding replies we wait for at once (pings, findnodes, ENR requests): bounds memory under load. */
const MAX_PENDING = 512;

export interface Discv4Options {
  readonly key: NodeKey;
  /** Address to bind (default 0.0.0.0). */
  readonly bindIp?: string;
  /** UDP port to bind; 0 picks one (see `localPort`). */
  readonly udpPort: number;
  /** The RLPx TCP port announced in pings and the record (default: the UDP port). */
  readonly tcpPort?: number;
  /** The IP announced in the record (`--nat extip:`); default: the bind address when concrete. */
  readonly advertiseIp?: string;
  readonly bootnodes?: readonly NodeAddr[];
  readonly netrestrict?: Netlist | null;
  /** Extra ENR entries (the `eth` fork id). */
  readonly enrEntries?: ReadonlyMap<string, RlpInput>;
  readonly log?: Logger;
  /** Milliseconds clock (tests). */
  readonly now?: () => number;
  /** Revalidation and refresh timers (default on). */
  readonly background?: boolean;
}

export interface Transport {
  send(datagram: Uint8Array, ip: string, port: number): void;
}

interface Pending {
  readonly from: string;
  readonly type: number;
  readonly deadline: number;
  /** 0: not ours; 1: ours, more to come; 2: ours and the request is complete (geth replyMatchFunc). */
  readonly onPacket: (p: V4Packet, hash: Uint8Array) => 0 | 1 | 2;
  readonly done: (ok: boolean) => void;
}

interface Bond {
  lastPong: number;
  lastPing: number;
  findnodeFailures: number;
}

/** Discovered node: address plus its record when fetched. */
export interface V4Node {
  readonly node: NodeAddr;
  readonly enr: Enr | null;
}

export class Discv4 {
  readonly table: KademliaTable;
  private record: Enr;
  private readonly entries: Map<string, RlpInput>;
  private readonly pending: Pending[] = [];
  private readonly bonds = new Map<string, Bond>();
  private readonly rate = new Map<string, { tokens: number; at: number }>();
  private readonly counters = new Map<string, number>();
  private readonly nodeListeners: ((n: V4Node) => void)[] = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly log: Logger;
  private readonly now: () => number;
  private stopped = false;
  private socket: Socket | null = null;
  private transport: Transport;
  private boundPort = 0;
  private enrFetches = 0;

  constructor(
    private readonly opts: Discv4Options,
    transport?: Transport,
  ) {
    this.log = opts.log ?? SILENT_LOGGER;
    this.now = opts.now ?? Date.now;
    this.table = new KademliaTable(opts.key.id);
    this.entries = new Map(opts.enrEntries ?? []);
    this.transport = transport ?? { send: () => undefined };
    this.boundPort = opts.udpPort;
    // SPEC: geth enode.LocalNode starts the sequence at the current time in ms when it has no db,
    // so a restarted node's record always supersedes the old one.
    this.record = this.signRecord(BigInt(this.now()));
  }

  /** Binds the UDP socket and starts bonding with the bootnodes. */
  static async start(opts: Discv4Options): Promise<Discv4> {
    const d = new Discv4(opts);
    const bind = opts.bindIp ?? "0.0.0.0";
    const sock = createSocket({ type: bind.includes(":") ? "udp6" : "udp4", reuseAddr: false });
    await new Promise<void>((resolve, reject) => {
      sock.once("error", reject);
      sock.bind(opts.udpPort, bind, () => {
        sock.off("error", reject);
        resolve();
      });
    });
    d.attach(sock);
    d.startBackground();
    return d;
  }

  private attach(sock: Socket): void {
    this.socket = sock;
    this.boundPort = sock.address().port;
    this.record = this.signRecord(this.record.seq);
    this.transport = {
      send: (datagram, ip, port) => {
        if (this.stopped) return;
        sock.send(datagram, port, ip, (err) => {
          if (err) this.count("send_error");
        });
      },
    };
    sock.on("message", (msg, rinfo) => {
      this.handle(new Uint8Array(msg.buffer, msg.byteOffset, msg.length), rinfo.address, rinfo.port);
    });
    sock.on("error", (err) => this.log.debug("discv4 socket error", { err: err.message }));
  }

  /** Bonds with the bootnodes, looks ourselves up, and schedules revalidation and refresh. */
  startBackground(): void {
    if (this.opts.background === false) {
      void this.bootstrap();
      return;
    }
    void this.bootstrap().then(() => this.lookup(this.opts.key.publicKey));
    const reval = setInterval(() => void this.revalidate(), REVALIDATE_MS);
    const refresh = setInterval(() => void this.lookup(randomBytes(64)), REFRESH_MS);
    reval.unref();
    refresh.unref();
    this.timers.push(reval, refresh);
  }

  /** The UDP port actually bound. */
  get localPort(): number {
    return this.boundPort;
  }

  get localRecord(): Enr {
    return this.record;
  }

  /** Replaces (or adds) a record entry, e.g. the `eth` fork id after a fork; bumps the sequence. */
  setEnrEntry(key: string, value: RlpInput): void {
    this.entries.set(key, value);
    this.record = this.signRecord(this.record.seq + 1n);
  }

  /** Counters of dropped and handled packets by reason (`drop_bad_hash`, `rate_limited`, …). */
  stats(): Record<string, number> {
    return Object.fromEntries(this.counters);
  }

  /** Called for each node that answered a ping and whose record arrived (or failed: `enr` null). */
  onNode(fn: (n: V4Node) => void): void {
    this.nodeListeners.push(fn);
  }

  private signRecord(seq: bigint): Enr {
    const e = new Map(this.entries);
    const ip = this.opts.advertiseIp ?? this.opts.bindIp;
    const ipb = ip === undefined ? null : ipToBytes(ip);
    if (ipb !== null && !ipb.every((b) => b === 0)) e.set(ipb.length === 4 ? "ip" : "ip6", ipb);
    const v6 = ipb !== null && ipb.length === 16;
    e.set(v6 ? "udp6" : "udp", portBytes(this.boundPort));
    e.set(v6 ? "tcp6" : "tcp", portBytes(this.opts.tcpPort ?? this.boundPort));
    return Enr.sign(this.opts.key, seq, e);
  }

  private count(what: string): void {
    this.counters.set(what, (this.counters.get(what) ?? 0) + 1);
  }

  private allowedIp(ip: Uint8Array): boolean {
    const r = this.opts.netrestrict;
    return r === undefined || r === null || r.contains(ip);
  }

  private rateAllows(ip: string): boolean {
    const now = this.now();
    let b = this.rate.get(ip);
    if (b === undefined) {
      if (this.rate.size >= MAX_TRACKED_IPS) this.rate.clear();
      b = { tokens: RATE_BURST, at: now };
      this.rate.set(ip, b);
    }
    b.tokens = Math.min(RATE_BURST, b.tokens + ((now - b.at) * RATE_PER_S) / 1000);
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  private bond(id: Uint8Array): Bond {
    const k = KademliaTable.key(id);
    let b = this.bonds.get(k);
    if (b === undefined) {
      if (this.bonds.size >= 50_000) this.bonds.clear();
      b = { lastPong: 0, lastPing: 0, findnodeFailures: 0 };
      this.bonds.set(k, b);
    }
    return b;
  }

  private expiration(): number {
    return Math.floor(this.now() / 1000) + EXPIRATION_S;
  }

  private send(p: V4Packet, ip: string, port: number): Uint8Array {
    const { datagram, hash } = encodePacket(p, this.opts.key.privateKey);
    this.transport.send(datagram, ip, port);
    return hash;
  }

  /** Entry point for one datagram; never throws. */
  handle(buf: Uint8Array, fromIp: string, fromPort: number): void {
    try {
      this.handleUnsafe(buf, fromIp, fromPort);
    } catch (e) {
      // A bug, not an attack: counted and logged, the datagram dropped.
      this.count("drop_internal");
      this.log.debug("discv4: packet handler failed", { err: (e as Error).message });
    }
  }

  private handleUnsafe(buf: Uint8Array, fromIp: string, fromPort: number): void {
    if (this.stopped) return;
    if (!this.rateAllows(fromIp)) {
      this.count("rate_limited");
      return;
    }
    if (buf.length > MAX_PACKET_SIZE) {
      this.count("drop_too_large");
      return;
    }
    const ipb = ipToBytes(fromIp);
    if (ipb === null || !this.allowedIp(ipb)) {
      this.count("drop_netrestrict");
      return;
    }
    const d = decodePacket(buf);
    if (typeof d === "string") {
      this.count(`drop_${d}`);
      return;
    }
    const p = d.packet;
    if (p.type !== PacketType.EnrResponse && p.expiration < Math.floor(this.now() / 1000)) {
      this.count("drop_expired");
      return;
    }
    const id = nodeIdOf(d.publicKey);
    if (equalBytes(id, this.opts.key.id)) {
      this.count("drop_self");
      return;
    }
    this.count(`recv_${p.type}`);
    const from: NodeAddr = { publicKey: d.publicKey, id, ip: ipb, udpPort: fromPort, tcpPort: 0 };
    switch (p.type) {
      case PacketType.Ping:
        this.onPing(p, d.hash, { ...from, tcpPort: p.from.tcp }, fromIp);
        return;
      case PacketType.Findnode:
        this.onFindnode(p.target, from, fromIp);
        return;
      case PacketType.EnrRequest:
        this.onEnrRequest(d.hash, from, fromIp);
        return;
      default:
        if (!this.matchReply(KademliaTable.key(id), p, d.hash)) this.count("drop_unsolicited");
    }
  }

  private onPing(p: Extract<V4Packet, { type: 1 }>, hash: Uint8Array, n: NodeAddr, fromIp: string): void {
    const to: Endpoint = { ip: n.ip, udp: n.udpPort, tcp: n.tcpPort };
    this.send(
      { type: PacketType.Pong, to, pingHash: hash, expiration: this.expiration(), enrSeq: this.record.seq },
      fromIp,
      n.udpPort,
    );
    const b = this.bond(n.id);
    b.lastPing = this.now();
    // SPEC: discv4.md: with no recent proof from the pinger, ping back; add it once it answers.
    if (this.now() - b.lastPong > BOND_EXPIRATION_MS) {
      void this.ping(n).then((ok) => {
        if (ok) this.verified(n, p.enrSeq);
      });
    } else {
      this.verified(n, p.enrSeq);
    }
  }

  private verified(n: NodeAddr, enrSeq: bigint | null): void {
    const e = this.table.addVerified(n, this.now());
    if (e === null) return;
    if (e.enr === null || (enrSeq !== null && enrSeq > e.enr.seq)) void this.fetchEnr(e);
  }

  private onFindnode(target: Uint8Array, from: NodeAddr, fromIp: string): void {
    // SPEC: discv4.md: Neighbors only to senders that passed the endpoint proof.
    if (this.now() - this.bond(from.id).lastPong > BOND_EXPIRATION_MS) {
      this.count("drop_unbonded");
      return;
    }
    const t = nodeIdOf(target);
    const fromLan = isLanIp(from.ip);
    // SPEC: geth netutil.CheckRelayIP: LAN addresses are not relayed to internet hosts.
    const closest = this.table.closest(t, BUCKET_SIZE, (e) => fromLan || !isLanIp(e.node.ip));
    const nodes: WireNode[] = closest.map((e) => ({
      ip: e.node.ip,
      udp: e.node.udpPort,
      tcp: e.node.tcpPort,
      id: e.node.publicKey,
    }));
    for (let i = 0; i < nodes.length || i === 0; i += MAX_NEIGHBORS) {
      this.send(
        { type: PacketType.Neighbors, nodes: nodes.slice(i, i + MAX_NEIGHBORS), expiration: this.expiration() },
        fromIp,
        from.udpPort,
      );
      if (nodes.length === 0) break;
    }
  }

  private onEnrRequest(hash: Uint8Array, from: NodeAddr, fromIp: string): void {
    if (this.now() - this.bond(from.id).lastPong > BOND_EXPIRATION_MS) {
      this.count("drop_unbonded");
      return;
    }
    this.send({ type: PacketType.EnrResponse, requestHash: hash, record: this.record }, fromIp, from.udpPort);
  }

  private matchReply(from: string, p: V4Packet, hash: Uint8Array): boolean {
    const now = this.now();
    let matched = false;
    for (let i = 0; i < this.pending.length; i++) {
      const r = this.pending[i]!;
      if (r.deadline < now) {
        this.pending.splice(i--, 1);
        r.done(false);
        continue;
      }
      if (r.from !== from || r.type !== p.type) continue;
      const m = r.onPacket(p, hash);
      if (m === 0) continue;
      matched = true;
      if (m === 2) {
        this.pending.splice(i--, 1);
        r.done(true);
      }
      break;
    }
    return matched;
  }

  private expect(
    from: Uint8Array,
    type: number,
    onPacket: (p: V4Packet, hash: Uint8Array) => 0 | 1 | 2,
    timeoutMs = RESP_TIMEOUT_MS,
  ): Promise<boolean> | null {
    if (this.pending.length >= MAX_PENDING) {
      this.count("pending_full");
      return null;
    }
    return new Promise((resolve) => {
      const r: Pending = {
        from: KademliaTable.key(from),
        type,
        deadline: this.now() + timeoutMs,
        onPacket,
        done: resolve,
      };
      this.pending.push(r);
      const t = setTimeout(() => {
        const i = this.pending.indexOf(r);
        if (i >= 0) {
          this.pending.splice(i, 1);
          resolve(false);
        }
      }, timeoutMs);
      t.unref();
    });
  }

  /** Pings a node; resolves true when the matching pong arrives (and records the endpoint proof). */
  async ping(n: NodeAddr): Promise<boolean> {
    const ip = ipFromBytes(n.ip);
    if (ip === null || this.stopped) return false;
    const { datagram, hash } = encodePacket(
      {
        type: PacketType.Ping,
        version: 4,
        from: {
          ip: ipToBytes(this.opts.advertiseIp ?? "0.0.0.0") ?? new Uint8Array(4),
          udp: this.boundPort,
          tcp: this.opts.tcpPort ?? this.boundPort,
        },
        to: { ip: n.ip, udp: n.udpPort, tcp: 0 },
        expiration: this.expiration(),
        enrSeq: this.record.seq,
      },
      this.opts.key.privateKey,
    );
    let seq: bigint | null = null;
    const wait = this.expect(n.id, PacketType.Pong, (p) => {
      if (p.type !== PacketType.Pong || !equalBytes(p.pingHash, hash)) return 0;
      seq = p.enrSeq;
      return 2;
    });
    if (wait === null) return false;
    this.transport.send(datagram, ip, n.udpPort);
    const ok = await wait;
    if (ok) {
      this.bond(n.id).lastPong = this.now();
      const e = this.table.get(n.id);
      if (e !== undefined && seq !== null && (e.enr === null || seq > e.enr.seq)) void this.fetchEnr(e);
    }
    return ok;
  }

  /** Requests a node's record (EIP-868); emits the node to listeners either way. */
  async requestEnr(n: NodeAddr): Promise<Enr | null> {
    const ip = ipFromBytes(n.ip);
    if (ip === null) return null;
    const { datagram, hash } = encodePacket(
      { type: PacketType.EnrRequest, expiration: this.expiration() },
      this.opts.key.privateKey,
    );
    let rec: Enr | null = null;
    const wait = this.expect(n.id, PacketType.EnrResponse, (p) => {
      if (p.type !== PacketType.EnrResponse || !equalBytes(p.requestHash, hash)) return 0;
      // SPEC: discv4.md: the record must be signed by the key that signed the response.
      if (p.record !== null && equalBytes(p.record.publicKey, n.publicKey)) rec = p.record;
      return 2;
    });
    if (wait === null) return null;
    this.transport.send(datagram, ip, n.udpPort);
    await wait;
    return rec;
  }

  private async fetchEnr(e: TableEntry): Promise<void> {
    // A handful at once: records are only needed for the fork-id filter.
    if (this.enrFetches >= 16) return;
    this.enrFetches++;
    try {
      const rec = await this.requestEnr(e.node);
      if (rec !== null && (e.enr === null || rec.seq > e.enr.seq)) e.enr = rec;
      if (this.table.get(e.node.id) === e) for (const l of this.nodeListeners) l({ node: e.node, enr: e.enr });
    } finally {
      this.enrFetches--;
    }
  }

  /**
   * Makes sure `n` holds a proof of us before we query it (geth ensureBond): without a ping from it
   * within 24 h, ping it and give it time to ping back.
   */
  private async ensureBond(n: NodeAddr): Promise<boolean> {
    const b = this.bond(n.id);
    if (this.now() - b.lastPing <= BOND_EXPIRATION_MS && b.findnodeFailures <= MAX_FINDNODE_FAILURES) return true;
    const ok = await this.ping(n);
    if (!ok) return false;
    await new Promise((r) => setTimeout(r, RESP_TIMEOUT_MS).unref());
    return true;
  }

  /** Asks `n` for nodes close to `target` (64-byte key); returns what it sent within the timeout. */
  async findnode(n: NodeAddr, target: Uint8Array): Promise<NodeAddr[]> {
    const ip = ipFromBytes(n.ip);
    if (ip === null || !(await this.ensureBond(n))) return [];
    const got: NodeAddr[] = [];
    let received = 0;
    const wait = this.expect(n.id, PacketType.Neighbors, (p) => {
      if (p.type !== PacketType.Neighbors) return 0;
      for (const w of p.nodes) {
        received++;
        const a = this.wireToAddr(w);
        if (a !== null) got.push(a);
      }
      return received >= BUCKET_SIZE ? 2 : 1;
    });
    if (wait === null) return [];
    this.send({ type: PacketType.Findnode, target, expiration: this.expiration() }, ip, n.udpPort);
    const complete = await wait;
    const b = this.bond(n.id);
    if (!complete && got.length === 0) {
      b.findnodeFailures++;
      if (b.findnodeFailures >= MAX_FINDNODE_FAILURES) this.table.remove(n.id);
    } else {
      b.findnodeFailures = 0;
    }
    return got;
  }

  private wireToAddr(w: WireNode): NodeAddr | null {
    if ((w.ip.length !== 4 && w.ip.length !== 16) || w.udp === 0) return null;
    if (w.ip.every((b) => b === 0) || !this.allowedIp(w.ip)) return null;
    if (!isValidPublicKey(w.id)) return null;
    return { publicKey: w.id, id: nodeIdOf(w.id), ip: w.ip, udpPort: w.udp, tcpPort: w.tcp };
  }

  /**
   * Recursive lookup (discv4.md): query the alpha closest unqueried nodes of the k closest seen,
   * until every one of those has been asked. Returns the k closest found.
   */
  async lookup(target: Uint8Array): Promise<NodeAddr[]> {
    const tid = nodeIdOf(target);
    const seen = new Map<string, NodeAddr>();
    const asked = new Set<string>([KademliaTable.key(this.opts.key.id)]);
    for (const e of this.table.closest(tid, BUCKET_SIZE)) seen.set(KademliaTable.key(e.node.id), e.node);
    const closest = (): NodeAddr[] =>
      [...seen.values()].sort((a, b) => compareDistance(tid, a.id, b.id)).slice(0, BUCKET_SIZE);
    let inflight = 0;
    await new Promise<void>((resolve) => {
      const step = (): void => {
        if (this.stopped) {
          resolve();
          return;
        }
        for (const n of closest()) {
          if (inflight >= ALPHA) break;
          const k = KademliaTable.key(n.id);
          if (asked.has(k)) continue;
          asked.add(k);
          inflight++;
          void this.findnode(n, target).then((found) => {
            inflight--;
            for (const f of found) {
              const fk = KademliaTable.key(f.id);
              if (!seen.has(fk) && !equalBytes(f.id, this.opts.key.id)) {
                seen.set(fk, f);
                this.table.addSeen(f, this.now());
              }
            }
            step();
          });
        }
        if (inflight === 0) resolve();
      };
      step();
    });
    return closest();
  }

  private async bootstrap(): Promise<void> {
    await Promise.all(
      (this.opts.bootnodes ?? []).map(async (b) => {
        if (await this.ping(b)) this.verified(b, null);
      }),
    );
  }

  /** One revalidation round: ping the least recently seen node of a random bucket. */
  async revalidate(): Promise<void> {
    const e = this.table.revalidationCandidate();
    if (e === null) return;
    if (await this.ping(e.node)) this.table.bump(e.node.id);
    else this.table.remove(e.node.id);
  }

  /** Known nodes in random order (geth RandomNodes, without the background lookups). */
  randomNodes(): V4Node[] {
    const all = this.table.entries().map((e) => ({ node: e.node, enr: e.enr }));
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    return all;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const t of this.timers) clearInterval(t);
    for (const r of this.pending.splice(0)) r.done(false);
    const s = this.socket;
    if (s !== null) await new Promise<void>((r) => s.close(() => r()));
  }
}

function portBytes(p: number): Uint8Array {
  return p === 0 ? new Uint8Array(0) : p < 256 ? Uint8Array.of(p) : Uint8Array.of(p >>> 8, p & 0xff);
}
