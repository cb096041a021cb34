/**
 * Node discovery v5 through @chainsafe/discv5 11 (as src/p2p/discovery.ts uses it for op-node), for
 * the execution layer: the record carries `ip`/`tcp`/`udp` and the `eth` fork-id entry as a list
 * value (geth's layout, not a byte string), and discovered records are handed on re-verified by our
 * own ENR codec (enr.ts), so the facade sees one record type. discv5 11 is the libp2p-2 generation:
 * it takes multiaddr-12 objects (the `multiaddr12` alias, dependencies-probe.md) and libp2p-2 keys;
 * both stay inside this file.
 *
 * It binds its own UDP socket: @chainsafe/discv5's transport owns its socket, so unlike geth (v4 and
 * v5 on one port, v5 receiving what v4 cannot decode) the two protocols need two ports here.
 */
import { EventEmitter } from "node:events";
import { isIP } from "node:net";
import type { RlpInput } from "../../rlp/encode.js";
import { type Logger, SILENT_LOGGER } from "../../util/log.js";
import { Enr } from "./enr.js";
import type { NodeKey } from "./nodeKey.js";

export class Discv5Error extends Error {
  override readonly name = "Discv5Error";
}

export interface Discv5Options {
  readonly key: NodeKey;
  readonly bindIp?: string;
  readonly udpPort: number;
  readonly tcpPort: number;
  readonly advertiseIp?: string;
  /** `enr:` records. */
  readonly bootnodes?: readonly string[];
  /** Extra record entries (the `eth` fork id), values as RLP inputs. */
  readonly enrEntries?: ReadonlyMap<string, RlpInput>;
  readonly log?: Logger;
}

type ChainsafeEnr = { encodeTxt(): string; nodeId: string };

interface Discv5Like {
  start(): Promise<void>;
  stop(): Promise<void>;
  addEnr(enr: string): void;
  kadValues(): ChainsafeEnr[];
  findRandomNode(): Promise<ChainsafeEnr[]>;
  enr: ChainsafeEnr & { set(k: string, v: Uint8Array): void };
  on(ev: "discovered", fn: (enr: ChainsafeEnr) => void): void;
}

export class Discv5 {
  private readonly listeners: ((r: Enr) => void)[] = [];
  private stopped = false;
  private readonly log: Logger;

  private constructor(
    private readonly d: Discv5Like,
    opts: Discv5Options,
  ) {
    this.log = opts.log ?? SILENT_LOGGER;
  }

  static async start(opts: Discv5Options): Promise<Discv5> {
    const [{ Discv5: Service }, { SignableENR }, { multiaddr }, { privateKeyFromRaw }] = await Promise.all([
      import("@chainsafe/discv5"),
      import("@chainsafe/enr"),
      import("multiaddr12"),
      import("@libp2p/crypto/keys"),
    ]);
    const key = privateKeyFromRaw(opts.key.privateKey);
    const enr = SignableENR.createFromPrivateKey(key as never);
    for (const [k, v] of opts.enrEntries ?? []) {
      // @chainsafe/enr RLP-encodes values as given: a nested array becomes an RLP list, as the
      // `eth` entry must be (its typings say Uint8Array only).
      enr.set(k, v as Uint8Array);
    }
    const bindIp = opts.bindIp ?? "0.0.0.0";
    const ip = opts.advertiseIp ?? bindIp;
    const v6 = ip.includes(":");
    if (isIP(ip) !== 0 && ip !== "0.0.0.0" && ip !== "::") {
      enr.setLocationMultiaddr(multiaddr(`/${v6 ? "ip6" : "ip4"}/${ip}/udp/${opts.udpPort}`) as never);
      enr.setLocationMultiaddr(multiaddr(`/${v6 ? "ip6" : "ip4"}/${ip}/tcp/${opts.tcpPort}`) as never);
    } else {
      enr.set(v6 ? "udp6" : "udp", portBytes(opts.udpPort));
      enr.set(v6 ? "tcp6" : "tcp", portBytes(opts.tcpPort));
    }
    const bind = multiaddr(`/${bindIp.includes(":") ? "ip6" : "ip4"}/${bindIp}/udp/${opts.udpPort}`);
    let d: Discv5Like;
    try {
      const created = Service.create({
        enr,
        privateKey: key as never,
        bindAddrs: bindIp.includes(":") ? { ip6: bind } : { ip4: bind },
        config: { enrUpdate: opts.advertiseIp === undefined, lookupTimeout: 5000 },
      } as never);
      // See src/p2p/discovery.ts: the typings lose `on` under NodeNext; checked instead of asserted.
      if (!(created instanceof EventEmitter)) throw new Error("@chainsafe/discv5 service is not an EventEmitter");
      d = created as unknown as Discv5Like;
      await d.start();
    } catch (e) {
      throw new Discv5Error(`cannot start discv5 on UDP ${bindIp}:${opts.udpPort}: ${(e as Error).message}`);
    }
    const s = new Discv5(d, opts);
    d.on("discovered", (r) => s.consider(r));
    for (const b of opts.bootnodes ?? []) {
      try {
        d.addEnr(b);
      } catch (e) {
        s.log.debug("discv5: skipping a bootnode record", { err: (e as Error).message });
      }
    }
    return s;
  }

  /** Called with each record discovered (re-verified); table records count on subscription. */
  onRecord(fn: (r: Enr) => void): void {
    this.listeners.push(fn);
  }

  get localRecord(): Enr {
    return Enr.decodeTxt(this.d.enr.encodeTxt());
  }

  /** Replaces a record entry (the `eth` fork id after a fork); the library bumps the sequence. */
  setEnrEntry(key: string, value: RlpInput): void {
    this.d.enr.set(key, value as Uint8Array);
  }

  /** The routing table's records. */
  records(): Enr[] {
    const out: Enr[] = [];
    for (const r of this.d.kadValues()) {
      const e = toEnr(r);
      if (e !== null) out.push(e);
    }
    return out;
  }

  /** One random lookup; records found are reported to listeners too. */
  async lookup(): Promise<Enr[]> {
    if (this.stopped) return [];
    try {
      const found = await this.d.findRandomNode();
      const out: Enr[] = [];
      for (const r of found) {
        const e = this.consider(r);
        if (e !== null) out.push(e);
      }
      for (const r of this.d.kadValues()) this.consider(r);
      return out;
    } catch (e) {
      this.log.debug("discv5 lookup failed", { err: (e as Error).message });
      return [];
    }
  }

  private consider(r: ChainsafeEnr): Enr | null {
    if (r.nodeId === this.d.enr.nodeId) return null;
    const e = toEnr(r);
    if (e !== null) for (const l of this.listeners) l(e);
    return e;
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    await this.d.stop();
  }
}

function toEnr(r: ChainsafeEnr): Enr | null {
  try {
    return Enr.decodeTxt(r.encodeTxt());
  } catch {
    return null;
  }
}

function portBytes(p: number): Uint8Array {
  return p < 256 ? new Uint8Array([p]) : new Uint8Array([p >>> 8, p & 0xff]);
}
