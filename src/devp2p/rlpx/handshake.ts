/**
 * The RLPx encryption handshake (SPEC: devp2p rlpx.md#initial-handshake, EIP-8): auth and ack
 * packets in the EIP-8 form we send and the pre-EIP-8 form we still accept, and the session secrets
 * both sides derive from them. Everything here takes outside bytes and returns null or a status on
 * bad input; only a bad local argument throws.
 */
import { randomBytes, randomInt } from "node:crypto";
import { Keccak } from "@noble/hashes/sha3.js";
import { keccak256 } from "../../crypto/keccak.js";
import { recoverPublicKey, sign, signatureBytes } from "../../crypto/secp256k1.js";
import { concatBytes } from "../../primitives/bytes.js";
import { decodeRlpAt, type RlpItem } from "../../rlp/decode.js";
import { encodeRlp, uintToRlpBytes } from "../../rlp/encode.js";
import {
  ECIES_OVERHEAD,
  ecdhX,
  eciesDecrypt,
  eciesEncrypt,
  nodeIdToPublicKey,
  publicKeyOf,
  randomPrivateKey,
} from "./ecies.js";

/** Plaintext sizes of the pre-EIP-8 packets: sig ‖ keccak(eph-pub) ‖ pub ‖ nonce ‖ 0, and eph-pub ‖ nonce ‖ 0. */
export const AUTH_PLAIN_LENGTH = 65 + 32 + 64 + 32 + 1;
export const ACK_PLAIN_LENGTH = 64 + 32 + 1;
/** Wire sizes of the pre-EIP-8 packets (307 and 210 bytes). */
export const AUTH_PLAIN_PACKET_LENGTH = AUTH_PLAIN_LENGTH + ECIES_OVERHEAD;
export const ACK_PLAIN_PACKET_LENGTH = ACK_PLAIN_LENGTH + ECIES_OVERHEAD;
/**
 * Largest EIP-8 ciphertext accepted (the 16-bit size prefix). An auth with EIP-8's recommended
 * 100–300 bytes of padding is under 600 bytes; 2 KiB leaves room for additional list elements
 * while bounding what an unauthenticated peer can make us buffer (geth bounds the Hello that
 * follows to the same 2 KiB, `baseProtocolMaxMsgSize`).
 */
export const MAX_HANDSHAKE_SIZE = 2048;
const VERSION = 4;

export interface AuthMessage {
  /** 65 bytes: r ‖ s ‖ recid over `static-shared-secret ^ nonce` by the initiator's ephemeral key. */
  signature: Uint8Array;
  /** The initiator's node id (64 bytes). */
  initiatorId: Uint8Array;
  nonce: Uint8Array;
  version: number;
}

export interface AckMessage {
  /** The recipient's ephemeral public key without the 0x04 prefix (64 bytes). */
  ephemeralId: Uint8Array;
  nonce: Uint8Array;
  version: number;
}

/** A handshake packet read from the start of a stream buffer. */
export type HandshakeRead = HandshakePending | { kind: "ok"; packet: Uint8Array; plaintext: Uint8Array; eip8: boolean };

/** More bytes needed (at least `bytes` in all), or a packet that can never be valid. */
export type HandshakePending = { kind: "need"; bytes: number } | { kind: "invalid"; reason: string };

/**
 * Reads one auth (`plainPacketLength` 307) or ack (210) packet from `buf`: the pre-EIP-8 form when
 * the first `plainPacketLength` bytes decrypt as such, else `size (2, BE) ‖ ECIES(size as authData)`.
 * `packet` is a view of `buf`.
 */
