/**
 * Shared builders for the block unit tests: a sample header with a chosen number of fields, a
 * fast-check arbitrary of headers, and `errorCode` that insists on a typed (BlockError/RlpError) throw.
 */
import { strict as assert } from "node:assert";
import fc from "fast-check";
import { BlockError } from "../../../src/block/errors.js";
import type { Header } from "../../../src/block/header.js";
import { RlpError } from "../../../src/rlp/errors.js";

/** Runs `fn`, which must throw a BlockError or RlpError; returns its code. */
export function errorCode(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof BlockError || e instanceof RlpError, `expected a typed error, got ${String(e)}`);
    return e.code;
  }
  assert.fail("expected a throw");
}

/** True when `e` is one of the typed errors decoders may throw. */
export function isTypedError(e: unknown): boolean {
  return e instanceof BlockError || e instanceof RlpError;
}

function filled(n: number, v: number): Uint8Array {
  return new Uint8Array(n).fill(v);
}

/** A header with `fields` fields (15 = pre-London … 21 = Prague); distinct byte patterns per field. */
export function sampleHeader(fields = 21): Header {
  return {
    parentHash: filled(32, 1),
    ommersHash: filled(32, 2),
    coinbase: filled(20, 3),
    stateRoot: filled(32, 4),
    transactionsRoot: filled(32, 5),
    receiptsRoot: filled(32, 6),
    logsBloom: filled(256, 7),
    difficulty: 131072n,
    number: 1_234_567,
    gasLimit: 30_000_000n,
    gasUsed: 21_000,
    timestamp: 1_700_000_000,
    extraData: Uint8Array.of(0xca, 0xfe),
    mixHash: filled(32, 8),
    nonce: filled(8, 9),
    baseFeePerGas: fields > 15 ? 7n : null,
    withdrawalsRoot: fields > 16 ? filled(32, 10) : null,
    blobGasUsed: fields > 17 ? 131072 : null,
    excessBlobGas: fields > 18 ? 0 : null,
    parentBeaconBlockRoot: fields > 19 ? filled(32, 11) : null,
    requestsHash: fields > 20 ? filled(32, 12) : null,
  };
}

const hash = fc.uint8Array({ minLength: 32, maxLength: 32 });
const safe = fc.maxSafeNat();
const u256 = fc.bigInt({ min: 0n, max: (1n << 256n) - 1n });

/** Random headers with a random valid number of trailing optional fields. */
export const headerArb: fc.Arbitrary<Header> = fc
  .record({
    parentHash: hash,
    ommersHash: hash,
    coinbase: fc.uint8Array({ minLength: 20, maxLength: 20 }),
    stateRoot: hash,
    transactionsRoot: hash,
    receiptsRoot: hash,
    logsBloom: fc.uint8Array({ minLength: 256, maxLength: 256 }),
    difficulty: u256,
    number: safe,
    gasLimit: fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
    gasUsed: safe,
    timestamp: safe,
    extraData: fc.uint8Array({ maxLength: 40 }),
    mixHash: hash,
    nonce: fc.uint8Array({ minLength: 8, maxLength: 8 }),
    baseFeePerGas: u256,
    withdrawalsRoot: hash,
    blobGasUsed: safe,
    excessBlobGas: safe,
    parentBeaconBlockRoot: hash,
    requestsHash: hash,
    fields: fc.integer({ min: 15, max: 21 }),
  })
  .map(({ fields, ...h }) => ({
    ...h,
    baseFeePerGas: fields > 15 ? h.baseFeePerGas : null,
    withdrawalsRoot: fields > 16 ? h.withdrawalsRoot : null,
    blobGasUsed: fields > 17 ? h.blobGasUsed : null,
    excessBlobGas: fields > 18 ? h.excessBlobGas : null,
    parentBeaconBlockRoot: fields > 19 ? h.parentBeaconBlockRoot : null,
    requestsHash: fields > 20 ? h.requestsHash : null,
  }));
