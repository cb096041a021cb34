/**
 * FastLZ length against an output-producing reference written here: a level-1 compressor with the
 * op-geth `FlzCompressLen` parsing rules (24-bit hashed windows, distance < 8192, 13-byte tail, no
 * match at the last position before it, 32-byte literal blocks, 262-byte match chunks) and a level-1 decompressor. Every reference output
 * must decompress to its input (so the reference is a real FastLZ stream), and its length must equal
 * `fastLzCompressedLength`. The vectors in test/spec/l1FeeVectors.test.ts pin the absolute values.
 */
import { strict as assert } from "node:assert";
import { fastLzCompressedLength } from "../../../../src/executor/op/fastLz.js";

function compressRef(src: Uint8Array): Uint8Array {
  const out: number[] = [];
  const table = new Map<number, number>();
  const w24 = (i: number): number => src[i] | (src[i + 1] << 8) | (src[i + 2] << 16);
  const h = (v: number): number => Number((BigInt(v) * 2654435769n) & 0xffffffffn) >>> 19;
  const emitLiterals = (from: number, to: number): void => {
    for (let s = from; s < to; ) {
      const run = Math.min(32, to - s);
      out.push(run - 1);
      for (let j = 0; j < run; j++) out.push(src[s++]);
    }
  };
  const limit = src.length < 13 ? 0 : src.length - 13;
  let anchor = 0;
  let i = 2;
  while (i < limit) {
    // Candidate: the last position with the same hash (0 if none), within 8191 and equal 3 bytes.
    let ref = 0;
    let found = false;
    while (i < limit) {
      const v = w24(i);
      ref = table.get(h(v)) ?? 0;
      table.set(h(v), i);
      if (i - ref < 8192 && v === w24(ref)) {
        found = true;
        break;
      }
      i++;
    }
    // The reference steps past a candidate before testing it and then re-checks the limit, so a
    // match found at the last position before the limit is dropped.
    if (!found || i + 1 >= limit) break;
    emitLiterals(anchor, i);
    // Length counted as the reference does: index of the first difference after the 3 equal bytes,
    // plus one, capped at the bound; the match then covers l + 2 bytes.
    const bound = limit + 9 - (i + 3);
    let l = 0;
    while (l < bound && src[ref + 3 + l] === src[i + 3 + l]) l++;
    if (l < bound) l++;
    const d = i - ref - 1;
    let rest = l;
    for (; rest > 262; rest -= 262) out.push(224 + (d >> 8), 253, d & 255);
    if (rest < 7) out.push((rest << 5) + (d >> 8), d & 255);
    else out.push(224 + (d >> 8), rest - 7, d & 255);
    i += l;
    table.set(h(w24(i)), i);
    table.set(h(w24(i + 1)), i + 1);
    i += 2;
    anchor = i;
  }
  emitLiterals(anchor, src.length);
  return Uint8Array.from(out);
}

function decompressRef(src: Uint8Array): Uint8Array {
  const out: number[] = [];
  let i = 0;
  while (i < src.length) {
    const t = src[i] >> 5;
    if (t === 0) {
      const n = src[i++] + 1;
      for (let j = 0; j < n; j++) out.push(src[i++]);
      continue;
    }
    const long = t === 7;
    const len = long ? 9 + src[i + 1] : 2 + t;
    const dist = 256 * (src[i] & 31) + src[i + (long ? 2 : 1)] + 1;
    i += long ? 3 : 2;
    const from = out.length - dist;
    assert.ok(from >= 0, "match reaches before the start");
    for (let j = 0; j < len; j++) out.push(out[from + j]);
  }
  return Uint8Array.from(out);
}

/** Deterministic generator (xorshift32). */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s;
  };
}

function check(input: Uint8Array, label: string): void {
  const ref = compressRef(input);
  assert.deepEqual(decompressRef(ref), input, `${label}: reference does not round-trip`);
  assert.equal(fastLzCompressedLength(input), ref.length, `${label}: length`);
}

describe("executor/op/fastLz", () => {
  it("is 0 for empty input, and right around the 13-byte tail", () => {
    assert.equal(fastLzCompressedLength(new Uint8Array(0)), 0);
    for (let n = 1; n <= 24; n++) check(new Uint8Array(n).fill(7), `fill ${n}`);
  });

  it("matches the reference on random, repetitive and sparse inputs", () => {
    const next = rng(0x5eed);
    for (let t = 0; t < 3000; t++) {
      const len = next() % (t < 2000 ? 400 : 6000);
      const alphabet = [2, 4, 16, 256][next() % 4];
      const b = new Uint8Array(len);
      for (let i = 0; i < len; i++) {
        const copy = i > 48 && next() % 3 === 0;
        b[i] = copy ? b[i - 1 - (next() % 48)] : next() % alphabet;
      }
      check(b, `case ${t} (len ${len})`);
    }
  });

  it("splits literal runs at 32 and long matches at 262", () => {
    const next = rng(42);
    for (const lit of [31, 32, 33, 64, 65]) {
      for (const run of [3, 8, 9, 262, 263, 264, 525, 1000]) {
        const b = new Uint8Array(lit + run + 20);
        for (let i = 0; i < lit; i++) b[i] = next() & 0xff;
        b.fill(0xab, lit, lit + run);
        for (let i = lit + run; i < b.length; i++) b[i] = next() & 0xff;
        check(b, `literals ${lit}, run ${run}`);
      }
    }
  });

  it("matches only within 8191 bytes back", () => {
    const next = rng(7);
    for (const gap of [8180, 8189, 8190, 8191, 8192, 8193, 9000]) {
      const block = Uint8Array.from({ length: 24 }, () => next() & 0xff);
      const b = new Uint8Array(gap + 24 + 40);
      for (let i = 0; i < b.length; i++) b[i] = next() & 0xff;
      b.set(block, 10);
      b.set(block, 10 + gap);
      check(b, `gap ${gap}`);
    }
  });

  it("is unaffected by a previous call (the scratch table is cleared)", () => {
    const a = Uint8Array.from({ length: 500 }, (_, i) => (i * 7) % 13);
    const b = Uint8Array.from({ length: 500 }, (_, i) => (i * 11) % 5);
    const alone = fastLzCompressedLength(b);
    fastLzCompressedLength(a);
    assert.equal(fastLzCompressedLength(b), alone);
  });
});
