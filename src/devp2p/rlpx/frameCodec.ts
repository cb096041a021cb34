/**
 * RLPx framing (SPEC: devp2p rlpx.md#framing): `header-ct (16) ‖ header-mac (16) ‖ frame-ct ‖
 * frame-mac (16)` with AES-256-CTR (zero IV, one running stream per direction) and the keccak MACs
 * of `RlpxMac`. The header is `frame-size (3, BE) ‖ rlp([0, 0]) ‖ zero padding`. Ingress is split
 * in two steps so a reader can bound a frame by its declared size before buffering its body.
 * Both MACs are checked before decrypting; bad input returns a status, never throws.
 */
import { type Cipher, createCipheriv, createDecipheriv, type Decipher, timingSafeEqual } from "node:crypto";
import type { RlpxSecrets } from "./handshake.js";
import { RlpxMac } from "./rlpxMac.js";

/** Largest frame-data the 24-bit size field can carry. */
export const MAX_FRAME_SIZE = 0xffffff;
export const FRAME_HEADER_LENGTH = 32;
const ZERO_IV = new Uint8Array(16);
/** header-data: rlp([capability-id 0, context-id 0]) as geth and ethereumjs send it. */
const HEADER_DATA = [0xc2, 0x80, 0x80];

/** Negative results of the ingress steps. */
export const FrameStatus = {
  BadHeaderMac: -1,
  BadFrameMac: -2,
} as const;
export type FrameStatus = (typeof FrameStatus)[keyof typeof FrameStatus];

/** Bytes that follow a 32-byte header declaring `size`: padded ciphertext and the frame MAC. */
export function frameBodyLength(size: number): number {
  return ((size + 15) & ~15) + 16;
}

export class FrameCodec {
  private readonly enc: Cipher;
  private readonly dec: Decipher;
  private readonly egress: RlpxMac;
  private readonly ingress: RlpxMac;
  private readonly macBuf = new Uint8Array(16);

  constructor(secrets: RlpxSecrets) {
    this.enc = createCipheriv("aes-256-ctr", secrets.aesSecret, ZERO_IV);
    this.dec = createDecipheriv("aes-256-ctr", secrets.aesSecret, ZERO_IV);
    // One ECB cipher serves both MACs: ECB keeps no state between blocks.
    const macCipher = createCipheriv("aes-256-ecb", secrets.macSecret, null);
    macCipher.setAutoPadding(false);
    this.egress = new RlpxMac(secrets.egressMac, macCipher);
    this.ingress = new RlpxMac(secrets.ingressMac, macCipher);
  }

  /** The whole frame for `frameData` (`msg-id ‖ msg-data`), in one buffer. Throws a RangeError past 16 MiB. */
  encode(frameData: Uint8Array): Uint8Array {
    const size = frameData.length;
    if (size > MAX_FRAME_SIZE) throw new RangeError(`rlpx: frame of ${size} bytes exceeds the 24-bit size`);
    const padded = (size + 15) & ~15;
    const out = new Uint8Array(32 + padded + 16);
    out[0] = size >>> 16;
    out[1] = (size >>> 8) & 0xff;
    out[2] = size & 0xff;
    out[3] = HEADER_DATA[0]!;
    out[4] = HEADER_DATA[1]!;
    out[5] = HEADER_DATA[2]!;
    out.set(this.enc.update(out.subarray(0, 16)), 0);
    this.egress.headerMac(out.subarray(0, 16), out, 16);
    // Plaintext and its zero padding are laid out in place, then replaced by their ciphertext.
    out.set(frameData, 32);
    const body = out.subarray(32, 32 + padded);
    body.set(this.enc.update(body));
    this.egress.frameMac(body, out, 32 + padded);
    return out;
  }

  /**
   * Checks and decrypts a 32-byte header: the declared frame size, or `FrameStatus.BadHeaderMac`.
   * Advances the ingress state: call once per frame.
   */
  decodeHeader(header: Uint8Array): number {
    const mac = this.macBuf;
    this.ingress.headerMac(header.subarray(0, 16), mac, 0);
    if (!timingSafeEqual(mac, header.subarray(16, 32))) return FrameStatus.BadHeaderMac;
    const h = this.dec.update(header.subarray(0, 16));
    return (h[0]! << 16) | (h[1]! << 8) | h[2]!;
  }

  /**
   * Checks and decrypts the `frameBodyLength(size)` bytes after a header: the frame-data (a fresh
   * buffer of `size` bytes' view), or `FrameStatus.BadFrameMac`.
   */
  decodeBody(body: Uint8Array, size: number): Uint8Array | FrameStatus {
    const padded = (size + 15) & ~15;
    const ct = body.subarray(0, padded);
    const mac = this.macBuf;
    this.ingress.frameMac(ct, mac, 0);
    if (!timingSafeEqual(mac, body.subarray(padded, padded + 16))) return FrameStatus.BadFrameMac;
    const pt = this.dec.update(ct);
    return new Uint8Array(pt.buffer, pt.byteOffset, size);
  }
}
