import { strict as assert } from "node:assert";
import { pointEvaluation } from "../../../../src/evm/precompiles/0a-pointEvaluation.js";
import { ecrecover } from "../../../../src/evm/precompiles/01-ecrecover.js";
import { identity } from "../../../../src/evm/precompiles/04-identity.js";
import { blake2f } from "../../../../src/evm/precompiles/09-blake2f.js";
import { PrecompileStatus } from "../../../../src/evm/precompiles/types.js";
import { Fork, l1Rules } from "../../../../src/spec/forks.js";

const rules = l1Rules(Fork.Cancun);

describe("evm/precompiles behaviour", () => {
  it("ecrecover: bad v, r or s is an empty success, not a failure", () => {
    const input = new Uint8Array(128).fill(1);
    const r = ecrecover(input, 5000, rules);
    assert.equal(r.status, PrecompileStatus.Ok);
    assert.equal(r.gasUsed, 3000);
    assert.equal(r.output.length, 0);
    assert.equal(ecrecover(new Uint8Array(0), 3000, rules).output.length, 0);
  });

  it("identity copies its input", () => {
    const input = Uint8Array.of(1, 2, 3);
    const r = identity(input, 100, rules);
    assert.deepEqual(r.output, input);
    assert.notEqual(r.output, input);
    assert.equal(r.gasUsed, 18);
  });

  it("blake2f: wrong length or final flag > 1 fails and consumes all gas", () => {
    assert.equal(blake2f(new Uint8Array(212), 1000, rules).status, PrecompileStatus.Failure);
    const bad = new Uint8Array(213);
    bad[212] = 2;
    const r = blake2f(bad, 1000, rules);
    assert.equal(r.status, PrecompileStatus.Failure);
    assert.equal(r.gasUsed, 1000);
  });

  it("point evaluation: wrong length or versioned hash fails", () => {
    assert.equal(pointEvaluation(new Uint8Array(191), 60_000, rules).status, PrecompileStatus.Failure);
    const r = pointEvaluation(new Uint8Array(192), 60_000, rules);
    assert.equal(r.status, PrecompileStatus.Failure);
    assert.equal(r.gasUsed, 60_000);
  });
});
