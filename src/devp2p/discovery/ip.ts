/**
 * IP addresses as devp2p carries them (4 or 16 raw bytes in discv4 endpoints and ENR `ip`/`ip6`),
 * and `--netrestrict` CIDR lists (geth p2p/netutil.Netlist: a node outside every listed network is
 * neither contacted nor reported).
 */
import { isIP } from "node:net";

/** 4 bytes for IPv4 (an IPv4-mapped IPv6 address included), 16 for IPv6; null when not an address. */
export function ipToBytes(ip: string): Uint8Array | null {
  const kind = isIP(ip);
  if (kind === 4) return v4Bytes(ip);
  if (kind !== 6) return null;
  const out = new Uint8Array(16);
  let s = ip;
  const zone = s.indexOf("%");
  if (zone >= 0) s = s.slice(0, zone);
  // A trailing dotted quad (::ffff:1.2.3.4) fills the last 4 bytes.
  let tail: Uint8Array | null = null;
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".", lastColon)) {
    tail = v4Bytes(s.slice(lastColon + 1));
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = s.split("::") as [string, string | undefined];
  const hs = head === "" ? [] : head.split(":");
  const rs = rest === undefined || rest === "" ? [] : rest.split(":");
  const groups = rest === undefined ? hs : [...hs, ...new Array<string>(8 - hs.length - rs.length).fill("0"), ...rs];
  for (let i = 0; i < 8; i++) {
    const g = Number.parseInt(groups[i] ?? "0", 16);
    out[i * 2] = g >>> 8;
    out[i * 2 + 1] = g & 0xff;
  }
  if (tail !== null) out.set(tail!, 12);
  return isV4Mapped(out) ? out.slice(12) : out;
}

function v4Bytes(ip: string): Uint8Array {
  const p = ip.split(".");
  return new Uint8Array([Number(p[0]), Number(p[1]), Number(p[2]), Number(p[3])]);
}

function isV4Mapped(b: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (b[i] !== 0) return false;
  return b[10] === 0xff && b[11] === 0xff;
}

/** The text form of 4 or 16 address bytes (IPv4-mapped IPv6 as IPv4); null for any other length. */
export function ipFromBytes(b: Uint8Array): string | null {
  if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  if (b.length !== 16) return null;
  if (isV4Mapped(b)) return `${b[12]}.${b[13]}.${b[14]}.${b[15]}`;
  const g: string[] = [];
  for (let i = 0; i < 16; i += 2) g.push(((b[i] << 8) | b[i + 1]).toString(16));
  // Compress the longest run of zero groups (RFC 5952).
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (g[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && g[j] === "0") j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return g.join(":");
  return `${g.slice(0, best).join(":")}::${g.slice(best + bestLen).join(":")}`;
}

/** Loopback, private (RFC 1918, ULA), link-local or unspecified: not routable on the internet. */
export function isLanIp(b: Uint8Array): boolean {
  if (b.length === 4) {
    return (
      b[0] === 127 ||
      b[0] === 10 ||
      b[0] === 0 ||
      (b[0] === 172 && (b[1] & 0xf0) === 16) ||
      (b[0] === 192 && b[1] === 168) ||
      (b[0] === 169 && b[1] === 254)
    );
  }
  if (b.length !== 16) return false;
  let zero = true;
  for (let i = 0; i < 15; i++) if (b[i] !== 0) zero = false;
  if (zero && (b[15] === 1 || b[15] === 0)) return true;
  return (b[0] & 0xfe) === 0xfc || (b[0] === 0xfe && (b[1] & 0xc0) === 0x80);
}

export class NetrestrictError extends Error {
  override readonly name = "NetrestrictError";
}

interface Cidr {
  readonly net: Uint8Array;
  readonly bits: number;
}

/** A parsed `--netrestrict` list: `"10.0.0.0/8,192.168.0.0/16"` (geth netutil.ParseNetlist). */
export class Netlist {
  private constructor(private readonly nets: readonly Cidr[]) {}

  /** Comma- or whitespace-separated CIDRs; throws NetrestrictError naming the bad entry. */
  static parse(list: string | readonly string[]): Netlist {
    const parts = (typeof list === "string" ? list.split(/[,\s]+/) : list).map((s) => s.trim()).filter((s) => s !== "");
    const nets: Cidr[] = [];
    for (const p of parts) {
      const slash = p.indexOf("/");
      const ip = slash < 0 ? null : ipToBytes(p.slice(0, slash));
      const bits = slash < 0 ? Number.NaN : Number(p.slice(slash + 1));
      if (
        ip === null ||
        !Number.isInteger(bits) ||
        bits < 0 ||
        bits > ip.length * 8 ||
        !/^\d+$/.test(p.slice(slash + 1))
      ) {
        throw new NetrestrictError(`not a CIDR network: ${p}`);
      }
      nets.push({ net: ip, bits });
    }
    return new Netlist(nets);
  }

  /** True when `ip` (4 or 16 bytes) lies in one of the networks. */
  contains(ip: Uint8Array): boolean {
    for (const n of this.nets) {
      if (n.net.length !== ip.length) continue;
      let ok = true;
      let bits = n.bits;
      for (let i = 0; bits > 0; i++, bits -= 8) {
        const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
        if ((ip[i] & mask) !== (n.net[i] & mask)) {
          ok = false;
          break;
        }
      }
      if (ok) return true;
    }
    return false;
  }
}