export function readHandshakePacket(buf: Uint8Array, privateKey: Uint8Array, plainPacketLength: number): HandshakeRead {
  if (buf.length < 2) return { kind: "need", bytes: 2 };
  // SPEC: EIP-8 "packet = read(307) ; if decrypt(packet) → old format". A plain ECIES message starts
  // with R's 0x04; an EIP-8 packet starting with 0x04 declares ≥ 1024 bytes, so waiting for the
  // plain length first never waits for more than the packet.
  if (buf[0] === 4) {
    if (buf.length < plainPacketLength) return { kind: "need", bytes: plainPacketLength };
    const packet = buf.subarray(0, plainPacketLength);
    const pt = eciesDecrypt(privateKey, packet, new Uint8Array(0));
    if (pt !== null) return { kind: "ok", packet, plaintext: pt, eip8: false };
  }
  const size = (buf[0]! << 8) | buf[1]!;
  if (size > MAX_HANDSHAKE_SIZE) return { kind: "invalid", reason: `handshake packet of ${size} bytes` };
  if (size < ECIES_OVERHEAD) return { kind: "invalid", reason: `handshake packet of ${size} bytes` };
  if (buf.length < 2 + size) return { kind: "need", bytes: 2 + size };
  const packet = buf.subarray(0, 2 + size);
  const pt = eciesDecrypt(privateKey, packet.subarray(2), packet.subarray(0, 2));
  if (pt === null) return { kind: "invalid", reason: "handshake packet does not decrypt" };
  return { kind: "ok", packet, plaintext: pt, eip8: true };
}

function listPrefix(plaintext: Uint8Array): RlpItem[] | null {
  try {
    // SPEC: EIP-8 — ignore trailing data after the list (the padding).
    const { item } = decodeRlpAt(plaintext, 0, 4);
    return Array.isArray(item) ? item : null;
  } catch {
    return null;
  }
}

function versionOf(item: RlpItem | undefined): number {
  if (!(item instanceof Uint8Array) || item.length > 4) return 0;
  let v = 0;
  for (let i = 0; i < item.length; i++) v = v * 256 + item[i]!;
  return v;
}

/** Decodes an auth plaintext of either form; null when malformed. */
export function decodeAuth(plaintext: Uint8Array, eip8: boolean): AuthMessage | null {
  if (!eip8) {
    if (plaintext.length !== AUTH_PLAIN_LENGTH) return null;
    return {
      signature: plaintext.subarray(0, 65),
      initiatorId: plaintext.subarray(97, 161),
      nonce: plaintext.subarray(161, 193),
      version: VERSION,
    };
  }
  const l = listPrefix(plaintext);
  if (l === null || l.length < 3) return null;
  const [sig, id, nonce] = l;
  if (!(sig instanceof Uint8Array) || sig.length !== 65) return null;
  if (!(id instanceof Uint8Array) || id.length !== 64) return null;
  if (!(nonce instanceof Uint8Array) || nonce.length !== 32) return null;
  return { signature: sig, initiatorId: id, nonce, version: versionOf(l[3]) };
}

/** Decodes an ack plaintext of either form; null when malformed. */
export function decodeAck(plaintext: Uint8Array, eip8: boolean): AckMessage | null {
  if (!eip8) {
    if (plaintext.length !== ACK_PLAIN_LENGTH) return null;
    return { ephemeralId: plaintext.subarray(0, 64), nonce: plaintext.subarray(64, 96), version: VERSION };
  }
  const l = listPrefix(plaintext);
  if (l === null || l.length < 2) return null;
  const [eph, nonce] = l;
  if (!(eph instanceof Uint8Array) || eph.length !== 64) return null;
  if (!(nonce instanceof Uint8Array) || nonce.length !== 32) return null;
  return { ephemeralId: eph, nonce, version: versionOf(l[2]) };
}

/** A keccak-256 running state (rate 136, Keccak padding 0x01). */
function newKeccak256(): Keccak {
  return new Keccak(136, 0x01, 32);
}

function xor32(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) out[i] = a[i]! ^ b[i]!;
  return out;
}

function padding(): Uint8Array {
  // SPEC: EIP-8 — pad with a random amount in [100, 300] bytes.
  return randomBytes(randomInt(100, 301));
}

