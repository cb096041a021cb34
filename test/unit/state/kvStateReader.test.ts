/**
 * decodeAccountRecord's in-place path (decodeAccountFast) against the generic RLP decode: the same
 * record for every well-formed row, and every other row left to the generic path, which refuses it.
 */
import { strict as assert } from "node:assert";
import { bytesToBigint } from "../../../src/primitives/u256.js";
import { decodeRlp } from "../../../src/rlp/decode.js";
import { decodeAccountFast, decodeAccountRecord, KvStateReader } from "../../../src/state/kvStateReader.js";
import { WriteBatch } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { encodeAccount } from "../../../src/trie/account.js";
import { mulberry32 } from "../../utils/prng.js";

/** The record as the generic RLP tree reads it. */
function viaTree(row: Uint8Array): { nonce: bigint; balance: bigint; storageRoot: Uint8Array; codeHash: Uint8Array } {
  const f = decodeRlp(row) as Uint8Array[];
  return { nonce: bytesToBigint(f[0]!), balance: bytesToBigint(f[1]!), storageRoot: f[2]!, codeHash: f[3]! };
}

function randomBig(rnd: () => number, bytes: number): bigint {
  let v = 0n;
  for (let i = 0; i < bytes; i++) v = (v << 8n) | BigInt(Math.floor(rnd() * 256));
  return v;
}

function randomHash(rnd: () => number): Uint8Array {
  return Uint8Array.from({ length: 32 }, () => Math.floor(rnd() * 256));
}

describe("decodeAccountRecord", () => {
  it("reads every well-formed row in place, as the generic decode reads it", () => {
    const rnd = mulberry32(25);
    const edges = [0n, 1n, 0x7fn, 0x80n, 0xffn, 0x100n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 64n - 1n, 2n ** 256n - 1n];
    for (let i = 0; i < 2_000; i++) {
      const nonce = i < edges.length ? edges[i]! : randomBig(rnd, Math.floor(rnd() * 9));
      const balance = i < edges.length ? edges[edges.length - 1 - i]! : randomBig(rnd, Math.floor(rnd() * 33));
      const row = encodeAccount(nonce, balance, randomHash(rnd), randomHash(rnd));
      const fast = decodeAccountFast(row);
      assert.ok(fast !== null, `row ${i} left the fast path`);
      assert.deepEqual(fast, viaTree(row));
      assert.deepEqual(decodeAccountRecord(row), viaTree(row));
    }
  });

  it("KvStateReader.balance reads the balance alone, as account() reads it, and 0 for no row", () => {
    const rnd = mulberry32(26);
    const kv = new MemoryKv();
    const b = new WriteBatch();
    const keys: Uint8Array[] = [];
    for (let i = 0; i < 200; i++) {
      const key = randomHash(rnd);
      keys.push(key);
      b.put(
        "hashedAccounts",
        key,
        encodeAccount(randomBig(rnd, 8), randomBig(rnd, Math.floor(rnd() * 33)), randomHash(rnd), randomHash(rnd)),
      );
    }
    kv.write(b);
    const r = new KvStateReader(kv);
    for (const key of keys) assert.equal(r.balance(key), viaTree(kv.get("hashedAccounts", key)!).balance);
    assert.equal(r.balance(randomHash(rnd)), 0n);
  });

  it("leaves every malformed row to the generic path, which refuses it", () => {
    const good = encodeAccount(5n, 10n ** 18n, new Uint8Array(32).fill(1), new Uint8Array(32).fill(2));
    const header = (payload: number[]): number[] =>
      payload.length < 56 ? [0xc0 + payload.length] : [0xf8, payload.length];
    const hash = (b: number, len = 32): number[] => [0x80 + len, ...new Array(len).fill(b)];
    const list = (...items: number[][]): Uint8Array => {
      const payload = items.flat();
      return Uint8Array.from([...header(payload), ...payload]);
    };
    const bad: [string, Uint8Array][] = [
      ["three fields", list([0x05], [0x0a], hash(1))],
      ["five fields", list([0x05], [0x0a], hash(1), hash(2), [0x01])],
      ["a single byte below 0x80 in the long form", list([0x81, 0x05], [0x0a], hash(1), hash(2))],
      ["a 31-byte storage root", list([0x05], [0x0a], hash(1, 31), hash(2, 33))],
      ["a list as the nonce", list([0xc1, 0x05], [0x0a], hash(1), hash(2))],
      ["a trailing byte", Uint8Array.from([...good, 0x00])],
      ["a truncated row", good.subarray(0, good.length - 1)],
      [
        "a long list header with a leading length byte too long",
        Uint8Array.from([0xf8, good[1]! + 1, ...good.subarray(2)]),
      ],
      ["a string instead of a list", Uint8Array.from([0xb8, good[1]!, ...good.subarray(2)])],
    ];
    for (const [what, row] of bad) {
      assert.equal(decodeAccountFast(row), null, `${what}: taken by the fast path`);
      assert.throws(() => decodeAccountRecord(row), Error, `${what}: accepted`);
    }
  });
});

