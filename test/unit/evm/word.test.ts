/**
 * word.ts (readWord/writeWord/loadWord/storeWord/loadBytes) against a plain byte-by-byte reference,
 * and memoryCost against the Yellow Paper's C_mem(a) = G_memory·a + ⌊a²/512⌋ (YP eq. 326, G_memory = 3),
 * computed here in bigint.
 */
import { strict as assert } from "node:assert";
import { memoryCost } from "../../../src/evm/opcodes/memory.js";
import { loadBytes, loadWord, readAddress, readWord, storeWord, wordBytes, writeWord } from "../../../src/evm/word.js";

const TWO_256 = 1n << 256n;

/** Reference: big-endian value of b[pos, pos+len), bytes past the end read as 0. */
function refRead(b: Uint8Array, pos: number, len: number): bigint {
  let v = 0n;
  for (let i = pos; i < pos + len; i++) v = (v << 8n) | BigInt(i < b.length ? b[i] : 0);
  return v;
}

function refBytes(v: bigint): number[] {
  const out: number[] = [];
  for (let i = 0; i < 32; i++) out.unshift(Number((v >> BigInt(8 * i)) & 0xffn));
  return out;
}

const EDGES = [
  0n,
  1n,
  0xffn,
  0x100n,
  (1n << 32n) - 1n,
  1n << 32n,
  (1n << 32n) + 1n,
  (1n << 48n) - 1n,
  (1n << 53n) - 1n,
  1n << 53n,
  (1n << 64n) - 1n,
  1n << 64n,
  (1n << 128n) - 1n,
  1n << 160n,
  1n << 255n,
  TWO_256 - 1n,
  0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdefn,
  0xf00000000000000000000000000000000000000000000000000000000000000n, // odd hex length (63 digits)
];

describe("evm/word", () => {
  it("writeWord / readWord round-trip the edge values, bytes as a reference encoder writes them", () => {
    for (const v of EDGES) {
      const buf = new Uint8Array(40).fill(0xaa);
      writeWord(v, buf, 4);
      assert.deepEqual([...buf.subarray(4, 36)], refBytes(v), `bytes of ${v.toString(16)}`);
      assert.deepEqual([...buf.subarray(0, 4)], [0xaa, 0xaa, 0xaa, 0xaa], "wrote before pos");
      assert.deepEqual([...buf.subarray(36)], [0xaa, 0xaa, 0xaa, 0xaa], "wrote past pos+32");
      assert.equal(readWord(buf, 4, 32), v);
      assert.deepEqual([...wordBytes(v)], refBytes(v));
    }
  });

  it("writeWord overwrites stale non-zero bytes with the leading zeros", () => {
    const buf = new Uint8Array(32).fill(0xff);
    writeWord(0x1234n, buf, 0);
    assert.equal(readWord(buf, 0, 32), 0x1234n);
    buf.fill(0xff);
    writeWord((1n << 32n) + 5n, buf, 0);
    assert.equal(readWord(buf, 0, 32), (1n << 32n) + 5n);
  });

  it("readWord of every length 0..32 at every alignment, incl. reads running past the end", () => {
    const b = new Uint8Array(37);
    for (let i = 0; i < b.length; i++) b[i] = (i * 73 + 11) & 0xff;
    for (let pos = 0; pos <= b.length + 3; pos++) {
      for (let len = 0; len <= 32; len++) {
        assert.equal(readWord(b, pos, len), refRead(b, pos, len), `pos ${pos} len ${len}`);
      }
    }
  });

  it("short code: PUSH-style reads past the end are zero-padded on the right", () => {
    const code = new Uint8Array([0x7f, 0x01, 0x02]); // PUSH32 with two immediate bytes
    assert.equal(readWord(code, 1, 32), 0x0102n << 240n);
    assert.equal(readWord(code, 1, 3), 0x010200n);
    assert.equal(readWord(code, 3, 5), 0n);
    assert.equal(readWord(new Uint8Array(0), 0, 32), 0n);
    assert.equal(readWord(new Uint8Array([0xff]), 0, 7), 0xff000000000000n);
  });

  it("readAddress takes 20 bytes", () => {
    const b = new Uint8Array(32);
    for (let i = 0; i < 32; i++) b[i] = i + 1;
    assert.equal(readAddress(b, 12), refRead(b, 12, 20));
  });

  it("loadWord/storeWord and loadBytes over a DataView agree with the reference", () => {
    const buf = new Uint8Array(64);
    const dv = new DataView(buf.buffer);
    for (const v of EDGES) {
      buf.fill(0xa5); // every byte of the word must be written, the leading zeros too
      storeWord(dv, 16, v);
      assert.deepEqual([...buf.subarray(16, 48)], refBytes(v));
      assert.equal(loadWord(dv, 16), v);
    }
    for (let i = 0; i < 64; i++) buf[i] = (i * 151 + 7) & 0xff;
    for (let n = 1; n <= 32; n++) {
      for (let pos = 0; pos + n <= 64; pos += 5)
        assert.equal(loadBytes(dv, pos, n), refRead(buf, pos, n), `n ${n} pos ${pos}`);
    }
  });

  describe("memoryCost = 3a + ⌊a²/512⌋ (Yellow Paper C_mem)", () => {
    const yp = (a: bigint): bigint => 3n * a + (a * a) / 512n;
    it("matches for small, boundary and large word counts up to the 2^32-byte memory limit", () => {
      const sizes: number[] = [];
      for (let a = 0; a <= 2048; a++) sizes.push(a);
      for (let k = 10; k <= 27; k++) {
        const p = 2 ** k;
        sizes.push(p - 1, p, p + 1, p + 511, p + 513);
      }
      sizes.push(2 ** 27, 123_456_789, 99_999_999);
      for (const a of sizes) assert.equal(BigInt(memoryCost(a)), yp(BigInt(a)), `a = ${a}`);
    });

    it("known values: 1 word 3 gas, 32 words 98, 1024 words 5120", () => {
      // 3·1 + 0; 3·32 + ⌊1024/512⌋ = 98; 3·1024 + ⌊1048576/512⌋ = 3072 + 2048.
      assert.equal(memoryCost(1), 3);
      assert.equal(memoryCost(32), 98);
      assert.equal(memoryCost(1024), 5120);
    });
  });
});
