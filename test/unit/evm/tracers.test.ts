/**
 * The tracing hooks and geth's tracers on small programs: nested calls, reverts with a reason,
 * creates, precompile and code-less calls, SELFDESTRUCT — callTracer, struct logger, prestate
 * (plain and diffMode), 4byte and the Parity flat traces.
 */
import { strict as assert } from "node:assert";
import { buildPreState, type FixtureAccount } from "../../../src/cli/evmTool/preState.js";
import type { BlockContext } from "../../../src/evm/context.js";
import { createAddress, Evm } from "../../../src/evm/evm.js";
import type { EvmTracer } from "../../../src/evm/tracer.js";
import { CallTracer } from "../../../src/evm/tracers/callTracer.js";
import { unpackRevert } from "../../../src/evm/tracers/format.js";
import { FourByteTracer } from "../../../src/evm/tracers/fourByteTracer.js";
import { ParityTracer } from "../../../src/evm/tracers/parityTracer.js";
import { PrestateTracer } from "../../../src/evm/tracers/prestateTracer.js";
import { StructLogger } from "../../../src/evm/tracers/structLogger.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { Fork, l1Rules } from "../../../src/spec/forks.js";
import { KvStateReader } from "../../../src/state/kvStateReader.js";
import { bigintToAddress, WorldState } from "../../../src/state/worldState.js";
import { TEST_BLOCK } from "../../utils/blocks.js";

const CALLER = 0xca11e40000000000000000000000000000000001n;
const A = 0xc0de000000000000000000000000000000000001n;
const B = 0xc0de000000000000000000000000000000000002n;
const BENEFICIARY = 0xbe00000000000000000000000000000000000001n;
const h = (a: bigint): string => bytesToHex(bigintToAddress(a));

const BLOCK: BlockContext = TEST_BLOCK;

const push20 = (a: bigint): string => `73${a.toString(16).padStart(40, "0")}`;
const p1 = (v: number): string => `60${v.toString(16).padStart(2, "0")}`;
/** A CALL-family opcode (gas 0xffff, value 0 where it has one, in [0, inSize), out [0, 0x20)), result popped. */
const callOp = (to: bigint, inSize = 0, op = "f1"): string =>
  `${p1(0x20)}${p1(0)}${p1(inSize)}${p1(0)}${op === "f1" || op === "f2" ? p1(0) : ""}${push20(to)}61ffff${op}50`;
/** callOp then STOP. */
const callTo = (to: bigint, inSize = 0, op = "f1"): string => `${callOp(to, inSize, op)}00`;
/** Stores 42 and returns 32 bytes. */
const RETURN_42 = "602a60005260206000f3";
/** Reverts with Error("boom"). */
const REVERT_BOOM =
  "7f08c379a000000000000000000000000000000000000000000000000000000000600052" +
  "6020600452" +
  "6004602452" +
  `7f${Buffer.from("boom").toString("hex").padEnd(64, "0")}604452` +
  "60646000fd";

interface Result {
  evm: Evm;
  st: WorldState;
  halt: number;
  gasLeft: number;
}

function run(alloc: Record<string, FixtureAccount>, tracer: EvmTracer, input = "", gas = 100_000): Result {
  const { kv } = buildPreState({ [h(CALLER)]: { balance: "0xffffffffffff" }, ...alloc });
  const st = new WorldState(new KvStateReader(kv), kv);
  const evm = new Evm(l1Rules(Fork.Cancun), BLOCK, st);
  evm.tracer = tracer;
  const data = hexToBytes(`0x${input}`);
  tracer.onTxStart?.({
    from: CALLER,
    to: A,
    value: 0n,
    input: data,
    gasLimit: gas,
    gasPrice: 0n,
    state: st,
    block: BLOCK,
  });
  const r = evm.call(CALLER, A, 0n, data, gas);
  tracer.onTxEnd?.({ gasUsed: gas - r.gasLeft, status: r.halt <= 2 ? 1 : 0, error: null });
  return { evm, st, halt: r.halt, gasLeft: r.gasLeft };
}

