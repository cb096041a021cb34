/**
 * Snappy block and framed formats. Independent checks: `snappyjs` (a separate implementation of
 * the block format) must read what we compress and we must read what it compresses; the CRC-32C
 * check value 0xe3069283 for "123456789" (the catalogue value for CRC-32/ISCSI); framed streams
 * built by hand from google/snappy framing_format.txt; corrupt and hostile inputs must come back as
 * SnappyError values.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { createRequire } from "node:module";
import fc from "fast-check";
import {
  crc32c,
  SnappyError,
  snappyCompress,
  snappyFrameDecode,
  snappyFrameEncode,
  snappyUncompress,
  snappyUncompressedLength,
} from "../../../src/primitives/snappy.js";

// snappyjs ships no type declarations; load it through require with the two functions typed here.
const snappyjs = createRequire(import.meta.url)("snappyjs") as {
  compress(data: Uint8Array): Uint8Array;
  uncompress(data: Uint8Array, maxLength?: number): Uint8Array;
};

const MiB = 1024 * 1024;
const enc = (s: string) => new TextEncoder().encode(s);

function ok(v: Uint8Array | SnappyError): Uint8Array {
  if (v instanceof SnappyError) assert.fail(`unexpected SnappyError ${v.code}: ${v.message}`);
  return v;
}

function isErr(v: unknown, code?: string): void {
  assert.ok(v instanceof SnappyError, `want SnappyError, got ${String(v)}`);
  if (code !== undefined) assert.equal(v.code, code);
}

function repetitive(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  const word = enc(`opal-${seed}-block-`);
  for (let i = 0; i < n; i++) out[i] = i % 97 === 0 ? (i * seed) & 0xff : word[i % word.length]!;
  return out;
}

function masked(crc: number): number {
  return (((crc >>> 15) | (crc << 17)) + 0xa282ead8) >>> 0;
}

function chunk(type: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + body.length);
  out[0] = type;
  out[1] = body.length & 0xff;
  out[2] = (body.length >>> 8) & 0xff;
  out[3] = body.length >>> 16;
  out.set(body, 4);
  return out;
}

function crcLe(data: Uint8Array): Uint8Array {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setUint32(0, masked(crc32c(data)), true);
  return b;
}

const cat = (...p: Uint8Array[]) => {
  const out = new Uint8Array(p.reduce((n, x) => n + x.length, 0));
  let o = 0;
  for (const x of p) {
    out.set(x, o);
    o += x.length;
  }
  return out;
};

const STREAM_ID = Uint8Array.from([0xff, 0x06, 0x00, 0x00, 0x73, 0x4e, 0x61, 0x50, 0x70, 0x59]);

describe("primitives/snappy", () => {
  describe("block format", () => {
    it("round-trips empty, tiny and edge-sized inputs", () => {
      for (const n of [0, 1, 3, 4, 5, 59, 60, 61, 255, 256, 257, 65535, 65536, 65537, 200_000]) {
        for (const data of [repetitive(n, n), Uint8Array.from({ length: n }, (_, i) => (i * 2654435761) >>> 24)]) {
          const c = snappyCompress(data);
          assert.deepEqual(ok(snappyUncompress(c, data.length)), data, `n=${n}`);
          assert.equal(snappyUncompressedLength(c), n);
        }
      }
    });

    it("compresses repetitive data", () => {
      const data = repetitive(1 << 20, 7);
      const c = snappyCompress(data);
      assert.ok(c.length < data.length / 5, `compressed ${c.length} of ${data.length}`);
      const zeros = new Uint8Array(100_000);
      assert.ok(snappyCompress(zeros).length < 5000);
    });

    it("round-trips random and repetitive data (property)", () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 5000 }), fc.integer({ min: 0, max: 20 }), (a, reps) => {
          const data = cat(a, ...Array.from({ length: reps }, () => a.subarray(0, 1 + (reps % 50))), a);
          const c = snappyCompress(data);
          assert.deepEqual(ok(snappyUncompress(c, data.length)), data);
          assert.ok(c.length <= 32 + data.length + data.length / 6);
        }),
        { numRuns: 300 },
      );
    });

    it("snappyjs reads our output and we read snappyjs's output", () => {
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 3000 }), fc.nat(40), (a, reps) => {
          const data = cat(...Array.from({ length: reps + 1 }, () => a));
          const ours = snappyCompress(data);
          assert.deepEqual(new Uint8Array(snappyjs.uncompress(ours)), data);
          const theirs = new Uint8Array(snappyjs.compress(data));
          assert.deepEqual(ok(snappyUncompress(theirs, data.length)), data);
        }),
        { numRuns: 200 },
      );
      const big = repetitive(300_000, 3);
      assert.deepEqual(new Uint8Array(snappyjs.uncompress(snappyCompress(big))), big);
      assert.deepEqual(ok(snappyUncompress(new Uint8Array(snappyjs.compress(big)), big.length)), big);
    });

    it("decodes hand-made elements: literal, copy-1 overlapping, copy-2, copy-4", () => {
      // len 10; literal "ab"; copy-1 len 8 offset 2 → "ababababab"
      const a = Uint8Array.from([10, 1 << 2, 0x61, 0x62, 1 | ((8 - 4) << 2), 2]);
      assert.deepEqual(ok(snappyUncompress(a, 100)), enc("ababababab"));
      // copy-2 (tag 2): len 3 offset 1
      const b = Uint8Array.from([4, 0 << 2, 0x7a, 2 | ((3 - 1) << 2), 1, 0]);
      assert.deepEqual(ok(snappyUncompress(b, 100)), enc("zzzz"));
      // copy-4 (tag 3): len 2 offset 1
      const c = Uint8Array.from([3, 0, 0x71, 3 | ((2 - 1) << 2), 1, 0, 0, 0]);
      assert.deepEqual(ok(snappyUncompress(c, 100)), enc("qqq"));
      // literal with a 1-byte extended length (60): 61 bytes
      const lit = new Uint8Array(61).fill(0x41);
      const d = cat(Uint8Array.from([61, 60 << 2, 60]), lit);
      assert.deepEqual(ok(snappyUncompress(d, 100)), lit);
    });

    it("refuses a 4 GB header under a 10 MiB limit without allocating", () => {
      const hostile = Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x0f, 0x00]);
      assert.equal(snappyUncompressedLength(hostile), 0xffffffff);
      const before = process.memoryUsage().arrayBuffers;
      isErr(snappyUncompress(hostile, 10 * MiB), "too_large");
      assert.ok(process.memoryUsage().arrayBuffers - before < 64 * MiB);
      isErr(snappyUncompress(hostile, Number.NaN), "too_large");
    });

    it("rejects bad varints, truncation and corrupt elements", () => {
      isErr(snappyUncompress(new Uint8Array(0), 10), "varint");
      isErr(snappyUncompress(Uint8Array.from([0x80, 0x80]), 10), "varint");
      isErr(snappyUncompress(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), 10), "varint");
      isErr(snappyUncompress(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0x7f]), 2 ** 40), "varint");
      isErr(snappyUncompressedLength(new Uint8Array(0)), "varint");
      // literal longer than the input
      isErr(snappyUncompress(Uint8Array.from([5, 4 << 2, 1, 2]), 10), "corrupt");
      // literal longer than the declared length
      isErr(snappyUncompress(Uint8Array.from([1, 1 << 2, 1, 2]), 10), "corrupt");
      // copy before any output (offset > produced)
      isErr(snappyUncompress(Uint8Array.from([4, 1, 1]), 10), "corrupt");
      // copy with offset 0
      isErr(snappyUncompress(Uint8Array.from([5, 0, 0x61, 1, 0]), 10), "corrupt");
      // copy past the declared length
      isErr(snappyUncompress(Uint8Array.from([3, 0, 0x61, 1 | (4 << 2), 1]), 10), "corrupt");
      // truncated copy tags
      isErr(snappyUncompress(Uint8Array.from([5, 0, 0x61, 1]), 10), "corrupt");
      isErr(snappyUncompress(Uint8Array.from([5, 0, 0x61, 2, 1]), 10), "corrupt");
      isErr(snappyUncompress(Uint8Array.from([5, 0, 0x61, 3, 1, 0, 0]), 10), "corrupt");
      // truncated extended literal length
      isErr(snappyUncompress(Uint8Array.from([100, 61 << 2, 1]), 200), "corrupt");
      // output shorter than declared
      isErr(snappyUncompress(Uint8Array.from([5, 0, 0x61]), 10), "length");
    });

    it("never throws on truncated or mutated real streams", () => {
      const c = snappyCompress(repetitive(5000, 9));
      for (let n = 0; n < c.length; n++) {
        const r = snappyUncompress(c.subarray(0, n), 5000);
        assert.ok(r instanceof SnappyError, `prefix ${n}`);
      }
      fc.assert(
        fc.property(fc.nat(c.length - 1), fc.nat(255), (i, b) => {
          const m = c.slice();
          m[i] = b;
          const r = snappyUncompress(m, 10_000);
          assert.ok(r instanceof SnappyError || r instanceof Uint8Array);
        }),
        { numRuns: 1000 },
      );
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 200 }), (junk) => {
          const r = snappyUncompress(junk, 1 << 16);
          assert.ok(r instanceof SnappyError || r.length <= 1 << 16);
        }),
        { numRuns: 1000 },
      );
    });
  });

  describe("framed format", () => {
    it("CRC-32C check value", () => {
      assert.equal(crc32c(enc("123456789")), 0xe3069283);
      assert.equal(crc32c(new Uint8Array(0)), 0);
      // RFC 3720 B.4: 32 bytes of zeros → 0x8a9136aa
      assert.equal(crc32c(new Uint8Array(32)), 0x8a9136aa);
    });

    it("starts with the stream identifier and round-trips", () => {
      for (const n of [0, 1, 100, 65535, 65536, 65537, 300_000]) {
        const data = repetitive(n, n + 1);
        const f = snappyFrameEncode(data);
        assert.deepEqual(f.subarray(0, 10), STREAM_ID);
        assert.deepEqual(ok(snappyFrameDecode(f, n)), data);
      }
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 70_000 }), (d) => {
          assert.deepEqual(ok(snappyFrameDecode(snappyFrameEncode(d), d.length)), d);
        }),
        { numRuns: 50 },
      );
    });

    it("chunks hold at most 65536 uncompressed bytes; incompressible data goes uncompressed (0x01)", () => {
      const rnd = new Uint8Array(randomBytes(70_000));
      const f = snappyFrameEncode(rnd);
      const types: number[] = [];
      for (let s = 10; s < f.length; ) {
        const len = f[s + 1]! | (f[s + 2]! << 8) | (f[s + 3]! << 16);
        types.push(f[s]!);
        if (f[s] === 0x01) assert.ok(len - 4 <= 65536);
        s += 4 + len;
      }
      assert.deepEqual(types, [0x01, 0x01]);
      const rep = snappyFrameEncode(repetitive(70_000, 1));
      assert.equal(rep[10], 0x00);
      assert.ok(rep.length < 70_000 / 3);
    });

    it("decodes a hand-built stream with padding, skippable, repeated stream-id and both chunk kinds", () => {
      const a = enc("hello, ");
      const b = repetitive(1000, 4);
      const stream = cat(
        STREAM_ID,
        chunk(0xfe, new Uint8Array(3)),
        chunk(0x01, cat(crcLe(a), a)),
        chunk(0x80, enc("skip me")),
        STREAM_ID,
        chunk(0x00, cat(crcLe(b), new Uint8Array(snappyjs.compress(b)))),
        chunk(0xfd, new Uint8Array(0)),
      );
      assert.deepEqual(ok(snappyFrameDecode(stream, 2000)), cat(a, b));
    });

    it("rejects bad stream ids, CRCs, reserved chunks, truncation and oversize", () => {
      const data = repetitive(1000, 2);
      const good = snappyFrameEncode(data);
      isErr(snappyFrameDecode(good.subarray(10), 2000), "stream_id");
      isErr(snappyFrameDecode(new Uint8Array(0), 2000), "stream_id");
      const badId = good.slice();
      badId[5] ^= 1;
      isErr(snappyFrameDecode(badId, 2000), "stream_id");
      const badCrc = good.slice();
      badCrc[15] ^= 1;
      isErr(snappyFrameDecode(badCrc, 2000), "checksum");
      const badBody = good.slice();
      badBody[badBody.length - 1] ^= 0x55;
      isErr(snappyFrameDecode(badBody, 2000));
      for (const t of [0x02, 0x40, 0x7f])
        isErr(snappyFrameDecode(cat(STREAM_ID, chunk(t, new Uint8Array(2))), 10), "chunk");
      for (let n = 11; n < good.length; n++) isErr(snappyFrameDecode(good.subarray(0, n), 2000));
      isErr(snappyFrameDecode(good, 999), "too_large");
      isErr(snappyFrameDecode(cat(STREAM_ID, chunk(0x01, new Uint8Array(3))), 10), "chunk");
      const big = new Uint8Array(65537);
      isErr(snappyFrameDecode(cat(STREAM_ID, chunk(0x01, cat(crcLe(big), big))), 1 << 20), "chunk");
      // total across chunks over the limit
      const two = snappyFrameEncode(repetitive(100_000, 5));
      isErr(snappyFrameDecode(two, 99_999), "too_large");
      // a compressed chunk claiming 4 GB
      isErr(
        snappyFrameDecode(
          cat(STREAM_ID, chunk(0x00, Uint8Array.from([0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0x0f]))),
          10 * MiB,
        ),
        "too_large",
      );
    });

    it("survives a stream of 500,000 empty chunks", () => {
      const empty = chunk(0x01, crcLe(new Uint8Array(0)));
      const parts = new Uint8Array(10 + 500_000 * empty.length);
      parts.set(STREAM_ID, 0);
      for (let i = 0; i < 500_000; i++) parts.set(empty, 10 + i * empty.length);
      assert.deepEqual(ok(snappyFrameDecode(parts, 10)), new Uint8Array(0));
    });
  });
});
