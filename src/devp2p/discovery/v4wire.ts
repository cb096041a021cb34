/**
 * discv4 packets (devp2p discv4.md, EIP-8, EIP-868): `hash ‖ signature ‖ type ‖ rlp(data)`, hash =
 * keccak256(signature ‖ type ‖ data), signature = 65-byte r ‖ s ‖ recid over keccak256(type ‖ data),
 * at most 1280 bytes. Decoding follows EIP-8: extra list elements and bytes after the RLP value are
 * ignored, the Ping version is not checked. Every refusal is a `V4Drop` code, never a throw, so the
 * socket handler can count and drop garbage.
 */
import { keccak256 } from "../../crypto/keccak.js";
import { recoverPublicKey, sign, signatureBytes } from "../../crypto/secp256k1.js";
import { concatBytes, equalBytes } from "../../primitives/bytes.js";
import { decodeHeader, decodeRlpAt, type RlpItem } from "../../rlp/decode.js";
import { encodeRlp, encodeRlpListOfEncoded, type RlpInput, uintToRlpBytes } from "../../rlp/encode.js";
import { Enr } from "./enr.js";

/** SPEC: discv4.md "The maximum size of any packet is 1280 bytes" (geth v4wire.MaxPacketSize). */
export const MAX_PACKET_SIZE = 1280;
const HEAD_SIZE = 32 + 65 + 1;

export const PacketType = {
  Ping: 1,
  Pong: 2,
  Findnode: 3,
  Neighbors: 4,
  EnrRequest: 5,
  EnrResponse: 6,
} as const;
export type PacketType = (typeof PacketType)[keyof typeof PacketType];

/** Why a datagram was dropped (the metric label). */
export const V4Drop = {
  TooSmall: "too_small",
  TooLarge: "too_large",
  BadHash: "bad_hash",
  BadSignature: "bad_signature",
  UnknownType: "unknown_type",
  BadRlp: "bad_rlp",
  BadFields: "bad_fields",
} as const;
export type V4Drop = (typeof V4Drop)[keyof typeof V4Drop];

export interface Endpoint {
  /** 4 or 16 bytes (empty or other sizes survive decoding; senders' claims are not trusted). */
  readonly ip: Uint8Array;
  readonly udp: number;
  readonly tcp: number;
}

export interface Ping {
  readonly type: 1;
  readonly version: number;
  readonly from: Endpoint;
  readonly to: Endpoint;
  readonly expiration: number;
  readonly enrSeq: bigint | null;
}
export interface Pong {
  readonly type: 2;
  readonly to: Endpoint;
  readonly pingHash: Uint8Array;
  readonly expiration: number;
  readonly enrSeq: bigint | null;
}
export interface Findnode {
  readonly type: 3;
  /** 64-byte public key. */
  readonly target: Uint8Array;
  readonly expiration: number;
}
export interface WireNode {
  readonly ip: Uint8Array;
  readonly udp: number;
  readonly tcp: number;
  /** 64-byte public key. */
  readonly id: Uint8Array;
}
export interface Neighbors {
  readonly type: 4;
  readonly nodes: readonly WireNode[];
  readonly expiration: number;
}
export interface EnrRequest {
  readonly type: 5;
  readonly expiration: number;
}
export interface EnrResponse {
  readonly type: 6;
  readonly requestHash: Uint8Array;
  /** Verified record, or null when the record was malformed or its signature failed. */
  readonly record: Enr | null;
}
export type V4Packet = Ping | Pong | Findnode | Neighbors | EnrRequest | EnrResponse;

export interface DecodedPacket {
  readonly packet: V4Packet;
  /** The packet hash (a copy). */
  readonly hash: Uint8Array;
  /** The sender's 64-byte public key. */
  readonly publicKey: Uint8Array;
}

