/**
 * The access-list tracer (geth eth/tracers/logger/access_list_tracer.go) on small programs, and the
 * Evm's precompile option (geth `EVM.SetPrecompiles`, which eth_simulateV1's moved precompiles use).
 */
import { strict as assert } from "node:assert";
import { buildPreState, type FixtureAccount } from "../../../src/cli/evmTool/preState.js";
import { createAddress, Evm, type EvmOptions } from "../../../src/evm/evm.js";
import { precompileTable } from "../../../src/evm/precompiles/table.js";
import { Halt } from "../../../src/evm/status.js";
import { AccessListTracer } from "../../../src/evm/tracers/accessListTracer.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { Fork, l1Rules } from "../../../src/spec/forks.js";
import { KvStateReader } from "../../../src/state/kvStateReader.js";
import { bigintToAddress, WorldState } from "../../../src/state/worldState.js";
import type { AccessList } from "../../../src/tx/tx.js";
import { TEST_BLOCK } from "../../utils/blocks.js";

const CALLER = 0xca11e40000000000000000000000000000000001n;
const A = 0xc0de000000000000000000000000000000000001n;
const B = 0xc0de000000000000000000000000000000000002n;
const X = 0xaaaa000000000000000000000000000000000001n;
const Y = 0xaaaa000000000000000000000000000000000002n;
const Z = 0xaaaa000000000000000000000000000000000003n;
const h = (a: bigint): string => bytesToHex(bigintToAddress(a));
const push20 = (a: bigint): string => `73${a.toString(16).padStart(40, "0")}`;
/** A CALL-family opcode with zero in/out and, where it has one, zero value; result popped. */
const callOp = (to: bigint, op: string): string =>
  `6000600060006000${op === "f1" || op === "f2" ? "6000" : ""}${push20(to)}61ffff${op}50`;
const word = (v: number): string => `0x${v.toString(16).padStart(64, "0")}`;

function evmOf(alloc: Record<string, FixtureAccount>, options?: EvmOptions): Evm {
  const { kv } = buildPreState({ [h(CALLER)]: { balance: "0xffffffffffff" }, ...alloc });
  return new Evm(l1Rules(Fork.Prague), TEST_BLOCK, new WorldState(new KvStateReader(kv), kv), options);
}

/** Runs A's code with a fresh tracer seeded by `initial`; A and the caller are excluded, as a tx's from/to. */
function trace(alloc: Record<string, FixtureAccount>, initial: AccessList = []): Record<string, string[]> {
  const t = new AccessListTracer(initial, new Set([CALLER, A, 4n]));
  const evm = evmOf(alloc);
  evm.tracer = t;
  evm.call(CALLER, A, 0n, new Uint8Array(0), 1_000_000);
  return listJson(t.accessList());
}

function listJson(l: AccessList): Record<string, string[]> {
  const o: Record<string, string[]> = {};
  for (const e of l) o[bytesToHex(e.address)] = e.storageKeys.map((k) => bytesToHex(k));
  return o;
}

