/**
 * enode URLs (devp2p enode-url-format): `enode://<128 hex of x ‖ y>@<ip>:<tcp port>[?discport=<udp>]`,
 * the UDP port defaulting to the TCP one. Hostnames are refused (geth resolves them; a bootnode
 * list of ours holds addresses).
 */
import { isIP } from "node:net";
import { bytesToHexRaw, hexToBytes } from "../../primitives/hex.js";
import { ipFromBytes, ipToBytes } from "./ip.js";
import { isValidPublicKey, nodeIdOf } from "./nodeKey.js";

export class EnodeError extends Error {
  override readonly name = "EnodeError";
}

/** Where a node is reached and who it is. */
export interface NodeAddr {
  /** 64-byte public key. */
  readonly publicKey: Uint8Array;
  /** keccak256(publicKey). */
  readonly id: Uint8Array;
  /** 4 or 16 bytes. */
  readonly ip: Uint8Array;
  readonly udpPort: number;
  readonly tcpPort: number;
}

function port(s: string, what: string, url: string): number {
  if (!/^\d{1,5}$/.test(s) || Number(s) > 65535) throw new EnodeError(`${what} is not a port: ${url}`);
  return Number(s);
}

/** Parses an enode URL; throws EnodeError naming what is wrong. */
export function parseEnode(url: string): NodeAddr {
  const m = /^enode:\/\/([0-9a-fA-F]{128})@(\[[0-9a-fA-F:.]+\]|[^:/?]+):(\d+)(?:\?(.*))?$/.exec(url.trim());
  if (m === null) throw new EnodeError(`not an enode URL (enode://<128 hex>@ip:port): ${url.slice(0, 160)}`);
  const publicKey = hexToBytes(m[1]!);
  if (!isValidPublicKey(publicKey)) throw new EnodeError(`public key is not on the curve: ${url.slice(0, 160)}`);
  const host = m[2]!.startsWith("[") ? m[2]!.slice(1, -1) : m[2]!;
  if (isIP(host) === 0) throw new EnodeError(`host is not an IP address: ${host}`);
  const ip = ipToBytes(host)!;
  const tcpPort = port(m[3]!, "TCP port", url);
  let udpPort = tcpPort;
  if (m[4] !== undefined && m[4] !== "") {
    for (const kv of m[4].split("&")) {
      const [k, v] = kv.split("=");
      if (k === "discport") udpPort = port(v ?? "", "discport", url);
    }
  }
  return { publicKey, id: nodeIdOf(publicKey), ip, udpPort, tcpPort };
}

/** The enode URL of a node (`?discport=` only when the ports differ). */
export function formatEnode(n: Pick<NodeAddr, "publicKey" | "ip" | "udpPort" | "tcpPort">): string {
  const ip = ipFromBytes(n.ip) ?? "0.0.0.0";
  const host = ip.includes(":") ? `[${ip}]` : ip;
  const q = n.udpPort !== n.tcpPort ? `?discport=${n.udpPort}` : "";
  return `enode://${bytesToHexRaw(n.publicKey)}@${host}:${n.tcpPort}${q}`;
}
