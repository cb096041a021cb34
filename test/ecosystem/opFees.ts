/**
 * The OP Stack L1 data fee, computed here from the specs (not from Opal's code), so that the node's
 * answers (the GasPriceOracle's getL1Fee / getL1GasUsed, a receipt's l1Fee / l1GasUsed) are checked
 * against an independent computation: the L1-attributes deposit's calldata decoded, FastLZ's
 * compressed length, and Fjord's linear regression (specs protocol/fjord/exec-engine.md; op-geth
 * core/types/rollup_cost.go; contracts-bedrock GasPriceOracle.sol). Fjord's formula holds through
 * Isthmus and Jovian.
 */
import { type Hex, hexToBigInt, hexToBytes, sliceHex, toFunctionSelector } from "viem";

/** The L1 attributes an Ecotone+ L1-attributes deposit sets (packed calldata, not ABI-encoded). */
export interface L1Attributes {
  readonly format: "ecotone" | "isthmus" | "jovian";
  readonly baseFeeScalar: bigint;
  readonly blobBaseFeeScalar: bigint;
  readonly sequenceNumber: bigint;
  readonly timestamp: bigint;
  readonly number: bigint;
  readonly baseFee: bigint;
  readonly blobBaseFee: bigint;
  readonly hash: Hex;
  readonly batcherHash: Hex;
  /** Isthmus on (0 before). */
  readonly operatorFeeScalar: bigint;
  readonly operatorFeeConstant: bigint;
}

const FORMATS = [
  { format: "ecotone", selector: toFunctionSelector("setL1BlockValuesEcotone()"), size: 164 },
  { format: "isthmus", selector: toFunctionSelector("setL1BlockValuesIsthmus()"), size: 176 },
  { format: "jovian", selector: toFunctionSelector("setL1BlockValuesJovian()"), size: 178 },
] as const;

/** Decodes the calldata of the L1-attributes deposit (selector, then big-endian fields back to back). */
export function decodeL1Attributes(input: Hex): L1Attributes {
  const f = FORMATS.find((x) => input.startsWith(x.selector));
  if (f === undefined) throw new Error(`not an Ecotone+ L1-attributes call: ${input.slice(0, 10)}`);
  if ((input.length - 2) / 2 !== f.size)
    throw new Error(`${f.format} L1 attributes of ${(input.length - 2) / 2} bytes`);
  const at = (offset: number, size: number) => hexToBigInt(sliceHex(input, offset, offset + size));
  const isthmus = f.format !== "ecotone";
  return {
    format: f.format,
    baseFeeScalar: at(4, 4),
    blobBaseFeeScalar: at(8, 4),
    sequenceNumber: at(12, 8),
    timestamp: at(20, 8),
    number: at(28, 8),
    baseFee: at(36, 32),
    blobBaseFee: at(68, 32),
    hash: sliceHex(input, 100, 132),
    batcherHash: sliceHex(input, 132, 164),
    operatorFeeScalar: isthmus ? at(164, 4) : 0n,
    operatorFeeConstant: isthmus ? at(168, 8) : 0n,
  };
}

/**
 * The length FastLZ (level 1) compresses `data` to, as op-geth's `FlzCompressLen` and Solady's
 * `LibZip.flzCompress` count it: 3-byte sequences hashed into an 8192-entry table, a match within
 * 8191 bytes back costs 2 or 3 bytes per 262 of length, literals 1 byte per 32 plus themselves.
 */