function sealEip8(remotePublicKey: Uint8Array, body: Uint8Array): Uint8Array {
  const plain = concatBytes(body, padding());
  const size = plain.length + ECIES_OVERHEAD;
  const prefix = new Uint8Array([size >>> 8, size & 0xff]);
  return concatBytes(prefix, eciesEncrypt(remotePublicKey, plain, prefix));
}

/** The secrets of an established session (SPEC: rlpx.md "Secrets generated following the exchange"). */
export interface RlpxSecrets {
  aesSecret: Uint8Array;
  macSecret: Uint8Array;
  /** keccak states seeded with `(mac-secret ^ nonce) ‖ packet`, one per direction. */
  egressMac: Keccak;
  ingressMac: Keccak;
  /** The remote node id (64 bytes). */
  remoteId: Uint8Array;
}

export interface SecretInputs {
  initiator: boolean;
  ephemeralPrivateKey: Uint8Array;
  /** 65-byte uncompressed remote ephemeral key. */
  remoteEphemeralPublicKey: Uint8Array;
  initiatorNonce: Uint8Array;
  recipientNonce: Uint8Array;
  /** Both packets as sent on the wire (size prefix included for EIP-8). */
  authPacket: Uint8Array;
  ackPacket: Uint8Array;
  remoteId: Uint8Array;
}

/** Derives the session secrets; null when the remote ephemeral key is not a valid point. */
export function deriveSecrets(s: SecretInputs): RlpxSecrets | null {
  const ephemeralKey = ecdhX(s.ephemeralPrivateKey, s.remoteEphemeralPublicKey);
  if (ephemeralKey === null) return null;
  const sharedSecret = keccak256(concatBytes(ephemeralKey, keccak256(concatBytes(s.recipientNonce, s.initiatorNonce))));
  const aesSecret = keccak256(concatBytes(ephemeralKey, sharedSecret));
  const macSecret = keccak256(concatBytes(ephemeralKey, aesSecret));
  const mac1 = newKeccak256().update(xor32(macSecret, s.recipientNonce)).update(s.authPacket);
  const mac2 = newKeccak256().update(xor32(macSecret, s.initiatorNonce)).update(s.ackPacket);
  return {
    aesSecret,
    macSecret,
    egressMac: s.initiator ? mac1 : mac2,
    ingressMac: s.initiator ? mac2 : mac1,
    remoteId: s.remoteId,
  };
}

/** Initiator side: make the auth packet, then read the ack. */
export class InitiatorHandshake {
  readonly nonce: Uint8Array;
  readonly ephemeralPrivateKey: Uint8Array;
  readonly authPacket: Uint8Array;

  /** `remoteId` is the 64-byte node id dialled; throws a RangeError when it is not a curve point. */
  constructor(
    private readonly privateKey: Uint8Array,
    readonly remoteId: Uint8Array,
    opts: { ephemeralPrivateKey?: Uint8Array; nonce?: Uint8Array; plain?: boolean } = {},
  ) {
    const pub = nodeIdToPublicKey(remoteId);
    if (pub === null) throw new RangeError("rlpx: remote node id is not a secp256k1 public key");
    this.nonce = opts.nonce ?? randomBytes(32);
    this.ephemeralPrivateKey = opts.ephemeralPrivateKey ?? randomPrivateKey();
    const token = ecdhX(privateKey, pub)!;
    const sig = sign(xor32(token, this.nonce), this.ephemeralPrivateKey);
    const sig65 = new Uint8Array(65);
    signatureBytes(sig.r, sig.s, sig65);
    sig65[64] = sig.recid;
    const id = publicKeyOf(privateKey).subarray(1);
    if (opts.plain === true) {
      const ephPub = publicKeyOf(this.ephemeralPrivateKey).subarray(1);
      const plain = concatBytes(sig65, keccak256(ephPub), id, this.nonce, new Uint8Array(1));
      this.authPacket = eciesEncrypt(pub, plain, new Uint8Array(0));
    } else {
      this.authPacket = sealEip8(pub, encodeRlp([sig65, id, this.nonce, uintToRlpBytes(VERSION)]));
    }
  }

