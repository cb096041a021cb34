/**
 * The execution layer's discovery facade: discv4 (discv4.ts) and/or discv5 (discv5.ts) under one
 * API. Bootnodes are enode URLs (discv4) or `enr:` records (both); candidates are reported once
 * their record shows an `eth` entry whose fork id passes the EIP-2124 filter (forkFilter.ts), as
 * geth's eth.NewNodeFilter does, and their address passes `netrestrict`. A background loop runs
 * random lookups every 5 s while `wantMore()` says the node wants peers, else every 30 s.
 * Plain option objects: the CLI flags (--bootnodes, --discovery.port, --nodiscover, …) map onto them.
 */

import { randomBytes } from "node:crypto";
import type { ForkId } from "../../spec/forkId.js";
import { type Logger, SILENT_LOGGER } from "../../util/log.js";
import { Discv4 } from "./discv4.js";
import { Discv5 } from "./discv5.js";
import { type NodeAddr, parseEnode } from "./enode.js";
import { Enr } from "./enr.js";
import { ETH_ENR_KEY, ethEntryValue, parseEthEntry } from "./ethEntry.js";
import { ForkCheck, type ForkFilter } from "./forkFilter.js";
import { ipToBytes, Netlist } from "./ip.js";
import type { NodeKey } from "./nodeKey.js";

export class DiscoveryError extends Error {
  override readonly name = "DiscoveryError";
}

/** A dial candidate. */
export interface PeerCandidate {
  /** keccak256(pubkey), hex without 0x. */
  readonly id: string;
  readonly ip: string;
  readonly tcpPort: number;
  /** 64-byte public key. */
  readonly pubkey: Uint8Array;
  readonly enr?: string;
}

export interface DiscoveryOptions {
  readonly key: NodeKey;
  /** UDP port of discv4 (geth --discovery.port); 0 picks one. */
  readonly udpPort: number;
  /** UDP port of discv5 (default: udpPort + 1 when v4 runs too, else udpPort); see discv5.ts. */
  readonly v5UdpPort?: number;
  /** RLPx TCP port announced in records (geth --port). */
  readonly tcpPort: number;
  readonly bindIp?: string;
  /** The announced IP (--nat extip:…). */
  readonly advertiseIp?: string;
  /** enode URLs and/or enr: records. */
  readonly bootnodes: readonly string[];
  /** CIDR list (--netrestrict), as text or parsed. */
  readonly netrestrict?: string | Netlist | null;
  readonly v4: boolean;
  readonly v5: boolean;
  /** The chain's fork id for our record, and the filter for others'; null: no `eth` entry, no filtering. */
  readonly fork?: { readonly id: ForkId; readonly filter: ForkFilter } | null;
  readonly wantMore?: () => boolean;
  readonly log?: Logger;
}

const FAST_MS = 5_000;
const SLOW_MS = 30_000;

export class Discovery {
  private readonly listeners: ((p: PeerCandidate) => void)[] = [];
  private readonly known = new Map<string, PeerCandidate>();
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private looking = false;
  private readonly counters = { filteredFork: 0, filteredNoEth: 0, filteredNet: 0 };

  private constructor(
    private readonly opts: DiscoveryOptions,
    private readonly netlist: Netlist | null,
    readonly v4: Discv4 | null,
    readonly v5: Discv5 | null,
    private readonly log: Logger,
  ) {}

  static async start(opts: DiscoveryOptions): Promise<Discovery> {
    const log = opts.log ?? SILENT_LOGGER;
    let netlist: Netlist | null = null;
    try {
      netlist = typeof opts.netrestrict === "string" ? Netlist.parse(opts.netrestrict) : (opts.netrestrict ?? null);
    } catch (e) {
      throw new DiscoveryError(`netrestrict: ${(e as Error).message}`);
    }
    const enodes: NodeAddr[] = [];
    const enrs: string[] = [];
    for (const b of opts.bootnodes) {
      const s = b.trim();
      if (s === "") continue;
      try {
        if (s.startsWith("enr:")) {
          const r = Enr.decodeTxt(s);
          enrs.push(s);
          const a = addrOfRecord(r);
          if (a !== null) enodes.push(a);
        } else {
          enodes.push(parseEnode(s));
        }
      } catch (e) {
        throw new DiscoveryError(`bootnode ${s.slice(0, 48)}…: ${(e as Error).message}`);
      }
    }
    const entries = new Map<string, ReturnType<typeof ethEntryValue>>();
    if (opts.fork) entries.set(ETH_ENR_KEY, ethEntryValue(opts.fork.id));
    let v4: Discv4 | null = null;
    let v5: Discv5 | null = null;
    try {
      if (opts.v4) {
        v4 = await Discv4.start({
          key: opts.key,
          udpPort: opts.udpPort,
          tcpPort: opts.tcpPort,
          bootnodes: enodes,
          netrestrict: netlist,
          enrEntries: entries,
          log,
          ...(opts.bindIp === undefined ? {} : { bindIp: opts.bindIp }),
          ...(opts.advertiseIp === undefined ? {} : { advertiseIp: opts.advertiseIp }),
        });
      }
      if (opts.v5) {
        const port = opts.v5UdpPort ?? (opts.v4 && opts.udpPort !== 0 ? opts.udpPort + 1 : opts.udpPort);
        v5 = await Discv5.start({
          key: opts.key,
          udpPort: port,
          tcpPort: opts.tcpPort,
          bootnodes: enrs,
          enrEntries: entries,
          log,
          ...(opts.bindIp === undefined ? {} : { bindIp: opts.bindIp }),
          ...(opts.advertiseIp === undefined ? {} : { advertiseIp: opts.advertiseIp }),
        });
      }
    } catch (e) {
      await v4?.stop();
      throw new DiscoveryError((e as Error).message);
    }
    const d = new Discovery(opts, netlist, v4, v5, log);
    v4?.onNode((n) => {
      if (n.enr !== null) d.consider(n.enr);
    });
    v5?.onRecord((r) => d.consider(r));
    d.schedule(0);
    return d;
  }

