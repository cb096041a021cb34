/**
 * The account-RLP accessors: the allocation-free fast path of storageRootOffset agrees with a full
 * RLP decode on every canonical shape (short and long list headers, empty, one-byte and multi-byte
 * nonce and balance), and anything non-canonical or malformed still fails with BAD_ACCOUNT.
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { decodeRlp } from "../../../src/rlp/decode.js";
import { accountStorageRoot, encodeAccount, storageRootOffset, withStorageRoot } from "../../../src/trie/account.js";
import { Rng } from "./helpers.js";

const ZERO32 = new Uint8Array(32);

describe("trie/account", () => {
  const rng = new Rng(2024);
  const nonces = [0, 1, 0x7f, 0x80, 0xff, 0x100, 123456, Number.MAX_SAFE_INTEGER];
  const balances = [0n, 1n, 0x7fn, 0x80n, 10n ** 18n, (1n << 256n) - 1n];

  it("finds the storageRoot of every canonical shape, as a full decode does", () => {
    for (const nonce of nonces) {
      for (const balance of balances) {
        const root = rng.bytes(32);
        const code = rng.bytes(32);
        const a = encodeAccount(nonce, balance, root, code);
        const fields = decodeRlp(a) as Uint8Array[];
        assert.equal(bytesToHex(fields[2]!), bytesToHex(root));
        const at = storageRootOffset(a);
        assert.equal(bytesToHex(a.subarray(at, at + 32)), bytesToHex(root), `nonce ${nonce} balance ${balance}`);
        assert.equal(bytesToHex(accountStorageRoot(a)), bytesToHex(root));
        assert.equal(withStorageRoot(a, root), a, "an equal root returns the same array");
        const other = rng.bytes(32);
        const patched = withStorageRoot(a, other);
        assert.notEqual(patched, a);
        assert.deepEqual(decodeRlp(patched), [fields[0], fields[1], other, code]);
        assert.equal(bytesToHex(accountStorageRoot(a)), bytesToHex(root), "the input is not modified");
      }
    }
  });

  it("rejects malformed and non-canonical rows with BAD_ACCOUNT", () => {
    const good = encodeAccount(5, 10n ** 18n);
    const bad: [string, Uint8Array][] = [
      ["empty", new Uint8Array(0)],
      ["a string", Uint8Array.of(0x82, 1, 2)],
      ["truncated", good.subarray(0, good.length - 1)],
      ["trailing byte", Uint8Array.of(...good, 0)],
      ["three fields", encodeRlpList([Uint8Array.of(1), Uint8Array.of(2), new Uint8Array(32)])],
      ["short root", encodeRlpList([Uint8Array.of(1), Uint8Array.of(2), new Uint8Array(31), new Uint8Array(32)])],
      ["non-canonical nonce", Uint8Array.of(0xf8, 69, 0x81, 0x05, 0x80, 0xa0, ...ZERO32, 0xa0, ...ZERO32)],
      ["list size with a leading zero", Uint8Array.of(0xf9, 0x00, 68, 0x80, 0x80, 0xa0, ...ZERO32, 0xa0, ...ZERO32)],
      ["long balance header", Uint8Array.of(0xf8, 68, 0x80, 0xb8, 0x00, 0xa0, ...ZERO32, 0xa0, ...ZERO32.subarray(1))],
    ];
    for (const [what, row] of bad) {
      assert.throws(() => storageRootOffset(row), { name: "TrieError", code: "BAD_ACCOUNT" }, what);
      assert.throws(() => withStorageRoot(row, new Uint8Array(32)), { code: "BAD_ACCOUNT" }, what);
    }
  });
});

/** rlp(list of short strings), enough for the malformed cases above. */
function encodeRlpList(items: Uint8Array[]): Uint8Array {
  const parts: number[] = [];
  for (const it of items) {
    if (it.length === 1 && it[0]! < 0x80) parts.push(it[0]!);
    else parts.push(0x80 + it.length, ...it);
  }
  return parts.length < 56 ? Uint8Array.of(0xc0 + parts.length, ...parts) : Uint8Array.of(0xf8, parts.length, ...parts);
}