/** Encodes and signs a packet; returns the datagram and its hash (a Pong's ping-hash, a response's request-hash). */
export function encodePacket(p: V4Packet, privateKey: Uint8Array): { datagram: Uint8Array; hash: Uint8Array } {
  const body = p.type === PacketType.EnrResponse ? enrResponseBody(p) : encodeRlp(bodyOf(p));
  const signed = new Uint8Array(1 + body.length);
  signed[0] = p.type;
  signed.set(body, 1);
  const s = sign(keccak256(signed), privateKey);
  const sig = new Uint8Array(65);
  signatureBytes(s.r, s.s, sig);
  sig[64] = s.recid;
  const tail = concatBytes(sig, signed);
  const hash = keccak256(tail);
  return { datagram: concatBytes(hash, tail), hash };
}

function endpoint(e: Endpoint): RlpInput {
  return [e.ip, uintToRlpBytes(e.udp), uintToRlpBytes(e.tcp)];
}

function bodyOf(p: Exclude<V4Packet, EnrResponse>): RlpInput {
  switch (p.type) {
    case PacketType.Ping: {
      const b: RlpInput[] = [uintToRlpBytes(p.version), endpoint(p.from), endpoint(p.to), uintToRlpBytes(p.expiration)];
      if (p.enrSeq !== null) b.push(uintToRlpBytes(p.enrSeq));
      return b;
    }
    case PacketType.Pong: {
      const b: RlpInput[] = [endpoint(p.to), p.pingHash, uintToRlpBytes(p.expiration)];
      if (p.enrSeq !== null) b.push(uintToRlpBytes(p.enrSeq));
      return b;
    }
    case PacketType.Findnode:
      return [p.target, uintToRlpBytes(p.expiration)];
    case PacketType.Neighbors:
      return [
        p.nodes.map((n) => [n.ip, uintToRlpBytes(n.udp), uintToRlpBytes(n.tcp), n.id]),
        uintToRlpBytes(p.expiration),
      ];
    case PacketType.EnrRequest:
      return [uintToRlpBytes(p.expiration)];
  }
}

/** ENRResponse: `[request-hash, record]`, the record's signed bytes spliced in unchanged. */
function enrResponseBody(p: EnrResponse): Uint8Array {
  if (p.record === null) throw new RangeError("ENRResponse needs a record");
  return encodeRlpListOfEncoded([encodeRlp(p.requestHash), p.record.raw]);
}

/** Decodes and authenticates a datagram; a `V4Drop` code when it must be dropped. */
export function decodePacket(buf: Uint8Array): DecodedPacket | V4Drop {
  if (buf.length <= HEAD_SIZE) return V4Drop.TooSmall;
  if (buf.length > MAX_PACKET_SIZE) return V4Drop.TooLarge;
  const hash = buf.subarray(0, 32);
  if (!equalBytes(hash, keccak256(buf.subarray(32)))) return V4Drop.BadHash;
  const recid = buf[96]!;
  const pub = recid > 1 ? null : recoverPublicKey(keccak256(buf.subarray(97)), buf.subarray(32, 96), recid);
  if (pub === null) return V4Drop.BadSignature;
  const type = buf[97]!;
  if (type < PacketType.Ping || type > PacketType.EnrResponse) return V4Drop.UnknownType;
  let item: RlpItem;
  try {
    // SPEC: EIP-8 "ignore any data after the first RLP value in any packet".
    item = decodeRlpAt(buf, HEAD_SIZE, 16).item;
  } catch {
    return V4Drop.BadRlp;
  }
  if (!Array.isArray(item)) return V4Drop.BadFields;
  let packet = decodeBody(type as PacketType, item);
  if (packet === null) return V4Drop.BadFields;
  if (packet.type === PacketType.EnrResponse) packet = { ...packet, record: enrRecordAt(buf) };
  return { packet, hash: hash.slice(), publicKey: pub.slice(1) };
}

function bytes(i: RlpItem | undefined, size?: number): Uint8Array | null {
  if (!(i instanceof Uint8Array)) return null;
  if (size !== undefined && i.length !== size) return null;
  return i;
}

