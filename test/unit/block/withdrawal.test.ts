import { strict as assert } from "node:assert";
import fc from "fast-check";
import { decodeWithdrawal, encodeWithdrawal, type Withdrawal } from "../../../src/block/withdrawal.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { encodeRlp } from "../../../src/rlp/encode.js";
import { errorCode, isTypedError } from "./helpers.js";

const MAX_U64 = (1n << 64n) - 1n;
const ADDR = new Uint8Array(20).fill(0xc9);

describe("block/withdrawal", () => {
  it("encodes rlp([index, validatorIndex, address, amount])", () => {
    const w: Withdrawal = { index: 0n, validatorIndex: 1n, address: ADDR, amount: 0x2710n };
    const enc = encodeWithdrawal(w);
    assert.equal(bytesToHex(enc), `0xda8001${"94"}${"c9".repeat(20)}822710`);
    assert.deepEqual(decodeWithdrawal(enc), w);
  });

  it("accepts the full u64 range and rejects 9-byte integers", () => {
    const w: Withdrawal = { index: MAX_U64, validatorIndex: MAX_U64, address: ADDR, amount: MAX_U64 };
    assert.deepEqual(decodeWithdrawal(encodeWithdrawal(w)), w);
    const nine = Uint8Array.of(1, 0, 0, 0, 0, 0, 0, 0, 0);
    for (const i of [0, 1, 3]) {
      const f = [Uint8Array.of(1), Uint8Array.of(2), ADDR, Uint8Array.of(3)];
      f[i] = nine;
      assert.equal(
        errorCode(() => decodeWithdrawal(encodeRlp(f))),
        "INT_TOO_LARGE",
        `field ${i}`,
      );
      f[i] = Uint8Array.of(0, 1);
      assert.equal(
        errorCode(() => decodeWithdrawal(encodeRlp(f))),
        "INT_LEADING_ZERO",
        `field ${i}`,
      );
    }
    assert.equal(
      errorCode(() => encodeWithdrawal({ ...w, amount: MAX_U64 + 1n })),
      "INT_TOO_LARGE",
    );
  });

  it("rejects wrong field counts and address lengths", () => {
    const one = Uint8Array.of(1);
    assert.equal(
      errorCode(() => decodeWithdrawal(encodeRlp([one, one, ADDR]))),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => decodeWithdrawal(encodeRlp([one, one, ADDR, one, one]))),
      "FIELD_COUNT",
    );
    assert.equal(
      errorCode(() => decodeWithdrawal(encodeRlp([one, one, new Uint8Array(19), one]))),
      "FIELD_LENGTH",
    );
    assert.equal(
      errorCode(() => encodeWithdrawal({ index: 0n, validatorIndex: 0n, address: new Uint8Array(21), amount: 0n })),
      "FIELD_LENGTH",
    );
  });

  it("round-trips random withdrawals and never throws untyped errors (fast-check)", () => {
    const u64 = fc.bigInt({ min: 0n, max: MAX_U64 });
    fc.assert(
      fc.property(
        u64,
        u64,
        fc.uint8Array({ minLength: 20, maxLength: 20 }),
        u64,
        (index, validatorIndex, address, amount) => {
          const w = { index, validatorIndex, address, amount };
          assert.deepEqual(decodeWithdrawal(encodeWithdrawal(w)), w);
        },
      ),
    );
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        try {
          decodeWithdrawal(b);
        } catch (e) {
          assert.ok(isTypedError(e), String(e));
        }
      }),
      { numRuns: 2000 },
    );
  });
});
