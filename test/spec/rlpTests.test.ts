/**
 * ethereum/tests RLPTests: every case of rlptest.json (encode `in`, compare to `out`, decode back),
 * invalidRLPTest.json (`out` must be rejected with an RlpError) and RandomRLPTests (`out` must decode
 * and re-encode to itself).
 */
import { strict as assert } from "node:assert";
import { bytesToHex, hexToBytes } from "../../src/primitives/hex.js";
import { bigintToBytes } from "../../src/primitives/u256.js";
import { decodeRlp, type RlpItem } from "../../src/rlp/decode.js";
import { encodeRlp, type RlpInput } from "../../src/rlp/encode.js";
import { RlpError } from "../../src/rlp/errors.js";
import { fixturePath, listFiles, readJson } from "../utils/fixtures.js";

type JsonIn = string | number | JsonIn[];

function toInput(v: JsonIn): RlpInput {
  if (Array.isArray(v)) return v.map(toInput);
  if (typeof v === "number") return bigintToBytes(BigInt(v));
  if (v.startsWith("#")) return bigintToBytes(BigInt(v.slice(1)));
  // Strings are byte strings of their UTF-16 code units (all test strings are Latin-1).
  return Uint8Array.from(v, (c) => c.charCodeAt(0));
}

function reencode(item: RlpItem): RlpInput {
  return Array.isArray(item) ? item.map(reencode) : item;
}

describe("spec: ethereum/tests RLPTests", () => {
  const dir = fixturePath("ethereum-tests", "RLPTests");
  const files = listFiles(dir);
  let cases = 0;

  after(() => console.log(`      RLPTests: ${cases} cases passed across ${files.length} files`));

  for (const file of files) {
    const tests = readJson<Record<string, { in: JsonIn; out: string }>>(file);
    describe(file.slice(dir.length + 1), () => {
      for (const [name, t] of Object.entries(tests)) {
        it(name, () => {
          const out = hexToBytes(t.out);
          if (t.in === "INVALID") {
            assert.throws(() => decodeRlp(out), RlpError);
          } else if (t.in === "VALID") {
            assert.equal(bytesToHex(encodeRlp(reencode(decodeRlp(out)))), bytesToHex(out));
          } else {
            assert.equal(bytesToHex(encodeRlp(toInput(t.in))), t.out.toLowerCase());
            assert.equal(bytesToHex(encodeRlp(reencode(decodeRlp(out)))), t.out.toLowerCase());
          }
          cases++;
        });
      }
    });
  }
});