describe("evm/tracers/accessListTracer", () => {
  it("collects what geth's tracer collects: slots by storage context, addresses named by opcodes", () => {
    // SLOAD 1, SSTORE 2; BALANCE X, EXTCODESIZE Y, EXTCODEHASH Z; EXTCODECOPY B; DELEGATECALL B (B
    // stores slot 9 in A's storage); STATICCALL precompile 4; SELFDESTRUCT to Y.
    const code =
      "600154506005600255" +
      `${push20(X)}3150${push20(Y)}3b50${push20(Z)}3f50` +
      `6000600060006000${push20(B)}3c` +
      callOp(B, "f4") +
      callOp(4n, "fa") +
      `${push20(Y)}ff`;
    const got = trace({ [h(A)]: { code: `0x${code}` }, [h(B)]: { code: "0x600160095500" } });
    assert.deepEqual(got, {
      [h(A)]: [word(1), word(2), word(9)],
      [h(X)]: [],
      [h(Y)]: [],
      [h(Z)]: [],
      [h(B)]: [],
    });
    // Keys in geth's order: addresses ascending.
    assert.deepEqual(Object.keys(got), [h(X), h(Y), h(Z), h(A), h(B)].sort());
  });

  it("adds neither what CREATE makes nor an excluded address an opcode names", () => {
    // CREATE with empty initcode, BALANCE of the caller, CALL the precompile.
    const got = trace({ [h(A)]: { code: `0x600060006000f050${push20(CALLER)}3150${callOp(4n, "f1")}00` } });
    assert.deepEqual(got, {});
    const created = createAddress(bigintToAddress(A), 1n);
    assert.equal(got[h(created)], undefined);
  });

  it("drops seeded entries of excluded addresses whole (geth #34887) and keeps the rest", () => {
    const seed: AccessList = [
      { address: bigintToAddress(A), storageKeys: [hexToBytes(word(5))] },
      { address: bigintToAddress(X), storageKeys: [hexToBytes(word(3)), hexToBytes(word(1))] },
      { address: bigintToAddress(X), storageKeys: [] },
    ];
    assert.deepEqual(trace({ [h(A)]: { code: "0x00" } }, seed), { [h(X)]: [word(1), word(3)] });
  });

  it("ignores an opcode whose stack is too short (geth checks the length first)", () => {
    // BALANCE on an empty stack underflows; the run ends there.
    assert.deepEqual(trace({ [h(A)]: { code: "0x31" } }), {});
  });

  it("equals compares addresses and slots, not order", () => {
    const ex = new Set<bigint>();
    const one = new AccessListTracer(
      [
        { address: bigintToAddress(X), storageKeys: [hexToBytes(word(1)), hexToBytes(word(2))] },
        { address: bigintToAddress(Y), storageKeys: [] },
      ],
      ex,
    );
    const two = new AccessListTracer(
      [
        { address: bigintToAddress(Y), storageKeys: [] },
        { address: bigintToAddress(X), storageKeys: [hexToBytes(word(2)), hexToBytes(word(1))] },
      ],
      ex,
    );
    assert.ok(one.equals(two) && two.equals(one));
    const three = new AccessListTracer([{ address: bigintToAddress(X), storageKeys: [hexToBytes(word(1))] }], ex);
    assert.ok(!one.equals(three) && !three.equals(one));
    const four = new AccessListTracer(
      [
        { address: bigintToAddress(X), storageKeys: [hexToBytes(word(1)), hexToBytes(word(3))] },
        { address: bigintToAddress(Y), storageKeys: [] },
      ],
      ex,
    );
    assert.ok(!one.equals(four));
  });
});

describe("evm: the precompiles option", () => {
  const input = hexToBytes("0x1234");
  const identity = precompileTable(l1Rules(Fork.Prague)).get(4)!;
  /** Far above 2^53: a double of it stands for 2^107 neighbours too. */
  const MOVED = 0xc200000000000000000000000000000000000000n;

  it("calls reach the table given, by exact address; the warm set stays the fork's", () => {
    const precompiles = new Map([[MOVED, identity]]);
    const evm = evmOf({}, { precompiles });
    assert.ok(evm.isPrecompile(MOVED));
    assert.ok(!evm.isPrecompile(4n), "moved away");
    assert.ok(!evm.isPrecompile(MOVED + 1n), "a neighbour the same as a double is not a precompile");
    assert.equal(Number(MOVED + 1n), Number(MOVED));
    const r = evm.call(CALLER, MOVED, 0n, input, 100_000);
    assert.equal(r.halt, Halt.Return);
    assert.equal(bytesToHex(r.output), "0x1234");
    const near = evm.call(CALLER, MOVED + 1n, 0n, input, 100_000);
    assert.equal(near.halt, Halt.Stop);
    assert.equal(near.output.length, 0);
    const old = evm.call(CALLER, 4n, 0n, input, 100_000);
    assert.equal(old.output.length, 0);
    assert.equal(evm.precompiles, precompileTable(l1Rules(Fork.Prague)));
  });

  it("without it, the fork's table answers as before", () => {
    const evm = evmOf({});
    assert.ok(evm.isPrecompile(4n) && evm.isPrecompile(0x11n) && !evm.isPrecompile(0x12n) && !evm.isPrecompile(0x100n));
    assert.ok(!evm.isPrecompile(MOVED));
    assert.equal(bytesToHex(evm.call(CALLER, 4n, 0n, input, 100_000).output), "0x1234");
  });
});
