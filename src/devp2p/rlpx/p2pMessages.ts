/**
 * The "p2p" capability's messages (SPEC: devp2p rlpx.md#p2p-capability): Hello, Disconnect with its
 * reason codes, Ping and Pong, and capability negotiation (highest shared version of each name,
 * message ids packed from 0x10 in name order). Decoders take outside bytes and return null on
 * anything malformed.
 */
import { decodeRlp, type RlpItem } from "../../rlp/decode.js";
import { encodeRlp, uintToRlpBytes } from "../../rlp/encode.js";

/** Protocol version of the "p2p" capability we speak: 5 (EIP-706, snappy). */
export const BASE_PROTOCOL_VERSION = 5;
/** Message ids 0x00–0x0f belong to "p2p"; capabilities start at 0x10. */
export const BASE_PROTOCOL_LENGTH = 16;
/** Largest "p2p" message payload accepted (geth p2p/peer.go `baseProtocolMaxMsgSize`, 2 KiB). */
export const BASE_PROTOCOL_MAX_MSG_SIZE = 2 * 1024;

export const P2pMessage = { Hello: 0x00, Disconnect: 0x01, Ping: 0x02, Pong: 0x03 } as const;

/** Disconnect reasons (SPEC: rlpx.md#disconnect-0x01). */
export const DisconnectReason = {
  Requested: 0x00,
  TcpError: 0x01,
  ProtocolError: 0x02,
  UselessPeer: 0x03,
  TooManyPeers: 0x04,
  AlreadyConnected: 0x05,
  IncompatibleVersion: 0x06,
  NullIdentity: 0x07,
  ClientQuitting: 0x08,
  UnexpectedIdentity: 0x09,
  SelfConnection: 0x0a,
  PingTimeout: 0x0b,
  SubprotocolError: 0x10,
} as const;
export type DisconnectReason = (typeof DisconnectReason)[keyof typeof DisconnectReason];

/** A capability this node runs: name (≤ 8 ASCII chars), version, and how many message ids it uses. */
export interface Capability {
  readonly name: string;
  readonly version: number;
  readonly length: number;
}

/** A capability both sides run, with its message-id offset on this connection. */
export interface SharedCapability extends Capability {
  readonly offset: number;
}

export interface Hello {
  protocolVersion: number;
  clientId: string;
  capabilities: { name: string; version: number }[];
  listenPort: number;
  /** 64-byte node id. */
  nodeId: Uint8Array;
}

const ENC = new TextEncoder();
const DEC = new TextDecoder("utf-8", { fatal: false });

/** Hello's payload: `[protocolVersion, clientId, [[cap, version], …], listenPort, nodeId]`. */
export function encodeHello(h: Hello): Uint8Array {
  return encodeRlp([
    uintToRlpBytes(h.protocolVersion),
    ENC.encode(h.clientId),
    h.capabilities.map((c) => [ENC.encode(c.name), uintToRlpBytes(c.version)]),
    uintToRlpBytes(h.listenPort),
    h.nodeId,
  ]);
}

/** Small canonical unsigned integer (≤ 6 bytes, no leading zero); -1 when not one. */
function uint(item: RlpItem | undefined): number {
  if (!(item instanceof Uint8Array) || item.length > 6) return -1;
  if (item.length > 0 && item[0] === 0) return -1;
  let v = 0;
  for (let i = 0; i < item.length; i++) v = v * 256 + item[i]!;
  return v;
}

/** Decodes a Hello payload; extra list elements are ignored (EIP-8). */
export function decodeHello(payload: Uint8Array): Hello | null {
  let l: RlpItem;
  try {
    l = decodeRlp(payload, 4);
  } catch {
    return null;
  }
  if (!Array.isArray(l) || l.length < 5) return null;
  const version = uint(l[0]);
  const client = l[1];
  const caps = l[2];
  const port = uint(l[3]);
  const id = l[4];
  if (version < 0 || port < 0 || !(client instanceof Uint8Array) || !Array.isArray(caps)) return null;
  if (!(id instanceof Uint8Array) || id.length !== 64) return null;
  const capabilities: { name: string; version: number }[] = [];
  for (const c of caps) {
    if (!Array.isArray(c) || c.length < 2) return null;
    const name = c[0];
    const v = uint(c[1]);
    if (!(name instanceof Uint8Array) || name.length > 32 || v < 0) return null;
    capabilities.push({ name: DEC.decode(name), version: v });
  }
  return { protocolVersion: version, clientId: DEC.decode(client), capabilities, listenPort: port, nodeId: id };
}

/** Disconnect's payload as geth sends it: `[reason]`. */
export function encodeDisconnect(reason: number): Uint8Array {
  return encodeRlp([uintToRlpBytes(reason)]);
}

/**
 * The reason of a Disconnect payload: `[reason]` (geth), a bare integer (ethereumjs), or nothing
 * (reason unknown → Requested). Null when malformed.
 */
export function decodeDisconnect(payload: Uint8Array): number | null {
  if (payload.length === 0) return DisconnectReason.Requested;
  let item: RlpItem;
  try {
    item = decodeRlp(payload, 2);
  } catch {
    return null;
  }
  if (Array.isArray(item)) {
    if (item.length === 0) return DisconnectReason.Requested;
    item = item[0]!;
  }
  const r = uint(item);
  return r < 0 || r > 0xff ? null : r;
}

/** Ping and Pong payload: the empty list. */
export const EMPTY_LIST_PAYLOAD = new Uint8Array([0xc0]);

function compareNames(a: string, b: string): number {
  // SPEC: "in alphabetic order … names are case-sensitive" — byte order of the ASCII names.
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Capabilities both sides run: the highest shared version per name, offsets from 0x10 in name order. */
export function negotiateCapabilities(
  local: readonly Capability[],
  remote: readonly { name: string; version: number }[],
): SharedCapability[] {
  const best = new Map<string, Capability>();
  for (const r of remote) {
    for (const c of local) {
      if (c.name !== r.name || c.version !== r.version) continue;
      const prev = best.get(c.name);
      if (prev === undefined || prev.version < c.version) best.set(c.name, c);
    }
  }
  const names = [...best.keys()].sort(compareNames);
  const out: SharedCapability[] = [];
  let offset = BASE_PROTOCOL_LENGTH;
  for (const n of names) {
    const c = best.get(n)!;
    out.push({ name: c.name, version: c.version, length: c.length, offset });
    offset += c.length;
  }
  return out;
}
