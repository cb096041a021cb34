import { strict as assert } from "node:assert";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { decodeRlp } from "../../../src/rlp/decode.js";
import { encodeRlp } from "../../../src/rlp/encode.js";
import {
  blockItemLength,
  decodeTx,
  decodeTxAt,
  decodeTxFromBlockItem,
  encodeBlockItem,
  encodedTxLength,
  encodeTx,
  encodeTxInto,
  txHash,
} from "../../../src/tx/envelope.js";
import { TxError } from "../../../src/tx/errors.js";
import { type Tx, TxType } from "../../../src/tx/tx.js";
import { depositTx, legacy, signedSamples } from "./builders.js";

function samples(): { name: string; tx: Tx }[] {
  return [
    ...signedSamples(),
    { name: "deposit", tx: depositTx() },
    { name: "deposit creation, mint, system", tx: depositTx({ to: null, mint: 10n ** 18n, isSystemTx: true }) },
  ];
}

describe("tx/envelope", () => {
  for (const { name, tx } of samples()) {
    it(`${name}: encode(decode(x)) == x, exact size, fields kept`, () => {
      const bytes = encodeTx(tx);
      assert.equal(bytes.length, encodedTxLength(tx));
      if (tx.type === TxType.Legacy) assert.ok(bytes[0] >= 0xc0);
      else assert.equal(bytes[0], tx.type);
      const back = decodeTx(bytes);
      assert.equal(back.type, tx.type);
      assert.deepEqual(encodeTx(back), bytes);
      const { memo: _a, ...want } = tx;
      const { memo: _b, ...got } = back;
      assert.deepEqual(
        JSON.stringify(got, (_k, v) => (typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? bytesToHex(v) : v)),
        JSON.stringify(want, (_k, v) =>
          typeof v === "bigint" ? `${v}n` : v instanceof Uint8Array ? bytesToHex(v) : v,
        ),
      );
    });

    it(`${name}: block-item forms and hash`, () => {
      const envelope = encodeTx(tx);
      const item = encodeBlockItem(tx);
      assert.equal(item.length, blockItemLength(tx));
      if (tx.type === TxType.Legacy) assert.deepEqual(item, envelope);
      else assert.deepEqual(decodeRlp(item), envelope);
      // Walk a list of two items the way a body decoder does.
      const body = encodeRlp([decodeRlp(item) as Uint8Array, decodeRlp(item) as Uint8Array]);
      const listStart = body[0] < 0xf8 ? 1 : 1 + (body[0] - 0xf7);
      const first = decodeTxAt(body, listStart);
      const second = decodeTxAt(body, first.end);
      assert.equal(second.end, body.length);
      assert.deepEqual(encodeTx(first.tx), envelope);
      assert.deepEqual(txHash(second.tx), keccak256(envelope));
      // Tree form.
      const fromTree = decodeTxFromBlockItem(decodeRlp(item));
      assert.deepEqual(encodeTx(fromTree), envelope);
      assert.deepEqual(txHash(fromTree), keccak256(envelope));
      assert.deepEqual(txHash(tx), keccak256(envelope));
    });
  }

  it("encodeTxInto writes at an offset", () => {
    const tx = signedSamples()[4].tx;
    const out = new Uint8Array(encodedTxLength(tx) + 3);
    const end = encodeTxInto(out, 3, tx);
    assert.equal(end, out.length);
    assert.deepEqual(out.subarray(3), encodeTx(tx));
  });

  it("memoizes the hash and returns fresh encodings", () => {
    const bytes = encodeTx(signedSamples()[0].tx);
    const tx = decodeTx(bytes);
    assert.equal(tx.memo?.encoded, bytes);
    const h = txHash(tx);
    assert.equal(txHash(tx), h);
    assert.notEqual(encodeTx(tx), bytes);
  });

  it("encodes values across integer widths (0, 1 byte, 6/7/8 bytes, 32 bytes)", () => {
    for (const v of [0n, 1n, 127n, 128n, 255n, 256n, 2n ** 48n - 1n, 2n ** 48n, 2n ** 53n, 2n ** 56n, 2n ** 64n - 1n]) {
      const tx = legacy({ nonce: v, gasLimit: v, value: v * 3n, gasPrice: 2n ** 255n + v, v: 27n, r: 1n, s: 1n });
      const bytes = encodeTx(tx);
      const back = decodeTx(bytes) as typeof tx;
      assert.equal(back.nonce, v);
      assert.equal(back.gasLimit, v);
      assert.equal(back.value, v * 3n);
      assert.equal(back.gasPrice, 2n ** 255n + v);
      assert.deepEqual(
        bytes,
        encodeRlp([
          uint(v),
          uint(2n ** 255n + v),
          uint(v),
          legacy().to!,
          uint(v * 3n),
          legacy().data,
          uint(27n),
          uint(1n),
          uint(1n),
        ]),
      );
    }
  });

  it("refuses to encode out-of-range fields with a typed error", () => {
    assert.throws(
      () => encodeTx(legacy({ nonce: 2n ** 64n })),
      (e: unknown) => e instanceof TxError && e.code === "INT_OVERFLOW",
    );
    assert.throws(
      () => encodeTx(legacy({ value: 2n ** 256n })),
      (e: unknown) => e instanceof TxError && e.code === "INT_OVERFLOW",
    );
    assert.throws(
      () => encodeTx(legacy({ value: -1n })),
      (e: unknown) => e instanceof TxError && e.code === "INT_OVERFLOW",
    );
    assert.throws(
      () => encodeTx(legacy({ to: new Uint8Array(19) })),
      (e: unknown) => e instanceof TxError && e.code === "ADDRESS_LENGTH",
    );
  });

  it("decodes a known legacy vector (ethereum/tests-style bytes, hand-built)", () => {
    // rlp([0, 1, 21000, to, 11, "", 27, 1, 1])
    const bytes = hexToBytes("0xdf800182520894095e7baea6a6c7c4c2dfeb977efac326af552d870b801b0101");
    const tx = decodeTx(bytes);
    assert.equal(tx.type, TxType.Legacy);
    if (tx.type !== TxType.Legacy) return;
    assert.equal(tx.gasLimit, 21000n);
    assert.equal(tx.value, 11n);
    assert.equal(tx.v, 27n);
  });
});

function uint(v: bigint): Uint8Array {
  if (v === 0n) return new Uint8Array(0);
  let hex = v.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  return hexToBytes(hex);
}