  /** Subscribes to compatible candidates; those already known are replayed. */
  onPeer(fn: (p: PeerCandidate) => void): void {
    this.listeners.push(fn);
    for (const p of this.known.values()) fn(p);
  }

  /** Known compatible candidates, shuffled. */
  randomNodes(): PeerCandidate[] {
    const all = [...this.known.values()];
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    return all;
  }

  /** Our discv4 record (else the discv5 one), for admin_nodeInfo. */
  localEnr(): string | null {
    return (this.v4?.localRecord ?? this.v5?.localRecord)?.encodeTxt() ?? null;
  }

  /** Updates the `eth` entry after a fork (both protocols). */
  setForkId(id: ForkId): void {
    this.v4?.setEnrEntry(ETH_ENR_KEY, ethEntryValue(id));
    this.v5?.setEnrEntry(ETH_ENR_KEY, ethEntryValue(id));
  }

  stats(): Record<string, number> {
    return { ...this.counters, ...(this.v4?.stats() ?? {}) };
  }

  /** Runs one lookup on each protocol now. */
  async lookup(): Promise<void> {
    if (this.looking || this.stopped) return;
    this.looking = true;
    try {
      await Promise.all([this.v4?.lookup(randomBytes(64)), this.v5?.lookup()]);
      for (const r of this.v5?.records() ?? []) this.consider(r);
    } finally {
      this.looking = false;
    }
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(async () => {
      await this.lookup().catch((e) => this.log.debug("discovery lookup failed", { err: (e as Error).message }));
      this.schedule(this.opts.wantMore === undefined || this.opts.wantMore() ? FAST_MS : SLOW_MS);
    }, ms);
    this.timer.unref();
  }

  /** Filters a record and reports it when it is a new compatible candidate. */
  consider(r: Enr): boolean {
    if (r.id.every((b, i) => b === this.opts.key.id[i])) return false;
    const fork = this.opts.fork;
    if (fork) {
      const id = parseEthEntry(r.get(ETH_ENR_KEY));
      if (id === null) {
        this.counters.filteredNoEth++;
        return false;
      }
      if (fork.filter(id) !== ForkCheck.Ok) {
        this.counters.filteredFork++;
        return false;
      }
    }
    const ip = r.ip ?? r.ip6;
    const tcp = r.ip !== undefined ? r.tcp : r.tcp6;
    if (ip === undefined || tcp === undefined || tcp === 0) return false;
    const ipb = ipToBytes(ip);
    if (ipb === null || (this.netlist !== null && !this.netlist.contains(ipb))) {
      this.counters.filteredNet++;
      return false;
    }
    const id = Buffer.from(r.id).toString("hex");
    const prev = this.known.get(id);
    if (prev !== undefined && prev.ip === ip && prev.tcpPort === tcp && prev.enr === r.encodeTxt()) return false;
    const p: PeerCandidate = { id, ip, tcpPort: tcp, pubkey: r.publicKey, enr: r.encodeTxt() };
    this.known.set(id, p);
    for (const l of this.listeners) l(p);
    return true;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await Promise.all([this.v4?.stop(), this.v5?.stop()]);
  }
}

/** The discv4 address of a record (ip + udp), or null. */
export function addrOfRecord(r: Enr): NodeAddr | null {
  const ip = r.ip ?? r.ip6;
  const udp = r.ip !== undefined ? r.udp : r.udp6;
  const ipb = ip === undefined ? null : ipToBytes(ip);
  if (ipb === null || udp === undefined || udp === 0) return null;
  const tcp = (r.ip !== undefined ? r.tcp : r.tcp6) ?? 0;
  return { publicKey: r.publicKey, id: r.id, ip: ipb, udpPort: udp, tcpPort: tcp };
}
