/**
 * batcher/channelOut compressedBound: no channel compresses to more than the bound, for input that
 * does not compress at all (random bytes) and input that does, with zlib and brotli, at sizes around
 * the compressors' block sizes. fillChannel trusts it to skip compression while a channel fills.
 */
import { strict as assert } from "node:assert";
import { compressedBound } from "../../../src/batcher/channelOut.js";
import { stringLength } from "../../../src/rlp/encode.js";
import { compressChannel } from "../../../src/rollup/derive/channelReader.js";
import { mulberry32 } from "../../utils/prng.js";

describe("batcher/channelOut: compressedBound", () => {
  const rand = mulberry32(1024);
  const sizes = [0, 1, 55, 56, 1000, 65_535, 65_536, 65_537, 131_072, 300_000];
  for (const algo of ["zlib", "brotli"] as const) {
    it(`${algo}: compressed channel ≤ bound, random and repetitive batches`, () => {
      let expanded = 0;
      for (const n of sizes) {
        for (const kind of ["random", "repeat"]) {
          const b = new Uint8Array(n);
          if (kind === "random") for (let i = 0; i < n; i++) b[i] = Math.floor(rand() * 256);
          else b.fill(7);
          const raw = stringLength(b);
          const out = compressChannel([b], algo).length;
          assert.ok(out <= compressedBound(raw), `${kind} ${n}: ${out} > ${compressedBound(raw)}`);
          if (kind === "random" && out > raw) expanded++;
        }
      }
      // Random input does expand: a bound of `raw` alone would be wrong.
      assert.ok(expanded > 0);
    });
  }
});
