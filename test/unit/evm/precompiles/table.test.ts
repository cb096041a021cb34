import { strict as assert } from "node:assert";
import { blsG1Msm } from "../../../../src/evm/precompiles/0c-blsG1Msm.js";
import { blsG2Msm } from "../../../../src/evm/precompiles/0e-blsG2Msm.js";
import { blsPairing } from "../../../../src/evm/precompiles/0f-blsPairing.js";
import { bn254Pairing, GRANITE_MAX_INPUT, JOVIAN_MAX_INPUT } from "../../../../src/evm/precompiles/08-bn254Pairing.js";
import { p256Verify } from "../../../../src/evm/precompiles/100-p256Verify.js";
import {
  buildPrecompileTable,
  P256VERIFY_ID,
  precompileAddress,
  precompileId,
  precompileTable,
} from "../../../../src/evm/precompiles/table.js";
import { type Precompile, PrecompileStatus } from "../../../../src/evm/precompiles/types.js";
import { Fork, l1Rules, OpFork, opRules } from "../../../../src/spec/forks.js";

const ids = (fork: Fork) => [...precompileTable(l1Rules(fork)).keys()].sort((a, b) => a - b);
const range = (a: number, b: number) => Array.from({ length: b - a + 1 }, (_, i) => a + i);

describe("evm/precompiles/table", () => {
  it("activates precompiles per L1 fork", () => {
    assert.deepEqual(ids(Fork.Frontier), range(1, 4));
    assert.deepEqual(ids(Fork.Homestead), range(1, 4));
    assert.deepEqual(ids(Fork.Byzantium), range(1, 8));
    assert.deepEqual(ids(Fork.Istanbul), range(1, 9));
    assert.deepEqual(ids(Fork.Berlin), range(1, 9));
    assert.deepEqual(ids(Fork.Shanghai), range(1, 9));
    assert.deepEqual(ids(Fork.Cancun), range(1, 10));
    assert.deepEqual(ids(Fork.Prague), range(1, 0x11));
    assert.deepEqual(ids(Fork.Osaka), [...range(1, 0x11), P256VERIFY_ID]);
  });

  it("adds P256VERIFY on OP chains from Fjord", () => {
    assert.equal(precompileTable(opRules(OpFork.Ecotone)).has(P256VERIFY_ID), false);
    assert.equal(precompileTable(opRules(OpFork.Fjord)).has(P256VERIFY_ID), true);
    assert.equal(precompileTable(opRules(OpFork.Fjord)).has(0x0a), true);
    assert.equal(precompileTable(opRules(OpFork.Fjord)).has(0x0b), false);
    assert.equal(precompileTable(opRules(OpFork.Isthmus)).has(0x11), true);
  });

  it("is frozen and memoised per rules", () => {
    const t = precompileTable(l1Rules(Fork.Prague));
    assert.equal(t, precompileTable(l1Rules(Fork.Prague)));
    assert.notEqual(t, buildPrecompileTable(l1Rules(Fork.Prague)));
    assert.throws(() => (t as Map<number, Precompile>).set(0x99, t.get(1) as Precompile));
    assert.equal(t.has(0x99), false);
  });

  it("maps addresses to ids and back", () => {
    assert.equal(precompileId(precompileAddress(0x100)), 0x100);
    assert.equal(precompileId(precompileAddress(0x0a)), 0x0a);
    const other = precompileAddress(1);
    other[0] = 1;
    assert.equal(precompileId(other), -1);
  });
});