  /** Reads the ack at the start of `buf`: secrets and the bytes consumed, a need, or invalid. */
  readAck(buf: Uint8Array): { kind: "ok"; secrets: RlpxSecrets; consumed: number } | HandshakePending {
    const r = readHandshakePacket(buf, this.privateKey, ACK_PLAIN_PACKET_LENGTH);
    if (r.kind !== "ok") return r;
    const ack = decodeAck(r.plaintext, r.eip8);
    if (ack === null) return { kind: "invalid", reason: "malformed ack" };
    const remoteEph = nodeIdToPublicKey(ack.ephemeralId);
    if (remoteEph === null) return { kind: "invalid", reason: "ack ephemeral key is not a curve point" };
    const secrets = deriveSecrets({
      initiator: true,
      ephemeralPrivateKey: this.ephemeralPrivateKey,
      remoteEphemeralPublicKey: remoteEph,
      initiatorNonce: this.nonce,
      recipientNonce: ack.nonce,
      authPacket: this.authPacket,
      ackPacket: r.packet,
      remoteId: this.remoteId,
    });
    if (secrets === null) return { kind: "invalid", reason: "ecdh failed" };
    return { kind: "ok", secrets, consumed: r.packet.length };
  }
}

/** Recipient side: read the auth, answer with the ack in the same form, derive the secrets. */
export function respondToAuth(
  privateKey: Uint8Array,
  buf: Uint8Array,
  opts: { ephemeralPrivateKey?: Uint8Array; nonce?: Uint8Array } = {},
): { kind: "ok"; secrets: RlpxSecrets; ackPacket: Uint8Array; consumed: number; auth: AuthMessage } | HandshakePending {
  const r = readHandshakePacket(buf, privateKey, AUTH_PLAIN_PACKET_LENGTH);
  if (r.kind !== "ok") return r;
  const auth = decodeAuth(r.plaintext, r.eip8);
  if (auth === null) return { kind: "invalid", reason: "malformed auth" };
  const initiatorPub = nodeIdToPublicKey(auth.initiatorId);
  if (initiatorPub === null) return { kind: "invalid", reason: "auth initiator key is not a curve point" };
  const token = ecdhX(privateKey, initiatorPub);
  if (token === null) return { kind: "invalid", reason: "ecdh failed" };
  const recid = auth.signature[64]!;
  const remoteEph = recoverPublicKey(xor32(token, auth.nonce), auth.signature.subarray(0, 64), recid);
  if (remoteEph === null) return { kind: "invalid", reason: "auth signature does not recover" };
  const nonce = opts.nonce ?? randomBytes(32);
  const eph = opts.ephemeralPrivateKey ?? randomPrivateKey();
  const ephId = publicKeyOf(eph).subarray(1);
  const ackPacket = r.eip8
    ? sealEip8(initiatorPub, encodeRlp([ephId, nonce, uintToRlpBytes(VERSION)]))
    : eciesEncrypt(initiatorPub, concatBytes(ephId, nonce, new Uint8Array(1)), new Uint8Array(0));
  const secrets = deriveSecrets({
    initiator: false,
    ephemeralPrivateKey: eph,
    remoteEphemeralPublicKey: remoteEph,
    initiatorNonce: auth.nonce,
    recipientNonce: nonce,
    authPacket: r.packet.slice(),
    ackPacket,
    remoteId: auth.initiatorId.slice(),
  });
  if (secrets === null) return { kind: "invalid", reason: "ecdh failed" };
  return { kind: "ok", secrets, ackPacket, consumed: r.packet.length, auth };
}