/** An unsigned integer of at most `maxBytes`; null when malformed. u64 values above 2^53-1 clamp. */
function uint(i: RlpItem | undefined, maxBytes: number): number | null {
  const b = bytes(i);
  if (b === null || b.length > maxBytes || (b.length > 0 && b[0] === 0)) return null;
  let n = 0;
  for (let k = 0; k < b.length; k++) n = n * 256 + b[k]!;
  return Math.min(n, Number.MAX_SAFE_INTEGER);
}

function u64big(i: RlpItem | undefined): bigint | null {
  const b = bytes(i);
  if (b === null || b.length > 8 || (b.length > 0 && b[0] === 0)) return null;
  let n = 0n;
  for (let k = 0; k < b.length; k++) n = (n << 8n) | BigInt(b[k]!);
  return n;
}

function ep(i: RlpItem | undefined): Endpoint | null {
  if (!Array.isArray(i) || i.length < 3) return null;
  const ip = bytes(i[0]);
  const udp = uint(i[1], 2);
  const tcp = uint(i[2], 2);
  if (ip === null || udp === null || tcp === null) return null;
  return { ip: ip.slice(), udp, tcp };
}

function decodeBody(type: PacketType, f: RlpItem[]): V4Packet | null {
  switch (type) {
    case PacketType.Ping: {
      if (f.length < 4) return null;
      // SPEC: EIP-8: the version is not validated; a malformed one still fails the decode (geth uint).
      const version = uint(f[0], 8);
      const from = ep(f[1]);
      const to = ep(f[2]);
      const expiration = uint(f[3], 8);
      if (version === null || from === null || to === null || expiration === null) return null;
      const enrSeq = f.length > 4 ? u64big(f[4]) : null;
      return { type, version, from, to, expiration, enrSeq };
    }
    case PacketType.Pong: {
      if (f.length < 3) return null;
      const to = ep(f[0]);
      const pingHash = bytes(f[1], 32);
      const expiration = uint(f[2], 8);
      if (to === null || pingHash === null || expiration === null) return null;
      const enrSeq = f.length > 3 ? u64big(f[3]) : null;
      return { type, to, pingHash: pingHash.slice(), expiration, enrSeq };
    }
    case PacketType.Findnode: {
      const target = bytes(f[0], 64);
      const expiration = uint(f[1], 8);
      if (target === null || expiration === null) return null;
      return { type, target: target.slice(), expiration };
    }
    case PacketType.Neighbors: {
      const list = f[0];
      const expiration = uint(f[1], 8);
      if (!Array.isArray(list) || expiration === null) return null;
      const nodes: WireNode[] = [];
      for (const n of list) {
        if (!Array.isArray(n) || n.length < 4) return null;
        const ip = bytes(n[0]);
        const udp = uint(n[1], 2);
        const tcp = uint(n[2], 2);
        const id = bytes(n[3], 64);
        if (ip === null || udp === null || tcp === null || id === null) return null;
        nodes.push({ ip: ip.slice(), udp, tcp, id: id.slice() });
      }
      return { type, nodes, expiration };
    }
    case PacketType.EnrRequest: {
      const expiration = uint(f[0], 8);
      if (expiration === null) return null;
      return { type, expiration };
    }
    case PacketType.EnrResponse: {
      const requestHash = bytes(f[0], 32);
      if (requestHash === null || !Array.isArray(f[1])) return null;
      return { type, requestHash: requestHash.slice(), record: null };
    }
  }
}

/**
 * The record of an ENRResponse, re-read from the datagram: a record is verified over its exact
 * bytes, which the item decoder does not keep. Null when invalid (the caller drops the response).
 */
function enrRecordAt(buf: Uint8Array): Enr | null {
  try {
    const list = decodeHeader(buf, HEAD_SIZE);
    const hashItem = decodeHeader(buf, list.start, list.start + list.length);
    const recStart = hashItem.start + hashItem.length;
    const rec = decodeHeader(buf, recStart, list.start + list.length);
    return Enr.decode(buf.subarray(recStart, rec.start + rec.length));
  } catch {
    return null;
  }
}