export function flzCompressLen(data: Uint8Array): number {
  const n = data.length;
  const table = new Uint32Array(8192);
  const u24 = (i: number) => data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16);
  const hash = (v: number) => (Math.imul(v, 2654435769) >>> 19) & 0x1fff;
  let size = 0;
  const literals = (count: number) => {
    size += 33 * Math.floor(count / 32);
    const rest = count % 32;
    if (rest !== 0) size += rest + 1;
  };
  const match = (length: number) => {
    const l = length - 1;
    size += 3 * Math.floor(l / 262);
    size += l % 262 >= 6 ? 3 : 2;
  };
  const limit = n < 13 ? 0 : n - 13;
  let anchor = 0;
  let ip = 2;
  while (ip < limit) {
    let ref = 0;
    for (;;) {
      const seq = u24(ip);
      const h = hash(seq);
      ref = table[h]!;
      table[h] = ip;
      const distance = ip - ref;
      if (ip >= limit) break;
      ip++;
      if (distance < 8192 && seq === u24(ref)) break;
    }
    // No match before the limit (a match found just at it is not taken either).
    if (ip >= limit) break;
    ip--;
    if (ip > anchor) literals(ip - anchor);
    // The match's length past its first 3 bytes, up to 9 bytes before the end.
    let length = 0;
    const max = limit + 9 - (ip + 3);
    while (length < max) {
      const same = data[ref + 3 + length] === data[ip + 3 + length];
      length++;
      if (!same) break;
    }
    match(length);
    ip += length;
    table[hash(u24(ip))] = ip;
    ip++;
    table[hash(u24(ip))] = ip;
    ip++;
    anchor = ip;
  }
  literals(n - anchor);
  return size;
}

/** Fjord's estimated compressed size, scaled by 1e6: max(100e6, -42.5856e6 + 836500 * fastLzSize). */
export function fjordEstimatedSize(fastLzSize: number): bigint {
  const estimate = -42_585_600n + 836_500n * BigInt(fastLzSize);
  return estimate < 100_000_000n ? 100_000_000n : estimate;
}

/** Fjord's L1 fee of a tx whose FastLZ size is `fastLzSize`, at the L1 attributes `a`. */
export function fjordL1Fee(fastLzSize: number, a: L1Attributes): bigint {
  const feeScaled = a.baseFeeScalar * 16n * a.baseFee + a.blobBaseFeeScalar * a.blobBaseFee;
  return (fjordEstimatedSize(fastLzSize) * feeScaled) / 10n ** 12n;
}

/** Fjord's L1 gas of a tx whose FastLZ size is `fastLzSize`: the estimated size at 16 gas a byte. */
export function fjordL1GasUsed(fastLzSize: number): bigint {
  return (fjordEstimatedSize(fastLzSize) * 16n) / 1_000_000n;
}

/** The operator fee of `gasUsed` at `a` (Isthmus: scalar / 1e6 per gas; Jovian: scalar * 100 per gas). */
export function operatorFee(gasUsed: bigint, a: L1Attributes): bigint {
  if (a.format === "ecotone") return 0n;
  const perGas =
    a.format === "jovian" ? gasUsed * a.operatorFeeScalar * 100n : (gasUsed * a.operatorFeeScalar) / 1_000_000n;
  return perGas + a.operatorFeeConstant;
}

/** FastLZ lengths op-geth's and revm's tests assert (rollup_cost_test.go, fast_lz.rs), to check flzCompressLen. */
export const FLZ_VECTORS: readonly (readonly [Uint8Array, number])[] = [
  [new Uint8Array(0), 0],
  [new Uint8Array(1000).fill(1), 21],
  [new Uint8Array(1000), 21],
  [hexToBytes("0xFACADE"), 4],
  [
    hexToBytes(
      "0x02f901550a758302df1483be21b88304743f94f80e51afb613d764fa61751affd3313c190a86bb870151bd62fd12adb8e41ef24f3f000000000000000000000000000000000000000000000000000000000000006e000000000000000000000000af88d065e77c8cc2239327c5edb3a432268e5831000000000000000000000000000000000000000000000000000000000003c1e5000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000a000000000000000000000000000000000000000000000000000000000000000148c89ed219d02f1a5be012c689b4f5b731827bebe000000000000000000000000c001a033fd89cb37c31b2cba46b6466e040c61fc9b2a3675a7f5f493ebd5ad77c497f8a07cdf65680e238392693019b4092f610222e71b7cec06449cb922b93b6a12744e",
    ),
    202,
  ],
];