describe("evm/precompiles gas", () => {
  const prague = l1Rules(Fork.Prague);

  it("returns OutOfGas and consumes the limit when the charge exceeds it", () => {
    const t = precompileTable(l1Rules(Fork.Osaka));
    const cases: [number, Uint8Array, number][] = [
      [0x01, new Uint8Array(128), 3000],
      [0x02, new Uint8Array(33), 84],
      [0x03, new Uint8Array(32), 720],
      [0x04, new Uint8Array(64), 21],
      [0x06, new Uint8Array(128), 150],
      [0x07, new Uint8Array(96), 6000],
      [0x08, new Uint8Array(192), 79_000],
      [0x0a, new Uint8Array(192), 50_000],
      [0x0b, new Uint8Array(256), 375],
      [0x0c, new Uint8Array(160), 12_000],
      [0x0d, new Uint8Array(512), 600],
      [0x0e, new Uint8Array(288), 22_500],
      [0x0f, new Uint8Array(384), 70_300],
      [0x10, new Uint8Array(64), 5500],
      [0x11, new Uint8Array(128), 23_800],
      [0x100, new Uint8Array(160), 6900],
    ];
    for (const [id, input, gas] of cases) {
      const fn = t.get(id) as Precompile;
      const short = fn(input, gas - 1, l1Rules(Fork.Osaka));
      assert.equal(short.status, PrecompileStatus.OutOfGas, `0x${id.toString(16)}`);
      assert.equal(short.gasUsed, gas - 1);
      assert.equal(short.output.length, 0);
      const enough = fn(input, gas, l1Rules(Fork.Osaka));
      assert.notEqual(enough.status, PrecompileStatus.OutOfGas, `0x${id.toString(16)} with exact gas`);
    }
    const blake = new Uint8Array(213);
    blake[3] = 12;
    assert.equal((t.get(0x09) as Precompile)(blake, 11, prague).status, PrecompileStatus.OutOfGas);
    assert.equal((t.get(0x09) as Precompile)(blake, 12, prague).gasUsed, 12);
  });

  it("modexp: EIP-198, EIP-2565 and EIP-7883 pricing, EIP-7823 bounds", () => {
    const t = precompileTable(l1Rules(Fork.Osaka));
    const fn = t.get(0x05) as Precompile;
    const input = new Uint8Array(96 + 3);
    input[31] = 1;
    input[63] = 1;
    input[95] = 1;
    input.set([3, 5, 7], 96); // 3^5 mod 7 = 5
    assert.equal(fn(input, 1_000_000, l1Rules(Fork.Byzantium)).gasUsed, 0);
    assert.equal(fn(input, 1_000_000, l1Rules(Fork.Berlin)).gasUsed, 200);
    const osaka = fn(input, 1_000_000, l1Rules(Fork.Osaka));
    assert.equal(osaka.gasUsed, 500);
    assert.deepEqual([...osaka.output], [5]);
    const tooLong = new Uint8Array(96);
    tooLong[30] = 0x04;
    tooLong[31] = 0x01; // base length 1025
    assert.equal(fn(tooLong, 1_000_000, l1Rules(Fork.Osaka)).status, PrecompileStatus.Failure);
    assert.equal(fn(tooLong, 1_000_000, l1Rules(Fork.Osaka)).gasUsed, 1_000_000);
    assert.equal(fn(tooLong, 10_000_000, l1Rules(Fork.Prague)).status, PrecompileStatus.Ok);
    const huge = new Uint8Array(96).fill(0xff);
    assert.equal(fn(huge, 1_000_000, l1Rules(Fork.Prague)).status, PrecompileStatus.OutOfGas);
  });

  it("bn254 pricing before and after EIP-1108", () => {
    const t = precompileTable(l1Rules(Fork.Byzantium));
    assert.equal((t.get(0x06) as Precompile)(new Uint8Array(0), 1e6, l1Rules(Fork.Byzantium)).gasUsed, 500);
    assert.equal((t.get(0x07) as Precompile)(new Uint8Array(0), 1e6, l1Rules(Fork.Byzantium)).gasUsed, 40_000);
    assert.equal((t.get(0x08) as Precompile)(new Uint8Array(0), 1e6, l1Rules(Fork.Byzantium)).gasUsed, 100_000);
    assert.equal((t.get(0x08) as Precompile)(new Uint8Array(0), 1e6, l1Rules(Fork.Istanbul)).gasUsed, 45_000);
  });

  it("P256VERIFY costs 3,450 under RIP-7212 (OP Fjord) and 6,900 from Osaka", () => {
    assert.equal(p256Verify(new Uint8Array(160), 1e6, opRules(OpFork.Fjord)).gasUsed, 3450);
    assert.equal(p256Verify(new Uint8Array(160), 1e6, l1Rules(Fork.Osaka)).gasUsed, 6900);
    assert.equal(p256Verify(new Uint8Array(160), 1e6, l1Rules(Fork.Osaka)).output.length, 0);
  });

  it("a failure consumes all gas", () => {
    const r = (precompileTable(prague).get(0x0b) as Precompile)(new Uint8Array(10), 50_000, prague);
    assert.equal(r.status, PrecompileStatus.Failure);
    assert.equal(r.gasUsed, 50_000);
  });
});

describe("evm/precompiles OP input caps", () => {
  /** Infinity-only inputs of `len` bytes: valid for every curve op, so only the cap can fail them. */
  function check(fn: Precompile, pair: number, cap: number, op: OpFork, lighter: OpFork | null): void {
    const over = new Uint8Array((Math.floor(cap / pair) + 1) * pair);
    const atCap = new Uint8Array(Math.floor(cap / pair) * pair);
    const gas = 1e12;
    assert.equal(fn(over, gas, opRules(op)).status, PrecompileStatus.Failure);
    assert.equal(fn(over, gas, opRules(op)).gasUsed, gas);
    assert.equal(fn(atCap, gas, opRules(op)).status, PrecompileStatus.Ok);
    if (lighter !== null) assert.equal(fn(over, gas, opRules(lighter)).status, PrecompileStatus.Ok);
    assert.equal(fn(over, gas, l1Rules(Fork.Prague)).status, PrecompileStatus.Ok);
  }

  it("bn256Pairing: 112,687 B from Granite, 81,984 B from Jovian", () => {
    check(bn254Pairing, 192, GRANITE_MAX_INPUT, OpFork.Granite, OpFork.Fjord);
    check(bn254Pairing, 192, JOVIAN_MAX_INPUT, OpFork.Jovian, OpFork.Isthmus);
  });

  it("BLS MSM and pairing caps from Isthmus and Jovian", function () {
    this.timeout(120_000);
    check(blsG1Msm, 160, 513_760, OpFork.Isthmus, null);
    check(blsG1Msm, 160, 288_960, OpFork.Jovian, OpFork.Isthmus);
    check(blsG2Msm, 288, 488_448, OpFork.Isthmus, null);
    check(blsG2Msm, 288, 278_784, OpFork.Jovian, OpFork.Isthmus);
    check(blsPairing, 384, 235_008, OpFork.Isthmus, null);
    check(blsPairing, 384, 156_672, OpFork.Jovian, OpFork.Isthmus);
  });
});
