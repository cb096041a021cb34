/**
 * Native and pure backends must agree bit for bit: 10,000 random inputs per function (acceptance of
 * issue #2). When OPAL_NATIVE=0 the native side is absent and these tests say so and compare the
 * pure path with @noble directly; otherwise a missing native backend is a failure, not a skip.
 */
import { strict as assert } from "node:assert";
import { randomBytes } from "node:crypto";
import { ripemd160 as nobleRipemd } from "@noble/hashes/legacy.js";
import { sha256 as nobleSha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import {
  keccak256,
  keccak256Batch,
  keccak256MemWord,
  keccak256Pure,
  keccak256PureBatch,
  packItems,
} from "../../../src/crypto/keccak.js";
import { ripemd160 } from "../../../src/crypto/ripemd160.js";
import {
  recoverPublicKey,
  recoverPublicKeyPureChecked,
  sign,
  signatureBytes,
  signPure,
} from "../../../src/crypto/secp256k1.js";
import { sha256 } from "../../../src/crypto/sha256.js";
import { NATIVE_ENABLED, native, nativeStatus, secp256k1Native } from "../../../src/native/load.js";

const N = 10_000;

/** Deterministic pseudo-random lengths so failures reproduce; contents from randomBytes. */
function randomInputs(n: number, maxLen: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let seed = 0x9e3779b9;
  for (let i = 0; i < n; i++) {
    seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
    // Bias toward the rate boundary (136) and small trie-node sizes.
    const len = i % 10 === 0 ? 130 + (seed % 12) : seed % maxLen;
    out.push(new Uint8Array(randomBytes(len)));
  }
  return out;
}

const WORD_MAX = (1n << 256n) - 1n;

/**
 * Deterministic 256-bit words of every shape a remainder cares about: full width, 1 to 4 significant
 * 64-bit limbs, single bits, all-ones runs, values just below 2^256 (seeded, so failures reproduce).
 */
function randomWords(n: number): bigint[] {
  let s = 0x243f6a8885a308d3n;
  const next = (): bigint => {
    s = (s * 6364136223846793005n + 1442695040888963407n) & 0xffffffffffffffffn;
    return s;
  };
  const out: bigint[] = [];
  for (let i = 0; i < n; i++) {
    const full = (next() << 192n) | (next() << 128n) | (next() << 64n) | next();
    const k = Number(next() % 64n);
    const shape = i % 6;
    if (shape === 0) out.push(full);
    else if (shape === 1) out.push((full >> BigInt(64 * (i % 4))) >> BigInt(k));
    else if (shape === 2) out.push(1n << BigInt((k * 4 + i) % 256));
    else if (shape === 3) out.push((1n << BigInt((k * 4 + i) % 257)) - 1n);
    else if (shape === 4) out.push(WORD_MAX - (next() % 1000n));
    else out.push(next() % 10n);
  }
  return out;
}

describe("crypto: native vs pure (10,000 random inputs each)", function () {
  this.timeout(120_000);

  it("native backends are loaded unless OPAL_NATIVE=0", () => {
    const st = nativeStatus();
    if (!NATIVE_ENABLED) {
      assert.equal(native, null);
      assert.equal(secp256k1Native, null);
      return;
    }
    assert.ok(st.opal, `opal addon not loaded: ${st.reasons.opal}`);
    assert.ok(st.secp256k1, `libsecp256k1 not loaded: ${st.reasons.secp256k1}`);
  });

  it("keccak256: single calls", () => {
    for (const x of randomInputs(N, 600)) assert.deepEqual(keccak256(x), keccak256Pure(x));
  });

  it("keccak256: batched over packed input equals one call per item", () => {
    const items = randomInputs(N, 300);
    const { packed, offsets } = packItems(items);
    const batched = keccak256Batch(packed, offsets);
    const pure = new Uint8Array(N * 32);
    keccak256PureBatch(packed, offsets, pure);
    assert.deepEqual(batched, pure);
    for (let i = 0; i < N; i += 997) assert.deepEqual(batched.subarray(32 * i, 32 * i + 32), keccak_256(items[i]!));
  });

  it("keccak256MemWord: the digest of a memory slice as a big-endian word equals the pure hash read as one", () => {
    // A view at a byte offset into its buffer, as the addon must add the view's own offset.
    const mem = new Uint8Array(randomBytes(4096 + 8)).subarray(8);
    for (let i = 0; i < N; i++) {
      // Around the rate (135/136/137 bytes: one or two permutations) and the 64-byte EVM pair.
      const len = [0, 1, 32, 63, 64, 65, 135, 136, 137, 272, 1024, 1025, 3000][i % 13]!;
      const off = (i * 53) % (mem.length - len);
      const want = BigInt(`0x${Buffer.from(keccak256Pure(mem.subarray(off, off + len))).toString("hex")}`);
      assert.equal(keccak256MemWord(mem, off, len), want, `${off}+${len}`);
    }
  });

  it("native keccak256MemWord refuses a slice past the end of memory instead of reading past it", function () {
    if (native === null) this.skip(); // reason: checks the addon's bounds guard; nothing to check without it
    assert.throws(() => native!.keccak256MemWord(new Uint8Array(64), 1, 64));
    assert.throws(() => native!.keccak256MemWord(new Uint8Array(64).subarray(32), 0, 33));
    assert.throws(() => native!.keccak256MemWord(new Uint32Array(16) as unknown as Uint8Array, 0, 1));
  });

  it("native mulmod equals the bigint (a · b) mod n for every shape of word", function () {
    if (native === null) this.skip(); // reason: compares the addon with the bigint form; the pure path is that form
    const words = randomWords(3 * N);
    for (let i = 0; i < words.length; i += 3) {
      const [a, b, m] = [words[i]!, words[i + 1]!, words[i + 2]! || 1n];
      assert.equal(native!.mulmod(a, b, m), (a * b) % m, `${a} ${b} ${m}`);
    }
    const p = (1n << 256n) - 0x1000003d1n; // secp256k1's field prime, as in the compute-keccak loop
    assert.equal(native!.mulmod(p - 1n, p - 1n, p), 1n);
    assert.equal(native!.mulmod(WORD_MAX, WORD_MAX, WORD_MAX), 0n);
    assert.equal(native!.mulmod(WORD_MAX, WORD_MAX, WORD_MAX - 1n), 1n);
  });

  it("native mulmod refuses negative words and words of more than 256 bits", function () {
    if (native === null) this.skip(); // reason: checks the addon's argument guard; nothing to check without it
    assert.throws(() => native!.mulmod(-1n, 1n, 7n));
    assert.throws(() => native!.mulmod(1n, 1n << 256n, 7n));
    assert.throws(() => native!.mulmod(1n, 2n, 3 as unknown as bigint));
  });

  it("native batch rejects offsets outside the packed buffer instead of reading past it", function () {
    if (native === null) this.skip(); // reason: checks the addon's bounds guard; nothing to check without it
    assert.throws(() => native!.keccak256Batch(new Uint8Array(4), Uint32Array.of(0, 5), new Uint8Array(32)));
    assert.throws(() => native!.keccak256Batch(new Uint8Array(4), Uint32Array.of(3, 1), new Uint8Array(32)));
    assert.throws(() => native!.keccak256Batch(new Uint8Array(4), Uint32Array.of(0, 4), new Uint8Array(31)));
  });

  it("sha256 and ripemd160 agree with @noble/hashes", () => {
    for (const x of randomInputs(N, 300)) {
      assert.deepEqual(sha256(x), nobleSha256(x));
      assert.deepEqual(ripemd160(x), nobleRipemd(x));
    }
  });

  it("secp256k1: signing agrees, and recovery agrees on valid and random signatures", () => {
    const M = N / 2;
    for (let i = 0; i < M; i++) {
      const key = new Uint8Array(randomBytes(32));
      key[0] = (key[0]! % 0xfe) + 1; // keep below the curve order
      const msg = new Uint8Array(randomBytes(32));
      const s1 = sign(msg, key);
      if (i % 10 === 0) {
        const s2 = signPure(msg, key);
        assert.deepEqual([s1.r, s1.s, s1.recid], [s2.r, s2.s, s2.recid]);
      }
      const sig = signatureBytes(s1.r, s1.s)!;
      assert.deepEqual(recoverPublicKey(msg, sig, s1.recid), recoverPublicKeyPureChecked(msg, sig, s1.recid));
    }
    // Random (mostly invalid) signatures: both sides must agree on null vs the same key.
    for (let i = 0; i < M; i++) {
      const msg = new Uint8Array(randomBytes(32));
      const sig = new Uint8Array(randomBytes(64));
      if (i % 50 === 0) sig.fill(0, 0, 32); // r = 0
      if (i % 50 === 1) sig.fill(0xff, 32); // s ≥ n
      const recid = i & 1;
      assert.deepEqual(recoverPublicKey(msg, sig, recid), recoverPublicKeyPureChecked(msg, sig, recid));
    }
  });

  it("secp256k1: malformed inputs return null, never throw", () => {
    const msg = new Uint8Array(32);
    assert.equal(recoverPublicKey(msg, new Uint8Array(63), 0), null);
    assert.equal(recoverPublicKey(new Uint8Array(31), new Uint8Array(64).fill(1), 0), null);
    assert.equal(recoverPublicKey(msg, new Uint8Array(64).fill(1), 2), null);
    assert.equal(recoverPublicKey(msg, new Uint8Array(64), 0), null);
  });
});
