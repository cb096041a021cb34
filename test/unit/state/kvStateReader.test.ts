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
