/**
 * One direction's RLPx MAC (SPEC: devp2p rlpx.md#mac): a running keccak-256 state over the
 * ciphertext, re-seeded per header and per frame with `aes(mac-secret, digest[:16]) ^ seed`.
 * PERF: no allocation per update apart from node:crypto's 16-byte ECB output; the digest is taken
 * from a reused clone of the running state (noble's `_cloneInto`), so the state itself never ends.
 */
import type { Cipher } from "node:crypto";
import type { Keccak } from "@noble/hashes/sha3.js";

export class RlpxMac {
  private readonly state: Keccak;
  private readonly scratch: Keccak;
  private readonly digestBuf = new Uint8Array(32);
  private readonly seed = new Uint8Array(16);
  private readonly frameSeed = new Uint8Array(16);

  /** `init` is the keccak state already fed `(mac-secret ^ nonce) ‖ handshake packet`; it is owned from here on. */
  constructor(
    init: Keccak,
    private readonly macCipher: Cipher,
  ) {
    this.state = init;
    this.scratch = init.clone();
  }

  /** Absorbs bytes (the frame ciphertext). */
  update(data: Uint8Array): void {
    this.state.update(data);
  }

  /** The current digest, as a view valid until the next call on this MAC. */
  digest(): Uint8Array {
    this.state._cloneInto(this.scratch);
    this.scratch.digestInto(this.digestBuf);
    return this.digestBuf;
  }

  /** Re-seeds with `aes(digest[:16]) ^ seed16` and writes the 16-byte MAC to `out[pos..]`. */
  private reseed(seed16: Uint8Array, out: Uint8Array, pos: number): void {
    const d = this.digest();
    const enc = this.macCipher.update(d.subarray(0, 16));
    const s = this.seed;
    for (let i = 0; i < 16; i++) s[i] = enc[i]! ^ seed16[i]!;
    this.state.update(s);
    const m = this.digest();
    for (let i = 0; i < 16; i++) out[pos + i] = m[i]!;
  }

  /** header-mac of a 16-byte header ciphertext, written to `out[pos..pos+16)`. */
  headerMac(headerCiphertext: Uint8Array, out: Uint8Array, pos: number): void {
    this.reseed(headerCiphertext, out, pos);
  }

  /** frame-mac after absorbing `frameCiphertext`, written to `out[pos..pos+16)`. */
  frameMac(frameCiphertext: Uint8Array, out: Uint8Array, pos: number): void {
    this.state.update(frameCiphertext);
    // The seed is the digest itself; copy it out because reseed overwrites the digest buffer.
    this.frameSeed.set(this.digest().subarray(0, 16));
    this.reseed(this.frameSeed, out, pos);
  }
}
