/**
 * batchCodec: the direct encoder writes exactly the bytes of rlp([[tableIndex, key, value | []], …])
 * as the generic RLP encoder makes them (the stored format of undo records), and decodes back; records
 * joined as bytes equal the joined batches encoded.
 */
import { strict as assert } from "node:assert";
import fc from "fast-check";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { encodeRlp, type RlpInput } from "../../../src/rlp/encode.js";
import {
  decodeBatch,
  decodeUndo,
  encodeBatch,
  encodeRangeDeletes,
  joinBatches,
  joinEncodedBatches,
} from "../../../src/storage/batchCodec.js";
import { WriteBatch } from "../../../src/storage/kv.js";
import { TABLE_NAMES } from "../../../src/storage/tables.js";

function idxOf(t: (typeof TABLE_NAMES)[number]): Uint8Array {
  return Uint8Array.of(TABLE_NAMES.indexOf(t));
}

function reference(b: WriteBatch): Uint8Array {
  const items: RlpInput[] = b.ops.map((op) => [
    Uint8Array.of(TABLE_NAMES.indexOf(op.table)),
    op.key,
    op.type === "put" ? op.value : [],
  ]);
  return encodeRlp(items);
}

const op = fc.record({
  table: fc.constantFrom(...TABLE_NAMES),
  key: fc.uint8Array({ maxLength: 70 }),
  // Lengths across the 1-byte / 55-byte / long-header bounds, single bytes below and above 0x80.
  value: fc.oneof(fc.uint8Array({ maxLength: 1 }), fc.uint8Array({ minLength: 50, maxLength: 300 })),
  put: fc.boolean(),
});