/**
 * KvStateReader's `wholeStorage`: the same word for every slot as plain point reads give, whether
 * the contract's rows were read whole or not; a small contract stops costing point reads once read
 * whole, and a big one is read by bounded scans only (at most two rows a read done).
 */
describe("KvStateReader wholeStorage", () => {
  /** A MemoryKv counting point reads and scanned rows of hashedStorage. */
  class Counting extends MemoryKv {
    gets = 0;
    scanned = 0;
    override get(table: Parameters<MemoryKv["get"]>[0], key: Uint8Array): Uint8Array | undefined {
      if (table === "hashedStorage") this.gets++;
      return super.get(table, key);
    }
    override *iterate(
      table: Parameters<MemoryKv["iterate"]>[0],
      range?: Parameters<MemoryKv["iterate"]>[1],
    ): Iterable<[Uint8Array, Uint8Array]> {
      for (const e of super.iterate(table, range)) {
        if (table === "hashedStorage") this.scanned++;
        yield e;
      }
    }
  }

  /**
   * `rows` slots of contract `c`, and rows of its two neighbours (the addresses just below and
   * above) at `decoys`, slots `c` does not have.
   */
  function store(
    rnd: () => number,
    c: Uint8Array,
    rows: number,
  ): { kv: Counting; slots: Uint8Array[]; decoys: Uint8Array[] } {
    const kv = new Counting();
    const b = new WriteBatch();
    const slots: Uint8Array[] = [];
    const below = c.slice();
    below[31]--;
    const above = c.slice();
    above[31]++;
    const decoys = [randomHash(rnd), randomHash(rnd)];
    for (const n of [below, above]) {
      for (const d of decoys) b.put("hashedStorage", Uint8Array.from([...n, ...d]), Uint8Array.of(7));
    }
    for (let i = 0; i < rows; i++) {
      const s = randomHash(rnd);
      slots.push(s);
      b.put(
        "hashedStorage",
        Uint8Array.from([...c, ...s]),
        Uint8Array.from({ length: 1 + (i % 32) }, () => 1 + i),
      );
    }
    kv.write(b);
    return { kv, slots, decoys };
  }

  for (const rows of [0, 150, 1000]) {
    it(`a contract of ${rows} rows: every slot as point reads give it`, () => {
      const rnd = mulberry32(rows + 1);
      const c = randomHash(rnd);
      c[31] = 0x80;
      const { kv, slots, decoys } = store(rnd, c, rows);
      const plain = new KvStateReader(kv);
      const whole = new KvStateReader(kv, { wholeStorage: true });
      // Absent slots (a token's new holders) and present ones, mixed.
      const asks = Array.from({ length: 3000 }, (_, i) =>
        i % 3 === 0 && slots.length > 0
          ? slots[Math.floor(rnd() * slots.length)]!
          : i % 7 === 0
            ? decoys[i % 2]!
            : randomHash(rnd),
      );
      const want = asks.map((s) => plain.storage(c, s));
      kv.gets = 0;
      kv.scanned = 0;
      assert.deepEqual(
        asks.map((s) => whole.storage(c, s)),
        want,
      );
      if (rows <= 150) {
        // Read whole at its first try (64 reads, up to 128 rows) or the next (128 reads, 256 rows).
        assert.ok(kv.gets <= 128, `${kv.gets} point reads`);
        assert.ok(kv.scanned <= 129 + rows, `${kv.scanned} rows scanned`);
      } else {
        // Tries at 64, 128, …, 512 reads: whole at 512 (up to 1,024 rows); the failed scans read
        // at most limit + 1 rows each.
        assert.ok(kv.gets <= 512, `${kv.gets} point reads`);
        assert.ok(kv.scanned <= 129 + 257 + 513 + rows, `${kv.scanned} rows scanned`);
      }
    });
  }
});