describe("evm/tracers", () => {
  describe("callTracer", () => {
    it("nests a CALL with its output and gas", () => {
      const t = new CallTracer();
      run({ [h(A)]: { code: `0x${callTo(B)}` }, [h(B)]: { code: `0x${RETURN_42}` } }, t);
      const r = t.result() as Record<string, any>;
      assert.equal(r.type, "CALL");
      assert.equal(r.from, h(CALLER));
      assert.equal(r.to, h(A));
      assert.equal(r.gas, "0x186a0");
      assert.equal(r.value, "0x0");
      assert.equal(r.calls.length, 1);
      const c = r.calls[0];
      assert.equal(c.type, "CALL");
      assert.equal(c.from, h(A));
      assert.equal(c.to, h(B));
      assert.equal(c.output, `0x${"2a".padStart(64, "0")}`);
      assert.equal(c.gasUsed, "0x12");
      assert.equal(Object.keys(r).at(-1), "type");
    });

    it("a revert carries error, output and revertReason; onlyTopCall drops children", () => {
      const alloc = { [h(A)]: { code: `0x${callTo(B)}` }, [h(B)]: { code: `0x${REVERT_BOOM}` } };
      const t = new CallTracer();
      run(alloc, t);
      const c = (t.result() as any).calls[0];
      assert.equal(c.error, "execution reverted");
      assert.equal(c.revertReason, "boom");
      assert.ok(c.output.startsWith("0x08c379a0"));
      const top = new CallTracer({ onlyTopCall: true });
      run(alloc, top);
      assert.equal((top.result() as any).calls, undefined);
    });

    it("shows precompile and code-less calls, creates and SELFDESTRUCT", () => {
      const t = new CallTracer();
      // STATICCALL identity with 32 bytes, CALL an empty account, CREATE (initcode returns 1 byte), SELFDESTRUCT.
      const code =
        "602a600052" +
        callOp(4n, 0x20, "fa") +
        `6000600060006000600073${"dead".padStart(40, "0")}61fffff150` +
        "6460016000f36000526005601b6000f050" +
        `${push20(BENEFICIARY)}ff`;
      const r = run({ [h(A)]: { code: `0x${code}`, balance: "0x64" } }, t);
      assert.equal(r.halt, 1);
      const calls = (t.result() as any).calls as any[];
      assert.deepEqual(
        calls.map((c) => c.type),
        ["STATICCALL", "CALL", "CREATE", "SELFDESTRUCT"],
      );
      assert.equal(calls[0].to, h(4n));
      assert.equal(calls[0].output, `0x${"2a".padStart(64, "0")}`);
      assert.equal(calls[0].value, undefined, "STATICCALL has no value");
      assert.equal(calls[1].to, h(0xdeadn));
      assert.equal(calls[1].gasUsed, "0x0");
      assert.equal(calls[2].to, bytesToHex(bigintToAddress(createAddress(bigintToAddress(A), 0n))));
      assert.equal(calls[2].output, "0x00");
      assert.equal(calls[2].input, "0x60016000f3");
      assert.equal(calls[3].to, h(BENEFICIARY));
      assert.equal(calls[3].value, "0x64");
      assert.equal(calls[3].gas, "0x0");
    });

    it("failures carry geth's error texts (invalid opcode, insufficient balance)", () => {
      const t = new CallTracer();
      // CALL B (runs INVALID), then CALL B with value 1 from an account without balance.
      const withValue = `${p1(0x20)}${p1(0)}${p1(0)}${p1(0)}${p1(1)}${push20(B)}61fffff150`;
      run({ [h(A)]: { code: `0x${callOp(B)}${withValue}00` }, [h(B)]: { code: "0xfe" } }, t);
      const calls = (t.result() as any).calls;
      assert.equal(calls[0].error, "invalid opcode: INVALID");
      assert.equal(calls[0].gasUsed, calls[0].gas, "a non-revert failure uses all its gas");
      assert.equal(calls[1].error, "insufficient balance for transfer");
      assert.equal(calls[1].gasUsed, "0x0");
    });

    it("withLog records logs with their position; failed frames lose theirs", () => {
      // B: LOG1(topic 7, data mem[0..32) = 42); A: LOG0 then CALL B.
      const logB = "602a6000526007602060" + "00a1" + "00";
      const t = new CallTracer({ withLog: true });
      run({ [h(A)]: { code: `0x60206000a0${callTo(B)}` }, [h(B)]: { code: `0x${logB}` } }, t);
      const r = t.result() as any;
      assert.deepEqual(r.logs, [{ address: h(A), topics: [], data: `0x${"00".repeat(32)}`, position: "0x0" }]);
      assert.equal(r.calls[0].logs[0].topics[0], `0x${"07".padStart(64, "0")}`);
      const failing = new CallTracer({ withLog: true });
      run(
        { [h(A)]: { code: `0x60206000a0${callTo(B)}` }, [h(B)]: { code: `0x602a6000526007602060${"00a1"}fe` } },
        failing,
      );
      assert.equal((failing.result() as any).calls[0].logs, undefined);
    });
  });

  describe("struct logger", () => {
    it("logs each step with geth's gas cost for CALL (child gas included)", () => {
      const t = new StructLogger();
      run({ [h(A)]: { code: `0x${callTo(B)}` }, [h(B)]: { code: `0x${RETURN_42}` } }, t);
      const res = t.result();
      const logs = res.structLogs as any[];
      assert.equal(res.failed, false);
      assert.equal(res.returnValue, "0x");
      const call = logs.find((l) => l.op === "CALL");
      const next = logs[logs.indexOf(call) + 1];
      assert.equal(next.depth, 2, "the child's first step follows the CALL");
      // cost = gas before CALL - gas left to the parent when the child starts (cold access, memory, child gas)
      assert.equal(call.gasCost, 2600 + 3 + 0xffff);
      assert.deepEqual(Object.keys(logs[0]), ["pc", "op", "gas", "gasCost", "depth", "stack"]);
      assert.equal(logs.at(-1).op, "STOP");
    });

    it("records storage per contract, memory words and return data on demand; errors on the step", () => {
      const t = new StructLogger({ enableMemory: true, enableReturnData: true });
      run({ [h(A)]: { code: "0x6005600355600354602a60005200" } }, t);
      const logs = t.result().structLogs as any[];
      const sstore = logs.find((l) => l.op === "SSTORE");
      assert.deepEqual(sstore.storage, { [`0x${"3".padStart(64, "0")}`]: `0x${"5".padStart(64, "0")}` });
      const sload = logs.find((l) => l.op === "SLOAD");
      assert.deepEqual(sload.storage, sstore.storage);
      assert.deepEqual(logs.at(-1).memory, [`0x${"2a".padStart(64, "0")}`]);
      const bare = new StructLogger({ disableStack: true, disableStorage: true });
      run({ [h(A)]: { code: "0x6005600355" } }, bare);
      const l = bare.result().structLogs as any[];
      assert.equal(l[0].stack, undefined);
      assert.equal(l[2].storage, undefined);
      const under = new StructLogger();
      const r = run({ [h(A)]: { code: "0x01" } }, under);
      assert.equal(r.halt, 6);
      const res = under.result();
      assert.equal(res.failed, true);
      assert.equal((res.structLogs as any[])[0].error, "stack underflow (0 <=> 2)");
    });

    it("returnValue is the revert data of a reverted tx", () => {
      const t = new StructLogger();
      run({ [h(A)]: { code: `0x${REVERT_BOOM}` } }, t);
      const res = t.result();
      assert.equal(res.failed, true);
      assert.equal(unpackRevert(hexToBytes(res.returnValue)), "boom");
    });
  });

  describe("prestateTracer", () => {
    it("lists touched accounts and slots before the tx, and the diff", () => {
      const alloc = {
        [h(A)]: { code: `0x6007600155600254506000546001015060${"00"}`, storage: { "0x02": "0x09" } },
      };
      const t = new PrestateTracer();
      run(alloc, t);
      const pre = t.result() as any;
      assert.deepEqual(Object.keys(pre).sort(), [h(0xc0ffeen), h(CALLER), h(A)].sort());
      assert.deepEqual(pre[h(A)].storage, {
        [`0x${"0".padStart(64, "0")}`]: `0x${"0".padStart(64, "0")}`,
        [`0x${"1".padStart(64, "0")}`]: `0x${"0".padStart(64, "0")}`,
        [`0x${"2".padStart(64, "0")}`]: `0x${"9".padStart(64, "0")}`,
      });
      assert.ok(pre[h(A)].code.startsWith("0x6007"));
      const d = new PrestateTracer({ diffMode: true });
      run(alloc, d);
      const diff = d.result() as any;
      assert.deepEqual(diff.post[h(A)], { storage: { [`0x${"1".padStart(64, "0")}`]: `0x${"7".padStart(64, "0")}` } });
      assert.deepEqual(Object.keys(diff.pre), [h(A)]);
      assert.deepEqual(diff.pre[h(A)].storage, undefined, "unchanged and empty slots are dropped");
    });
  });

  describe("4byteTracer", () => {
    it("counts selectors of calls to contracts, not to precompiles", () => {
      const evmPre = (a: bigint): boolean => a >= 1n && a <= 0x11n;
      const t = new FourByteTracer(evmPre);
      const sel = "63aabbccdd60e01b600052";
      const code = `${sel}${callOp(B, 0x24)}${sel}${callTo(4n, 0x24, "fa")}`;
      run({ [h(A)]: { code: `0x${code}` }, [h(B)]: { code: "0x00" } }, t, `11223344${"00".repeat(32)}`);
      assert.deepEqual(t.result(), { "0x11223344-32": 1, "0xaabbccdd-32": 1 });
    });
  });

  describe("parity flat traces", () => {
    it("numbers children with traceAddress and marks failures", () => {
      const t = new ParityTracer();
      const code = callOp(B) + callTo(0xc0de000000000000000000000000000000000003n);
      run(
        {
          [h(A)]: { code: `0x${code}` },
          [h(B)]: { code: `0x${RETURN_42}` },
          "0xc0de000000000000000000000000000000000003": { code: `0x${REVERT_BOOM}` },
        },
        t,
      );
      const r = t.result() as any[];
      assert.equal(r.length, 3);
      assert.deepEqual(r[0].traceAddress, []);
      assert.equal(r[0].subtraces, 2);
      assert.deepEqual(r[1].traceAddress, [0]);
      assert.equal(r[1].action.callType, "call");
      assert.equal(r[1].result.output, `0x${"2a".padStart(64, "0")}`);
      assert.deepEqual(r[2].traceAddress, [1]);
      assert.equal(r[2].error, "Reverted");
      assert.equal(r[2].result, undefined);
    });
  });
});
