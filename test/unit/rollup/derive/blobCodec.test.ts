/**
 * The version-0 blob codec: round trips (fast-check, empty, maximum size), the bit layout against a
 * literal transcription of the spec's encoding pseudocode, and every way a blob is invalid (size,
 * version, length, a field element's top bits, data after the payload), plus op-node's leniency on
 * field element 0's top bits.
 */
import { strict as assert } from "node:assert";
import fc from "fast-check";
import {
  BLOB_SIZE,
  BlobDecodeError,
  type BlobDecodeErrorKind,
  decodeBlob,
  encodeBlob,
  MAX_BLOB_DATA_SIZE,
} from "../../../../src/rollup/derive/blobCodec.js";

/** The spec's pseudocode (ecotone/derivation.md#blob-encoding), transcribed read by read. */
function specEncode(data: Uint8Array): Uint8Array {
  const stream = new Uint8Array(4 + data.length);
  stream[1] = data.length >> 16;
  stream[2] = (data.length >> 8) & 0xff;
  stream[3] = data.length & 0xff;
  stream.set(data, 4);
  let r = 0;
  const read = (n: number): Uint8Array => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = r + i < stream.length ? stream[r + i] : 0;
    r += n;
    return out;
  };
  const blob = new Uint8Array(BLOB_SIZE);
  let w = 0;
  const write = (v: Uint8Array): void => {
    blob.set(v, w);
    w += v.length;
  };
  for (let round = 0; round < 1024; round++) {
    const tailA = read(31);
    const x = read(1)[0];
    write(Uint8Array.of(x & 0b0011_1111));
    write(tailA);
    const tailB = read(31);
    const y = read(1)[0];
    write(Uint8Array.of((y & 0b0000_1111) | ((x & 0b1100_0000) >> 2)));
    write(tailB);
    const tailC = read(31);
    const z = read(1)[0];
    write(Uint8Array.of(z & 0b0011_1111));
    write(tailC);
    const tailD = read(31);
    write(Uint8Array.of(((z & 0b1100_0000) >> 2) | ((y & 0b1111_0000) >> 4)));
    write(tailD);
  }
  return blob;
}

function decoded(blob: Uint8Array): Uint8Array {
  const r = decodeBlob(blob);
  if (r instanceof BlobDecodeError) assert.fail(`unexpected ${r.kind}: ${r.message}`);
  return r;
}

function rejects(blob: Uint8Array, kind: BlobDecodeErrorKind): void {
  const r = decodeBlob(blob);
  if (!(r instanceof BlobDecodeError)) assert.fail(`expected ${kind}, got ${r.length} bytes`);
  assert.equal(r.kind, kind, r.message);
}

function topBitsClear(blob: Uint8Array): boolean {
  for (let i = 0; i < BLOB_SIZE; i += 32) if (blob[i] & 0xc0) return false;
  return true;
}

function randomBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    out[i] = s >>> 24;
  }
  return out;
}