describe("storage/batchCodec", () => {
  it("encodeBatch equals the generic RLP of the op lists, and decodeBatch reads it back", () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const b = new WriteBatch();
        for (const o of ops) {
          if (o.put) b.put(o.table, o.key, o.value);
          else b.del(o.table, o.key);
        }
        const enc = encodeBatch(b);
        assert.equal(bytesToHex(enc), bytesToHex(reference(b)));
        const back = decodeBatch(enc);
        assert.deepEqual(
          back.ops.map((o) => [o.type, o.table, bytesToHex(o.key), o.type === "put" ? bytesToHex(o.value) : ""]),
          b.ops.map((o) => [o.type, o.table, bytesToHex(o.key), o.type === "put" ? bytesToHex(o.value) : ""]),
        );
      }),
    );
    // A record long enough for a multi-byte list header.
    const big = new WriteBatch();
    for (let i = 0; i < 2000; i++) big.put("hashedStorage", new Uint8Array(64).fill(i & 0xff), Uint8Array.of(i & 0x7f));
    assert.equal(bytesToHex(encodeBatch(big)), bytesToHex(reference(big)));
  });

  it("joinEncodedBatches equals encodeBatch of the joined batches, across list-header sizes", () => {
    const batchOf = (
      ops: { table: (typeof TABLE_NAMES)[number]; key: Uint8Array; value: Uint8Array; put: boolean }[],
    ) => {
      const b = new WriteBatch();
      for (const o of ops) {
        if (o.put) b.put(o.table, o.key, o.value);
        else b.del(o.table, o.key);
      }
      return b;
    };
    fc.assert(
      fc.property(fc.array(fc.array(op, { maxLength: 30 }), { minLength: 1, maxLength: 4 }), (parts) => {
        const batches = parts.map(batchOf);
        const joined = joinEncodedBatches(batches.map(encodeBatch));
        assert.equal(bytesToHex(joined), bytesToHex(encodeBatch(joinBatches(batches))));
      }),
    );
    // An empty batch, a one-byte header and a long one (a record per written slot) joined.
    const big = new WriteBatch();
    for (let i = 0; i < 2000; i++) big.del("hashedStorage", new Uint8Array(64).fill(i & 0xff));
    const small = new WriteBatch().put("meta", Uint8Array.of(1), Uint8Array.of(2));
    const parts = [small, new WriteBatch(), big];
    assert.equal(bytesToHex(joinEncodedBatches(parts.map(encodeBatch))), bytesToHex(encodeBatch(joinBatches(parts))));
    assert.throws(() => joinEncodedBatches([encodeBatch(small), Uint8Array.of(0x80)]));
  });

  it("encodeRangeDeletes writes [table, prefix] ops that decodeUndo reads back in order, and decodeBatch refuses", () => {
    for (const len of [1, 32, 55, 56, 300]) {
      const prefixes = [new Uint8Array(len).fill(0xaa), new Uint8Array(len).fill(0x01)];
      const got = encodeRangeDeletes("hashedStorage", prefixes);
      const idx = Uint8Array.of(TABLE_NAMES.indexOf("hashedStorage"));
      assert.equal(bytesToHex(got), bytesToHex(encodeRlp(prefixes.map((p) => [idx, p]))), `prefixes of ${len} bytes`);
      const u = decodeUndo(got);
      assert.equal(u.ranged, true);
      assert.deepEqual(
        u.ops.map((o) => [o.type, o.table, bytesToHex(o.type === "range" ? o.prefix : o.key)]),
        prefixes.map((p) => ["range", "hashedStorage", bytesToHex(p)]),
      );
      assert.throws(() => decodeBatch(got), { name: "StorageError", code: "CORRUPT" });
    }
    // Joined with a plain record, the ops keep their order; a record without ranges is not ranged.
    const plain = encodeBatch(new WriteBatch().put("meta", Uint8Array.of(1), Uint8Array.of(2)));
    const joined = decodeUndo(joinEncodedBatches([encodeRangeDeletes("code", [Uint8Array.of(9)]), plain]));
    assert.deepEqual(
      joined.ops.map((o) => o.type),
      ["range", "put"],
    );
    assert.equal(decodeUndo(plain).ranged, false);
    assert.equal(decodeUndo(encodeRangeDeletes("code", [])).ops.length, 0);
    assert.throws(() => encodeRangeDeletes("code", [new Uint8Array(0)]), /empty prefix/);
    assert.throws(() => decodeUndo(encodeRlp([[idxOf("code"), new Uint8Array(0)]])), {
      name: "StorageError",
      code: "CORRUPT",
    });
  });

  it("decodeBatch refuses a record that is not a list of [table, key, value | []] as CORRUPT", () => {
    const corrupt = { name: "StorageError", code: "CORRUPT" };
    const ok = encodeBatch(
      new WriteBatch().put("meta", Uint8Array.of(1), Uint8Array.of(2)).del("code", Uint8Array.of(3)),
    );
    assert.equal(decodeBatch(ok).ops.length, 2);
    const cases: [string, Uint8Array][] = [
      ["truncated", ok.subarray(0, ok.length - 1)],
      ["bytes after the list", Uint8Array.of(...ok, 0x00)],
      ["a string on top", encodeRlp(Uint8Array.of(1, 2, 3))],
      ["an op that is a string", encodeRlp([Uint8Array.of(1)])],
      ["two fields", encodeRlp([[Uint8Array.of(0), Uint8Array.of(1)]])],
      ["four fields", encodeRlp([[Uint8Array.of(0), Uint8Array.of(1), Uint8Array.of(2), Uint8Array.of(3)]])],
      ["an unknown table", encodeRlp([[Uint8Array.of(TABLE_NAMES.length), Uint8Array.of(1), Uint8Array.of(2)]])],
      ["a two-byte table index", encodeRlp([[Uint8Array.of(0, 0), Uint8Array.of(1), Uint8Array.of(2)]])],
      ["a list as key", encodeRlp([[Uint8Array.of(0), [], Uint8Array.of(2)]])],
      ["a non-empty list as value", encodeRlp([[Uint8Array.of(0), Uint8Array.of(1), [Uint8Array.of(2)]]])],
      ["a non-canonical single byte", Uint8Array.of(0xc5, 0xc4, 0x00, 0x81, 0x01, 0xc0)],
    ];
    for (const [what, bytes] of cases) assert.throws(() => decodeBatch(bytes), corrupt, what);
    // Values and keys come back as views into the record, not copies.
    const back = decodeBatch(ok);
    const put = back.ops[0]!;
    assert.equal(put.type, "put");
    assert.equal(put.key.buffer, ok.buffer);
  });
});