describe("rollup/derive/blobCodec", () => {
  it("round-trips arbitrary payloads and matches the spec's pseudocode bit for bit", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4000 }), (data) => {
        const blob = encodeBlob(data);
        assert.equal(blob.length, BLOB_SIZE);
        assert.ok(topBitsClear(blob));
        assert.deepEqual(blob, specEncode(data));
        assert.deepEqual(decoded(blob), data);
      }),
      { numRuns: 300 },
    );
  });

  it("round-trips large payloads, up to the 130044-byte maximum, and refuses more", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_BLOB_DATA_SIZE }), fc.integer(), (n, seed) => {
        const data = randomBytes(n, seed);
        const blob = encodeBlob(data);
        assert.ok(topBitsClear(blob));
        assert.deepEqual(decoded(blob), data);
      }),
      { numRuns: 40 },
    );
    for (const n of [0, 1, 27, 28, 123, 124, 127, 250, 251, MAX_BLOB_DATA_SIZE - 1, MAX_BLOB_DATA_SIZE]) {
      const data = randomBytes(n, n).map((b) => b | 0xc0); // high bits set everywhere
      const blob = encodeBlob(data);
      assert.deepEqual(blob, specEncode(data), `n=${n}`);
      assert.deepEqual(decoded(blob), data, `n=${n}`);
    }
    const full = encodeBlob(new Uint8Array(MAX_BLOB_DATA_SIZE).fill(0xff));
    assert.ok(topBitsClear(full));
    assert.throws(() => encodeBlob(new Uint8Array(MAX_BLOB_DATA_SIZE + 1)), RangeError);
  });

  it("encodes the empty payload as the all-zero blob, which decodes to nothing", () => {
    assert.deepEqual(encodeBlob(new Uint8Array(0)), new Uint8Array(BLOB_SIZE));
    assert.equal(decoded(new Uint8Array(BLOB_SIZE)).length, 0);
  });

  it("lays out version and length in field element 0", () => {
    const blob = encodeBlob(Uint8Array.of(0xaa, 0xbb));
    assert.deepEqual([...blob.subarray(0, 8)], [0, 0, 0, 0, 2, 0xaa, 0xbb, 0]);
    const big = encodeBlob(new Uint8Array(0x01fb03));
    assert.deepEqual([...big.subarray(1, 5)], [0, 0x01, 0xfb, 0x03]);
  });

  it("rejects a blob of the wrong size", () => {
    rejects(new Uint8Array(BLOB_SIZE - 1), "BLOB_SIZE");
    rejects(new Uint8Array(BLOB_SIZE + 32), "BLOB_SIZE");
    rejects(new Uint8Array(0), "BLOB_SIZE");
  });

  it("rejects an encoding version other than 0", () => {
    const blob = encodeBlob(Uint8Array.of(1, 2, 3));
    blob[1] = 1;
    rejects(blob, "VERSION");
  });

  it("rejects a length above 130044", () => {
    const blob = new Uint8Array(BLOB_SIZE);
    blob[2] = 0x01;
    blob[3] = 0xfc;
    blob[4] = 0xfd; // 130045
    rejects(blob, "LENGTH");
    blob.fill(0xff, 2, 5);
    rejects(blob, "LENGTH");
    blob[4] = 0xfc;
    blob[3] = 0xfb;
    blob[2] = 0x01; // 130044 exactly: valid
    assert.equal(decoded(blob).length, MAX_BLOB_DATA_SIZE);
  });

  it("rejects a field element with either top bit set", () => {
    const data = randomBytes(MAX_BLOB_DATA_SIZE, 7);
    for (const fe of [1, 2, 3, 4, 5, 1000, 4095]) {
      for (const bit of [0x80, 0x40]) {
        const blob = encodeBlob(data);
        blob[fe * 32] |= bit;
        rejects(blob, "FIELD_ELEMENT");
      }
    }
    // Past the payload: still invalid (op-node reports it as extraneous data; invalid either way).
    const short = encodeBlob(Uint8Array.of(1));
    short[4095 * 32] = 0x40;
    assert.ok(decodeBlob(short) instanceof BlobDecodeError);
  });

  it("accepts top bits in field element 0, as op-node and kona do (they mask its 6-bit header)", () => {
    const data = randomBytes(300, 3);
    for (const bit of [0x40, 0x80, 0xc0]) {
      const blob = encodeBlob(data);
      blob[0] |= bit;
      assert.deepEqual(decoded(blob), data);
    }
  });

  it("rejects any non-zero data after the payload", () => {
    const data = randomBytes(10, 11);
    // The next stream byte, still in field element 0.
    const a = encodeBlob(data);
    a[5 + 10] = 1;
    rejects(a, "EXTRANEOUS_DATA");
    // Round 0's reassembled bytes (x, y, z come from the 6-bit headers).
    for (const pos of [0, 32, 64, 96]) {
      const b = encodeBlob(data);
      b[pos] |= 0x01;
      rejects(b, "EXTRANEOUS_DATA");
    }
    // A later round, low bytes and header.
    for (const pos of [128 * 5 + 7, 128 * 700, 128 * 1023 + 127, BLOB_SIZE - 1]) {
      const c = encodeBlob(data);
      c[pos] = 0x01;
      rejects(c, "EXTRANEOUS_DATA");
    }
    // The last data byte of a full-size payload may be anything; the one before the end of stream too.
    const full = encodeBlob(new Uint8Array(MAX_BLOB_DATA_SIZE));
    full[BLOB_SIZE - 1] = 0x5a;
    assert.equal(decoded(full)[MAX_BLOB_DATA_SIZE - 1], 0x5a);
  });
});
