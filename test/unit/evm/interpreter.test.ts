/**
 * Hand-assembled programs run through Evm.call / Evm.create on a WorldState over a MemoryKv, checking
 * results and exact gas. Expected values come from the Yellow Paper (YP) instruction definitions and
 * fee schedule, the EIPs named at each test (their published test tables where they have one), or
 * from arithmetic spelled out in the test.
 */
import { strict as assert } from "node:assert";
import { buildPreState, type FixtureAccount } from "../../../src/cli/evmTool/preState.js";
import type { BlockContext } from "../../../src/evm/context.js";
import { create2Address, createAddress, Evm, type MessageResult } from "../../../src/evm/evm.js";
import { Halt } from "../../../src/evm/status.js";
import { Tracer } from "../../../src/evm/tracer.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { Fork, l1Rules } from "../../../src/spec/forks.js";
import { KvStateReader } from "../../../src/state/kvStateReader.js";
import { bigintToAddress, WorldState } from "../../../src/state/worldState.js";
import { TEST_BLOCK } from "../../utils/blocks.js";

const TWO_256 = 1n << 256n;
const MAX = TWO_256 - 1n;
const MIN_NEG = 1n << 255n; // -2^255 in two's complement
const u = (x: bigint): bigint => ((x % TWO_256) + TWO_256) % TWO_256;

const CALLER = 0xca11e40000000000000000000000000000000001n;
const TARGET = 0xc0de000000000000000000000000000000000001n;
const OTHER = 0xc0de000000000000000000000000000000000002n;
const addrHex = (a: bigint): string => bytesToHex(bigintToAddress(a));

const BLOCK: BlockContext = TEST_BLOCK;

// ---- assembly helpers ----------------------------------------------------------------------------
const push32 = (v: bigint): string => `7f${v.toString(16).padStart(64, "0")}`;
const push1 = (v: number): string => `60${v.toString(16).padStart(2, "0")}`;
const push2 = (v: number): string => `61${v.toString(16).padStart(4, "0")}`;
const push20 = (a: bigint): string => `73${a.toString(16).padStart(40, "0")}`;
/** MSTORE the top of the stack at 0 and RETURN those 32 bytes: 3+3+3(memory)+3+3 = 15 gas. */
const RETURN_TOP = "60005260206000f3";
const RETURN_TOP_GAS = 15;

interface Run {
  r: MessageResult;
  used: number;
  st: WorldState;
  evm: Evm;
}

function world(fork: Fork, alloc: Record<string, FixtureAccount>): { evm: Evm; st: WorldState } {
  const { kv } = buildPreState(alloc);
  const st = new WorldState(new KvStateReader(kv), kv);
  return { evm: new Evm(l1Rules(fork), BLOCK, st), st };
}

/** Runs `code` at TARGET, called by CALLER with `gas`. */
function run(fork: Fork, code: string, gas = 1_000_000, extra: Record<string, FixtureAccount> = {}, input = ""): Run {
  const { evm, st } = world(fork, {
    [addrHex(CALLER)]: { balance: "0xffffffffffffffff" },
    [addrHex(TARGET)]: { code: `0x${code}`, balance: "0x0" },
    ...extra,
  });
  const r = evm.call(CALLER, TARGET, 0n, hexToBytes(`0x${input}`), gas);
  return { r, used: gas - r.gasLeft, st, evm };
}

const word = (r: MessageResult): bigint => BigInt(bytesToHex(r.output));

/** `a OP b` in YP order (μs[0] = a on top): push b, push a, op, return the top. */
function binop(fork: Fork, op: string, opGas: number, a: bigint, b: bigint): Run & { value: bigint } {
  const res = run(fork, `${push32(b)}${push32(a)}${op}${RETURN_TOP}`);
  assert.equal(res.r.halt, Halt.Return, `halt ${Halt[res.r.halt]}`);
  assert.equal(res.used, 3 + 3 + opGas + RETURN_TOP_GAS, "gas used");
  return { ...res, value: word(res.r) };
}

function ternop(op: string, a: bigint, b: bigint, n: bigint): bigint {
  const res = run(Fork.Cancun, `${push32(n)}${push32(b)}${push32(a)}${op}${RETURN_TOP}`);
  assert.equal(res.r.halt, Halt.Return);
  assert.equal(res.used, 9 + 8 + RETURN_TOP_GAS);
  return word(res.r);
}

describe("evm/interpreter", () => {
  describe("arithmetic (YP Appendix H.2, 0s: stop and arithmetic)", () => {
    it("SDIV: truncation toward zero, sign rules, x/0 = 0, -2^255 / -1 = -2^255", () => {
      const sdiv = (a: bigint, b: bigint): bigint => binop(Fork.Cancun, "05", 5, u(a), u(b)).value;
      assert.equal(sdiv(-7n, 2n), u(-3n));
      assert.equal(sdiv(7n, -2n), u(-3n));
      assert.equal(sdiv(-7n, -2n), 3n);
      assert.equal(sdiv(7n, 0n), 0n);
      // YP: "−2^255 if μs[0] = −2^255 ∧ μs[1] = −1"
      assert.equal(sdiv(-(1n << 255n), -1n), MIN_NEG);
      assert.equal(sdiv(-(1n << 255n), 1n), MIN_NEG);
    });

    it("SMOD takes the sign of the dividend; MOD/DIV by 0 are 0", () => {
      const smod = (a: bigint, b: bigint): bigint => binop(Fork.Cancun, "07", 5, u(a), u(b)).value;
      assert.equal(smod(-7n, 2n), u(-1n));
      assert.equal(smod(7n, -2n), 1n);
      assert.equal(smod(-7n, -2n), u(-1n));
      assert.equal(smod(-(1n << 255n), -1n), 0n);
      assert.equal(smod(5n, 0n), 0n);
      assert.equal(binop(Fork.Cancun, "06", 5, 5n, 0n).value, 0n);
      assert.equal(binop(Fork.Cancun, "04", 5, 5n, 0n).value, 0n);
      assert.equal(binop(Fork.Cancun, "04", 5, MAX, 2n).value, MAX >> 1n);
    });

    it("ADD/MUL/SUB wrap modulo 2^256", () => {
      assert.equal(binop(Fork.Cancun, "01", 3, MAX, 2n).value, 1n);
      assert.equal(binop(Fork.Cancun, "02", 5, MAX, MAX).value, 1n); // (−1)·(−1)
      assert.equal(binop(Fork.Cancun, "03", 3, 0n, 1n).value, MAX);
    });

    it("ADDMOD/MULMOD compute the sum/product without the 2^256 wrap (YP: arbitrary precision)", () => {
      // (2^256−1 + 2^256−1) mod (2^256−2): unbounded sum 2^257−2 = 2·(2^256−2) + 2 → 2.
      assert.equal(ternop("08", MAX, MAX, MAX - 1n), 2n);
      assert.equal(ternop("08", MAX, 1n, 3n), TWO_256 % 3n);
      assert.equal(ternop("08", 5n, 6n, 0n), 0n);
      // (2^256−1)^2 mod 12, (2^256−1)^2 mod (2^256−2) = 1 since 2^256−1 ≡ 1.
      assert.equal(ternop("09", MAX, MAX, 12n), (MAX * MAX) % 12n);
      assert.equal(ternop("09", MAX, MAX, MAX - 1n), 1n);
      assert.equal(ternop("09", MAX, MAX, 0n), 0n);
    });

    it("EXP: 10 gas + per exponent byte 10 (Frontier) / 50 (EIP-160, Spurious Dragon on)", () => {
      const modpow = (b: bigint, e: bigint): bigint => {
        let r = 1n;
        let x = b % TWO_256;
        let k = e;
        while (k > 0n) {
          if (k & 1n) r = (r * x) % TWO_256;
          x = (x * x) % TWO_256;
          k >>= 1n;
        }
        return r;
      };
      const cases: [bigint, bigint, number][] = [
        [3n, 0n, 0],
        [0n, 0n, 0],
        [3n, 0xffn, 1],
        [3n, 0x100n, 2],
        [2n, 255n, 1],
        [2n, 256n, 2],
        [2n, 1n << 255n, 32],
        [MAX, MAX, 32],
        [7n, 0x1234567n, 4],
      ];
      for (const [b, e, bytes] of cases) {
        assert.equal(binop(Fork.SpuriousDragon, "0a", 10 + 50 * bytes, b, e).value, modpow(b, e), `${b}^${e}`);
        assert.equal(binop(Fork.Homestead, "0a", 10 + 10 * bytes, b, e).value, modpow(b, e), `${b}^${e}`);
      }
    });

    it("SIGNEXTEND (YP: extend from bit 8·μs[0]+7; μs[0] ≥ 31 leaves the value)", () => {
      const se = (k: bigint, x: bigint): bigint => binop(Fork.Cancun, "0b", 5, k, x).value;
      assert.equal(se(0n, 0xffn), MAX);
      assert.equal(se(0n, 0x7fn), 0x7fn);
      assert.equal(se(0n, 0x1280n), MAX - 0x7fn); // 0xff…ff80
      assert.equal(se(1n, 0x8000n), MAX - 0x7fffn);
      assert.equal(se(30n, 1n << 247n), MAX - ((1n << 247n) - 1n));
      assert.equal(se(31n, 1n << 255n), 1n << 255n);
      assert.equal(se(MAX, 0xffn), 0xffn);
    });

    it("BYTE: byte i counted from the most significant; i ≥ 32 gives 0", () => {
      const x = 0x0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20n;
      assert.equal(binop(Fork.Cancun, "1a", 3, 0n, x).value, 1n);
      assert.equal(binop(Fork.Cancun, "1a", 3, 31n, x).value, 0x20n);
      assert.equal(binop(Fork.Cancun, "1a", 3, 32n, x).value, 0n);
      assert.equal(binop(Fork.Cancun, "1a", 3, 1n << 255n, x).value, 0n);
    });

    it("SHL/SHR/SAR: the EIP-145 test cases (shift ≥ 256 included)", () => {
      const H = 1n << 255n;
      const P = H - 1n; // 0x7fff…ff
      // [value, shift, SHL, SHR, SAR] from EIP-145 "Test Cases".
      const rows: [bigint, bigint, bigint | null, bigint | null, bigint | null][] = [
        [1n, 0n, 1n, 1n, 1n],
        [1n, 1n, 2n, 0n, 0n],
        [1n, 0xffn, H, 0n, 0n],
        [1n, 0x100n, 0n, 0n, 0n],
        [1n, 0x101n, 0n, 0n, 0n],
        [MAX, 0n, MAX, MAX, MAX],
        [MAX, 1n, MAX - 1n, P, MAX],
        [MAX, 0xffn, H, 1n, MAX],
        [MAX, 0x100n, 0n, 0n, MAX],
        [0n, 1n, 0n, 0n, 0n],
        [P, 1n, MAX - 1n, null, null],
        [H, 1n, null, 1n << 254n, H | (1n << 254n)],
        [H, 0xffn, null, 1n, MAX],
        [H, 0x100n, null, 0n, MAX],
        [H, 0x101n, null, 0n, MAX],
        [1n << 254n, 0xfen, null, null, 1n],
        [P, 0xf8n, null, null, 0x7fn],
        [P, 0xfen, null, null, 1n],
        [P, 0xffn, null, null, 0n],
        [P, 0x100n, null, null, 0n],
        [MAX, MAX, 0n, 0n, MAX],
      ];
      for (const [v, sh, shl, shr, sar] of rows) {
        // Stack: μs[0] = shift, μs[1] = value.
        if (shl !== null) assert.equal(binop(Fork.Constantinople, "1b", 3, sh, v).value, shl, `SHL ${v} ${sh}`);
        if (shr !== null) assert.equal(binop(Fork.Constantinople, "1c", 3, sh, v).value, shr, `SHR ${v} ${sh}`);
        if (sar !== null) assert.equal(binop(Fork.Constantinople, "1d", 3, sh, v).value, sar, `SAR ${v} ${sh}`);
      }
      // Before Constantinople the opcodes are undefined: all gas is consumed.
      const old = run(Fork.Byzantium, `${push1(1)}${push1(1)}1b00`, 50_000);
      assert.equal(old.r.halt, Halt.InvalidOpcode);
      assert.equal(old.used, 50_000);
    });

    it("CLZ (EIP-7939, Osaka; 5 gas) and INVALID before Osaka", () => {
      const clz = (x: bigint): bigint => {
        const res = run(Fork.Osaka, `${push32(x)}1e${RETURN_TOP}`);
        assert.equal(res.r.halt, Halt.Return);
        assert.equal(res.used, 3 + 5 + RETURN_TOP_GAS);
        return word(res.r);
      };
      assert.equal(clz(0n), 256n);
      assert.equal(clz(1n), 255n);
      assert.equal(clz(1n << 255n), 0n);
      assert.equal(clz(MAX), 0n);
      assert.equal(clz((1n << 200n) + 12345n), 55n);
      const pre = run(Fork.Prague, `${push32(1n)}1e${RETURN_TOP}`, 40_000);
      assert.equal(pre.r.halt, Halt.InvalidOpcode);
      assert.equal(pre.used, 40_000);
    });
  });

  describe("random operands against the Yellow Paper definitions (H.2), written out here", () => {
    const sgn = (x: bigint): bigint => (x >= MIN_NEG ? x - TWO_256 : x);
    const abs = (x: bigint): bigint => (x < 0n ? -x : x);
    const sign = (x: bigint): bigint => (x < 0n ? -1n : x > 0n ? 1n : 0n);
    const b2 = (c: boolean): bigint => (c ? 1n : 0n);
    // [opcode, gas, YP definition of μ's[0] from μs[0] = a, μs[1] = b]
    const OPS: [string, number, (a: bigint, b: bigint) => bigint][] = [
      ["01", 3, (a, b) => (a + b) % TWO_256],
      ["02", 5, (a, b) => (a * b) % TWO_256],
      ["03", 3, (a, b) => u(a - b)],
      ["04", 5, (a, b) => (b === 0n ? 0n : a / b)],
      // SDIV: 0 if b = 0; −2^255 if a = −2^255 ∧ b = −1; else sgn(a÷b)·⌊|a÷b|⌋
      [
        "05",
        5,
        (a, b) => {
          const x = sgn(a);
          const y = sgn(b);
          if (y === 0n) return 0n;
          if (x === -(1n << 255n) && y === -1n) return MIN_NEG;
          return u(sign(x) * sign(y) * (abs(x) / abs(y)));
        },
      ],
      ["06", 5, (a, b) => (b === 0n ? 0n : a % b)],
      // SMOD: 0 if b = 0, else sgn(a)·(|a| mod |b|)
      ["07", 5, (a, b) => (b === 0n ? 0n : u(sign(sgn(a)) * (abs(sgn(a)) % abs(sgn(b)))))],
      ["10", 3, (a, b) => b2(a < b)],
      ["11", 3, (a, b) => b2(a > b)],
      ["12", 3, (a, b) => b2(sgn(a) < sgn(b))],
      ["13", 3, (a, b) => b2(sgn(a) > sgn(b))],
      ["14", 3, (a, b) => b2(a === b)],
      ["16", 3, (a, b) => a & b],
      ["17", 3, (a, b) => a | b],
      ["18", 3, (a, b) => a ^ b],
      // BYTE: byte a of b counted from the left (bits 248−8a … 255−8a)
      [
        "1a",
        3,
        (a, b) => {
          const i = Number(a) * 2;
          return a < 32n
            ? BigInt(
                `0x${b
                  .toString(16)
                  .padStart(64, "0")
                  .slice(i, i + 2)}`,
              )
            : 0n;
        },
      ],
      // SHL/SHR: b·2^a mod 2^256, ⌊b/2^a⌋; SAR: ⌊sgn(b)/2^a⌋ (floor toward −∞)
      ["1b", 3, (a, b) => (a >= 256n ? 0n : (b * 2n ** a) % TWO_256)],
      ["1c", 3, (a, b) => (a >= 256n ? 0n : b / 2n ** a)],
      [
        "1d",
        3,
        (a, b) => {
          const v = sgn(b);
          if (a >= 256n) return v < 0n ? MAX : 0n;
          const d = 2n ** a;
          const q = v / d;
          return u(v < 0n && q * d !== v ? q - 1n : q);
        },
      ],
    ];
    let seed = 0x2545f491;
    const rnd = (): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    const EDGE = [
      0n,
      1n,
      2n,
      7n,
      31n,
      32n,
      255n,
      256n,
      257n,
      MIN_NEG,
      MIN_NEG - 1n,
      MIN_NEG + 1n,
      MAX,
      MAX - 1n,
      1n << 128n,
    ];
    const operand = (): bigint => {
      const k = rnd() % 4;
      if (k === 0) return EDGE[rnd() % EDGE.length];
      const bits = rnd() % 257;
      let v = 0n;
      for (let i = 0; i < bits; i += 32) v = (v << 32n) | BigInt(rnd());
      v &= (1n << BigInt(bits)) - 1n;
      return k === 3 ? u(-v) : v;
    };
    for (const [op, g, def] of OPS) {
      it(`opcode 0x${op}: 60 operand pairs`, () => {
        for (let i = 0; i < 60; i++) {
          const a = operand();
          const b = operand();
          assert.equal(binop(Fork.Cancun, op, g, a, b).value, def(a, b), `0x${op}(${a}, ${b})`);
        }
      });
    }
  });

  describe("stack, jumps, memory", () => {
    it("stack underflow consumes all gas", () => {
      const res = run(Fork.Cancun, `${push1(1)}01`, 10_000);
      assert.equal(res.r.halt, Halt.StackUnderflow);
      assert.equal(res.used, 10_000);
    });

    it("1024 items fit on the stack; the 1025th push overflows (YP: ‖μs‖ ≤ 1024)", () => {
      const ok = run(Fork.Shanghai, `${"5f".repeat(1024)}00`, 10_000);
      assert.equal(ok.r.halt, Halt.Stop);
      assert.equal(ok.used, 2 * 1024);
      const over = run(Fork.Shanghai, `${"5f".repeat(1025)}00`, 10_000);
      assert.equal(over.r.halt, Halt.StackOverflow);
      assert.equal(over.used, 10_000);
      // DUP1 on a full stack overflows too.
      const dup = run(Fork.Shanghai, `${"5f".repeat(1024)}8000`, 10_000);
      assert.equal(dup.r.halt, Halt.StackOverflow);
    });

    it("a PUSH cut short by the end of code reads the missing bytes as zeros (YP: c(x) = 0 past ‖b‖)", () => {
      const res = run(Fork.Cancun, "7f0102", 100);
      assert.equal(res.r.halt, Halt.Stop);
      assert.equal(res.used, 3);
      const f = res.evm.frameAt(0);
      assert.equal(f.sp, 1);
      assert.equal(f.stack[0], 0x0102n << 240n);
    });

    it("JUMP into PUSH data is invalid; to a real JUMPDEST is fine", () => {
      // 0: PUSH1 4, 2: JUMP, 3: PUSH1 0x5b (the 0x5b at 4 is data), 5: STOP
      const bad = run(Fork.Cancun, "600456605b00", 10_000);
      assert.equal(bad.r.halt, Halt.BadJump);
      assert.equal(bad.used, 10_000);
      // 0: PUSH1 4, 2: JUMP, 3: INVALID, 4: JUMPDEST, 5: STOP → 3 + 8 + 1
      const good = run(Fork.Cancun, "600456fe5b00", 10_000);
      assert.equal(good.r.halt, Halt.Stop);
      assert.equal(good.used, 12);
      // Past the end of code.
      assert.equal(run(Fork.Cancun, "606456", 10_000).r.halt, Halt.BadJump);
    });

    it("memory expansion costs C_mem(new) − C_mem(old)", () => {
      const cmem = (w: number): number => 3 * w + Math.floor((w * w) / 512);
      for (const off of [0, 31, 32, 0x1000, 0x10000, 0x1fffe0]) {
        const words = Math.ceil((off + 32) / 32);
        const res = run(Fork.Cancun, `${push1(1)}62${off.toString(16).padStart(6, "0")}5200`, 30_000_000);
        assert.equal(res.r.halt, Halt.Stop);
        assert.equal(res.used, 3 + 3 + 3 + cmem(words), `MSTORE at ${off}`);
      }
      // Second store into already paid memory costs only the 3 base.
      const two = run(Fork.Cancun, `${push1(1)}${push2(0x400)}52${push1(1)}${push1(0)}5200`, 100_000);
      assert.equal(two.used, 9 + cmem(33) + 9);
      // An offset near 2^256 runs out of gas.
      const huge = run(Fork.Cancun, `${push1(1)}${push32(MAX)}5200`, 100_000);
      assert.equal(huge.r.halt, Halt.OutOfGas);
      assert.equal(huge.used, 100_000);
    });

    it("RETURNDATACOPY past the return data halts (EIP-211), even with size 0", () => {
      // No call yet: return data is empty. RETURNDATACOPY(dst 0, off 0, size 1).
      const a = run(Fork.Cancun, `${push1(1)}${push1(0)}${push1(0)}3e00`, 10_000);
      assert.equal(a.r.halt, Halt.ReturnDataOutOfBounds);
      assert.equal(a.used, 10_000);
      const b = run(Fork.Cancun, `${push1(0)}${push1(1)}${push1(0)}3e00`, 10_000);
      assert.equal(b.r.halt, Halt.ReturnDataOutOfBounds);
      const c = run(Fork.Cancun, `${push1(0)}${push1(0)}${push1(0)}3e00`, 10_000);
      assert.equal(c.r.halt, Halt.Stop);
      assert.equal(c.used, 12);
    });
  });

  describe("calls", () => {
    it("call depth: a self-calling contract reaches depth 1024; the call from depth 1024 fails (YP: I_e = 1024)", () => {
      // d = CALLDATALOAD(0); mem[0] = d+1; ok = CALL(GAS, ADDRESS, 0, 0, 32, 0, 0); SSTORE(d, ok+1)
      const code = "600035" + "80600101600052" + "6000600060206000600030" + "5af1" + "6001019055" + "00";
      const gas = 100_000_000_000_000; // G·(63/64)^1024 must leave the deepest frames enough for their SSTORE
      const res = run(Fork.Cancun, code, gas);
      assert.equal(res.r.halt, Halt.Stop);
      const t = res.st.account(TARGET);
      for (const d of [0n, 1n, 500n, 1023n]) assert.equal(res.st.sload(t, d), 2n, `depth ${d} call succeeded`);
      assert.equal(res.st.sload(t, 1024n), 1n, "the call made at depth 1024 fails");
      assert.equal(res.st.sload(t, 1025n), 0n, "no frame at depth 1025");
    });

    it("EIP-150: a CALL asking for all gas gets all but one 64th of what is left", () => {
      // TARGET: CALL(gas 2^256−1, OTHER, 0, 0, 0, 0, 32) then RETURN mem[0..32]
      // OTHER: GAS, return it.
      const code = `${push1(32)}${push1(0)}${push1(0)}${push1(0)}${push1(0)}${push20(OTHER)}${push32(MAX)}f15060206000f3`;
      const g0 = 1_000_000;
      const res = run(Fork.Cancun, code, g0, { [addrHex(OTHER)]: { code: `0x5a${RETURN_TOP}` } });
      assert.equal(res.r.halt, Halt.Return);
      // Before the CALL: 7 pushes (21), memory for the 32-byte output (3), cold account (EIP-2929: 2600).
      const g = g0 - 21 - 3 - 2600;
      const child = g - Math.floor(g / 64);
      assert.equal(word(res.r), BigInt(child - 2), "GAS inside the child");
      // Child used 2 + 15; everything else returns. POP, PUSH1, PUSH1, RETURN: 2 + 3 + 3.
      assert.equal(res.used, 21 + 3 + 2600 + 2 + RETURN_TOP_GAS + 8);
    });

    it("a value-bearing CALL adds the 2300 stipend to the child's gas and charges 9000", () => {
      const code = `${push1(32)}${push1(0)}${push1(0)}${push1(0)}${push1(1)}${push20(OTHER)}${push1(0)}f15060206000f3`;
      const { evm, st } = world(Fork.Cancun, {
        [addrHex(TARGET)]: { code: `0x${code}`, balance: "0x5" },
        [addrHex(OTHER)]: { code: `0x5a${RETURN_TOP}` },
      });
      const r = evm.call(CALLER, TARGET, 0n, new Uint8Array(0), 100_000);
      assert.equal(r.halt, Halt.Return);
      assert.equal(BigInt(bytesToHex(r.output)), 2300n - 2n, "child sees the stipend minus GAS's 2");
      // Parent: 7 pushes, 3 memory, 2600 cold, 9000 value; the child gets 0 + 2300 and returns 2300 − 17 unused;
      // then POP, PUSH1, PUSH1, RETURN (8).
      assert.equal(100_000 - r.gasLeft, 21 + 3 + 2600 + 9000 - (2300 - 2 - RETURN_TOP_GAS) + 8);
      assert.equal(st.account(OTHER).balance, 1n);
      assert.equal(st.account(TARGET).balance, 4n);
    });

    it("STATICCALL: SSTORE, LOG, value CALL and CREATE in the callee fail; reads succeed (EIP-214)", () => {
      const callee = (body: string): number => {
        // TARGET: ok = STATICCALL(GAS, OTHER, 0, 0, 0, 0); return ok
        const code = `${push1(0)}${push1(0)}${push1(0)}${push1(0)}${push20(OTHER)}5afa${RETURN_TOP}`;
        const res = run(Fork.Cancun, code, 1_000_000, { [addrHex(OTHER)]: { code: `0x${body}`, balance: "0x1" } });
        assert.equal(res.r.halt, Halt.Return);
        if (body.includes("55")) assert.equal(res.st.sload(res.st.account(OTHER), 0n), 0n);
        return Number(word(res.r));
      };
      assert.equal(callee(`${push1(1)}${push1(0)}55`), 0, "SSTORE");
      assert.equal(callee(`${push1(0)}${push1(0)}a0`), 0, "LOG0");
      assert.equal(
        callee(`${push1(0)}${push1(0)}${push1(0)}${push1(0)}${push1(1)}${push20(TARGET)}5af1`),
        0,
        "CALL with value",
      );
      assert.equal(callee(`${push1(0)}${push1(0)}${push1(0)}f0`), 0, "CREATE");
      assert.equal(callee(`${push1(1)}${push1(0)}5d`), 0, "TSTORE");
      assert.equal(callee(`${push1(0)}5450`), 1, "SLOAD");
      assert.equal(
        callee(`${push1(0)}${push1(0)}${push1(0)}${push1(0)}${push1(0)}${push20(TARGET)}5af1`),
        1,
        "CALL without value",
      );
    });
  });

  describe("EIP-7702 delegated targets", () => {
    const AUTH = 0xa0a0000000000000000000000000000000000001n;
    const designator = `0xef0100${OTHER.toString(16).padStart(40, "0")}`;
    // TARGET: CALL(gas 0, AUTH, 0, 0, 0, 0, 0); STOP
    const code = `${push1(0)}${push1(0)}${push1(0)}${push1(0)}${push1(0)}${push20(AUTH)}${push1(0)}f100`;

    it("a CALL to a delegated account also pays for the delegate's access and runs its code", () => {
      const { evm, st } = world(Fork.Prague, {
        [addrHex(TARGET)]: { code: `0x${code}` },
        [addrHex(AUTH)]: { code: designator, nonce: "0x1" },
        // OTHER: STOP.
        [addrHex(OTHER)]: { code: "0x00" },
      });
      const r = evm.call(CALLER, TARGET, 0n, new Uint8Array(0), 100_000);
      assert.equal(r.halt, Halt.Stop);
      // 7 pushes + cold AUTH (2600) + cold delegate (2600); the child gets 0 gas and stops.
      assert.equal(100_000 - r.gasLeft, 21 + 2600 + 2600);
      assert.equal(st.isWarmAddress(OTHER), true);
    });

    it("before Prague the designator is just code (0xef: INVALID) and no delegate cost is charged", () => {
      const { evm } = world(Fork.Cancun, {
        [addrHex(TARGET)]: { code: `0x${code}` },
        [addrHex(AUTH)]: { code: designator, nonce: "0x1" },
        [addrHex(OTHER)]: { code: "0x00" },
      });
      const r = evm.call(CALLER, TARGET, 0n, new Uint8Array(0), 100_000);
      assert.equal(r.halt, Halt.Stop);
      assert.equal(100_000 - r.gasLeft, 21 + 2600);
    });
  });

  describe("creation", () => {
    it("CREATE2 addresses match the EIP-1014 examples", () => {
      const cafe = 0xcafebaben;
      const ex: [bigint, bigint, string, string][] = [
        [0n, 0n, "0x00", "0x4d1a2e2bb4f88f0250f26ffff098b0b30b26bf38"],
        [0xdeadbeef00000000000000000000000000000000n, 0n, "0x00", "0xb928f69bb1d91cd65274e3c79d8986362984fda3"],
        [
          0xdeadbeef00000000000000000000000000000000n,
          0xfeedn << 144n,
          "0x00",
          "0xd04116cdd17bebe565eb2422f2497e06cc1c9833",
        ],
        [0n, 0n, "0xdeadbeef", "0x70f2b2914a2a4b783faefb75f459a580616fcb5e"],
        [0xdeadbeefn, cafe, "0xdeadbeef", "0x60f3f640a8508fc6a86d45df051962668e1e8ac7"],
        [0xdeadbeefn, cafe, `0x${"deadbeef".repeat(11)}`, "0x1d8bfdc5d46dc4f61d6b6115972536ebe6a8854c"],
        [0n, 0n, "0x", "0xe33c0c7f7df4809055c3eba6c09cfe4baf1bd9e0"],
      ];
      for (const [sender, salt, init, want] of ex) {
        assert.equal(addrHex(create2Address(bigintToAddress(sender), salt, hexToBytes(init))), want);
      }
    });

    it("CREATE addresses: keccak256(rlp([sender, nonce]))[12:] for nonces 0..3", () => {
      // The canonical sequence for deployer 0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0.
      const s = hexToBytes("0x6ac7ea33f8831ea9dcc53393aaa88b25a785dbf0");
      const want = [
        "0xcd234a471b72ba2f1ccf0a70fcaba648a5eecd8d",
        "0x343c43a37d37dff08ae8c4a11544c718abb4fcf8",
        "0xf778b86fa74e846c4f0a1fbd1335fe81c00a0c91",
        "0xfffd933a0bc612844eaf0c6fe3e5b8e9b6c1d19c",
      ];
      for (let n = 0; n < 4; n++) assert.equal(addrHex(createAddress(s, BigInt(n))), want[n]);
    });

    it("the CREATE2 opcode deploys at the EIP-1014 address and pushes it", () => {
      // TARGET: mem[0] = 0x00 (init code "0x00", 1 byte); CREATE2(value 0, off 31, size 1, salt 0); return address
      const code = `${push1(0)}${push1(1)}${push1(31)}${push1(0)}f5${RETURN_TOP}`;
      const res = run(Fork.Cancun, code, 1_000_000);
      assert.equal(res.r.halt, Halt.Return);
      const want = create2Address(bigintToAddress(TARGET), 0n, new Uint8Array([0]));
      assert.equal(word(res.r), want);
      assert.equal(res.st.account(want).exists, true);
      assert.equal(res.st.account(want).nonce, 1n, "EIP-161: a new contract starts at nonce 1");
      assert.equal(res.st.account(TARGET).nonce, 1n);
    });

    const create = (fork: Fork, init: string, gas = 10_000_000): Run => {
      const { evm, st } = world(fork, { [addrHex(CALLER)]: { balance: "0x1" } });
      const r = evm.create(CALLER, 0n, hexToBytes(`0x${init}`), gas);
      return { r, used: gas - r.gasLeft, st, evm };
    };

    it("EIP-170: 24576 bytes of code deploy, 24577 fail (from Spurious Dragon)", () => {
      // PUSH2 size, PUSH1 0, RETURN: returns `size` zero bytes.
      const init = (n: number): string => `${push2(n)}${push1(0)}f3`;
      const ok = create(Fork.Cancun, init(24576));
      assert.equal(ok.r.halt, Halt.Return);
      assert.equal(ok.st.code(ok.st.account(ok.r.address)).length, 24576);
      // 3 + 3 + C_mem(768 words) + 200 per byte deposited.
      assert.equal(ok.used, 6 + (3 * 768 + Math.floor((768 * 768) / 512)) + 200 * 24576);
      const big = create(Fork.Cancun, init(24577));
      assert.equal(big.r.halt, Halt.CodeTooLarge);
      assert.equal(big.used, 10_000_000);
      const old = create(Fork.Homestead, init(24577));
      assert.equal(old.r.halt, Halt.Return);
    });

    it("EIP-3541: new code starting with 0xEF is rejected from London (the EIP's test cases)", () => {
      for (const init of [
        "60ef60005360016000f3",
        "60ef60005360026000f3",
        "60ef60005360036000f3",
        "60ef60005360206000f3",
      ]) {
        const r = create(Fork.London, init, 100_000);
        assert.equal(r.r.halt, Halt.InvalidCodePrefix, init);
        assert.equal(r.used, 100_000);
        assert.equal(create(Fork.Berlin, init, 100_000).r.halt, Halt.Return, `${init} before London`);
      }
      const fe = create(Fork.London, "60fe60005360016000f3", 100_000);
      assert.equal(fe.r.halt, Halt.Return);
      assert.deepEqual([...fe.st.code(fe.st.account(fe.r.address))], [0xfe]);
    });
  });

  describe("SELFDESTRUCT", () => {
    // 3 (PUSH20) + 5000 (EIP-150) + 2600 cold beneficiary (EIP-2929) + 25000 new account (EIP-161: value
    // sent to an empty/absent account).
    const code = `${push20(OTHER)}ff`;
    const alloc = { [addrHex(TARGET)]: { code: `0x${code}`, balance: "0xa" } };

    it("EIP-6780 (Cancun): a pre-existing contract only sends its balance and survives the tx", () => {
      const { evm, st } = world(Fork.Cancun, alloc);
      const r = evm.call(CALLER, TARGET, 0n, new Uint8Array(0), 100_000);
      assert.equal(r.halt, Halt.Stop);
      assert.equal(100_000 - r.gasLeft, 3 + 5000 + 2600 + 25000);
      assert.equal(st.refund, 0);
      st.finalizeTx(true);
      const t = st.account(TARGET);
      assert.equal(t.exists, true);
      assert.equal(t.balance, 0n);
      assert.equal(st.code(t).length, 22);
      assert.equal(st.account(OTHER).balance, 10n);
    });

    it("before Cancun the contract is deleted at the end of the tx; Berlin refunds 24000, London none (EIP-3529)", () => {
      for (const [fork, refund] of [
        [Fork.Berlin, 24000],
        [Fork.Shanghai, 0],
      ] as const) {
        const { evm, st } = world(fork, alloc);
        const r = evm.call(CALLER, TARGET, 0n, new Uint8Array(0), 100_000);
        assert.equal(r.halt, Halt.Stop);
        assert.equal(100_000 - r.gasLeft, 3 + 5000 + 2600 + 25000);
        assert.equal(st.refund, refund);
        st.finalizeTx(true);
        assert.equal(st.account(TARGET).exists, false, Fork[fork]);
        assert.equal(st.account(OTHER).balance, 10n);
      }
    });

    it("EIP-6780: a contract created in the same tx is deleted", () => {
      // Init code = the runtime above run directly: SELFDESTRUCT to OTHER during creation.
      const { evm, st } = world(Fork.Cancun, { [addrHex(CALLER)]: { balance: "0x64" } });
      const r = evm.create(CALLER, 5n, hexToBytes(`0x${code}`), 100_000);
      assert.equal(r.halt, Halt.Stop);
      st.finalizeTx(true);
      assert.equal(st.account(r.address).exists, false);
      assert.equal(st.account(OTHER).balance, 5n);
    });

    it("in a static context it fails (EIP-214)", () => {
      const caller = `${push1(0)}${push1(0)}${push1(0)}${push1(0)}${push20(OTHER)}5afa${RETURN_TOP}`;
      const res = run(Fork.Cancun, caller, 200_000, {
        [addrHex(OTHER)]: { code: `0x${push20(TARGET)}ff`, balance: "0x1" },
      });
      assert.equal(word(res.r), 0n);
      assert.equal(res.st.account(OTHER).balance, 1n);
    });
  });

  describe("SSTORE metering: the EIP test tables (code, used gas, refund, original value)", () => {
    // Each code stores into slot 0 two or three times; gas used is the whole call's.
    const rows: [string, bigint][] = [
      ["60006000556000600055", 0n],
      ["60006000556001600055", 0n],
      ["60016000556000600055", 0n],
      ["60016000556002600055", 0n],
      ["60016000556001600055", 0n],
      ["60006000556000600055", 1n],
      ["60006000556001600055", 1n],
      ["60006000556002600055", 1n],
      ["60026000556000600055", 1n],
      ["60026000556003600055", 1n],
      ["60026000556001600055", 1n],
      ["60026000556002600055", 1n],
      ["60016000556000600055", 1n],
      ["60016000556002600055", 1n],
      ["60016000556001600055", 1n],
      ["600160005560006000556001600055", 0n],
      ["600060005560016000556000600055", 1n],
    ];
    const check = (fork: Fork, table: [number, number][], warm: boolean): void => {
      rows.forEach(([code, original], i) => {
        const { evm, st } = world(fork, {
          [addrHex(TARGET)]: {
            code: `0x${code}`,
            storage: original === 0n ? {} : { "0x00": `0x${original.toString(16)}` },
          },
        });
        if (warm) st.warmSlot(TARGET, 0n);
        const r = evm.call(CALLER, TARGET, 0n, new Uint8Array(0), 100_000);
        assert.equal(r.halt, Halt.Stop);
        assert.deepEqual([100_000 - r.gasLeft, st.refund], table[i], `row ${i}: ${code} original ${original}`);
      });
    };

    it("EIP-1283 (Constantinople)", () => {
      check(
        Fork.Constantinople,
        [
          [412, 0],
          [20212, 0],
          [20212, 19800],
          [20212, 0],
          [20212, 0],
          [5212, 15000],
          [5212, 4800],
          [5212, 0],
          [5212, 15000],
          [5212, 0],
          [5212, 4800],
          [5212, 0],
          [5212, 15000],
          [5212, 0],
          [412, 0],
          [40218, 19800],
          [10218, 19800],
        ],
        false,
      );
    });

    it("EIP-2200 (Istanbul)", () => {
      check(
        Fork.Istanbul,
        [
          [1612, 0],
          [20812, 0],
          [20812, 19200],
          [20812, 0],
          [20812, 0],
          [5812, 15000],
          [5812, 4200],
          [5812, 0],
          [5812, 15000],
          [5812, 0],
          [5812, 4200],
          [5812, 0],
          [5812, 15000],
          [5812, 0],
          [1612, 0],
          [40818, 19200],
          [10818, 19200],
        ],
        false,
      );
    });

    it("EIP-3529 (London; the table assumes the slot already warm)", () => {
      check(
        Fork.London,
        [
          [212, 0],
          [20112, 0],
          [20112, 19900],
          [20112, 0],
          [20112, 0],
          [3012, 4800],
          [3012, 2800],
          [3012, 0],
          [3012, 4800],
          [3012, 0],
          [3012, 2800],
          [3012, 0],
          [3012, 4800],
          [3012, 0],
          [212, 0],
          [40118, 19900],
          [5918, 7600],
        ],
        true,
      );
    });

    it("EIP-2200: SSTORE with 2300 gas or less left fails (the sentry)", () => {
      const ok = run(Fork.Istanbul, "6001600055", 2306 + 20000);
      assert.equal(ok.r.halt, Halt.Stop);
      const fail = run(Fork.Istanbul, "6001600055", 2306);
      assert.equal(fail.r.halt, Halt.OutOfGas);
    });
  });

  describe("EIP-3155 tracer", () => {
    it("writes one line per step with the EIP's fields, the fault, and the summary", () => {
      const lines: string[] = [];
      const { evm } = world(Fork.Cancun, { [addrHex(TARGET)]: { code: "0x6002600301600052" } });
      const t = new Tracer((l) => lines.push(l));
      evm.tracer = t;
      const r = evm.call(CALLER, TARGET, 0n, new Uint8Array(0), 100);
      t.summary(r.output, 100 - r.gasLeft, null);
      const steps = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
      assert.equal(steps.length, 7); // PUSH1 PUSH1 ADD PUSH1 MSTORE, the implicit STOP, the summary
      assert.deepEqual(steps[0], {
        pc: 0,
        op: 0x60,
        gas: "0x64",
        gasCost: "0x3",
        memSize: 0,
        stack: [],
        depth: 1,
        refund: 0,
        opName: "PUSH1",
      });
      assert.deepEqual(steps[2].stack, ["0x2", "0x3"]);
      assert.equal(steps[2].opName, "ADD");
      assert.equal(steps[2].gas, `0x${(100 - 6).toString(16)}`);
      assert.equal(steps[4].opName, "MSTORE");
      assert.equal(steps[4].gasCost, "0x6", "MSTORE: 3 + 3 memory");
      assert.equal(steps[5].opName, "STOP");
      assert.equal(steps[5].memSize, 32);
      assert.deepEqual(JSON.parse(lines[lines.length - 1]), { output: "0x", gasUsed: "0x12" });

      // A fault carries the error on the faulting step.
      const out: string[] = [];
      const w = world(Fork.Cancun, { [addrHex(TARGET)]: { code: "0x01" } });
      w.evm.tracer = new Tracer((l) => out.push(l));
      w.evm.call(CALLER, TARGET, 0n, new Uint8Array(0), 100);
      assert.equal(out.length, 1);
      assert.equal((JSON.parse(out[0]) as { error: string }).error, "stack underflow");
    });

    // A halt raised inside an opcode function (bad jump, INVALID, dynamic-gas OOG, static write, …)
    // belongs on that step's line: EIP-3155 defines `error` on the step, and geth's JSON logger sets
    // it on the faulting step.
    it("an error raised inside an opcode is reported on its step", () => {
      const out: string[] = [];
      const w = world(Fork.Cancun, { [addrHex(TARGET)]: { code: "0x600456605b00" } });
      w.evm.tracer = new Tracer((l) => out.push(l));
      const r = w.evm.call(CALLER, TARGET, 0n, new Uint8Array(0), 100);
      assert.equal(r.halt, Halt.BadJump);
      assert.equal(out.length, 2);
      assert.equal((JSON.parse(out[1]) as { error?: string }).error, "invalid jump destination");
    });
  });
});

/**
 * The untraced loop runs the common opcodes inline (evm.ts `loop`); the traced loop calls the
 * jump table's function for every opcode. Random programs over those opcodes (and a few that leave
 * the switch) must end the same way on both: halt, gas left, output, pc and the whole stack left in
 * the frame. A seeded generator keeps failures reproducible.
 */
describe("untraced loop's inline opcodes against the table functions", () => {
  /** Inline opcodes with their stack effect (pops, pushes). */
  const INLINE: readonly [number, number, number][] = [
    [0x01, 2, 1],
    [0x02, 2, 1],
    [0x03, 2, 1],
    [0x10, 2, 1],
    [0x11, 2, 1],
    [0x14, 2, 1],
    [0x15, 1, 1],
    [0x16, 2, 1],
    [0x17, 2, 1],
    [0x18, 2, 1],
    [0x19, 1, 1],
    [0x50, 1, 0],
    [0x5b, 0, 0],
    [0x5f, 0, 1],
  ];
  /** Some that leave the switch (DIV, MOD, MULMOD, EXP, SHL, SHR, KECCAK256, MLOAD, PC, MSIZE, GAS). */
  const OTHERS: readonly [number, number, number][] = [
    [0x04, 2, 1],
    [0x06, 2, 1],
    [0x09, 3, 1],
    [0x0a, 2, 1],
    [0x1b, 2, 1],
    [0x1c, 2, 1],
    [0x51, 1, 1],
    [0x58, 0, 1],
    [0x59, 0, 1],
    [0x5a, 0, 1],
  ];
  let seed = 0x2545f491;
  const rnd = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const WORDS = [0n, 1n, 2n, 31n, 32n, 255n, MIN_NEG, MAX, MAX - 1n, 0xffffffffffffffffn, 1n << 64n];
  const randomWord = (): bigint =>
    rnd(3) === 0
      ? BigInt(`0x${Array.from({ length: 64 }, () => rnd(16).toString(16)).join("")}`)
      : WORDS[rnd(WORDS.length)]!;

  /**
   * A program: 17 pushed words, then random opcodes (kept mostly within the stack they have, so
   * most runs reach the end; now and then one is not, or jumps anywhere, or is KECCAK256/INVALID),
   * then the top 4 words stored and returned.
   */
  function program(len: number): Uint8Array {
    const out: number[] = [];
    let depth = 0;
    const pushN = (v: bigint, n: number): void => {
      out.push(0x5f + n);
      for (let i = n - 1; i >= 0; i--) out.push(Number((v >> BigInt(8 * i)) & 0xffn));
      depth++;
    };
    const op = ([code, pops, pushes]: readonly [number, number, number]): void => {
      if (depth - pops < 4 && rnd(20) !== 0) pushN(randomWord(), 32);
      else {
        out.push(code);
        depth += pushes - pops;
      }
    };
    for (let i = 0; i < 17; i++) pushN(randomWord(), 32);
    for (let i = 0; i < len; i++) {
      const k = rnd(12);
      if (k < 3) {
        const n = 1 + rnd(32);
        pushN(randomWord() & ((1n << BigInt(8 * n)) - 1n), n);
      } else if (k < 5) {
        const n = 1 + rnd(Math.min(16, depth + (rnd(20) === 0 ? 1 : 0)));
        op([0x7f + n, n, n + 1]);
      } else if (k < 7) {
        const n = 1 + rnd(Math.min(16, depth - 1 + (rnd(20) === 0 ? 1 : 0)));
        op([0x8f + n, n + 1, n + 1]);
      } else if (k < 9) op(INLINE[rnd(INLINE.length)]!);
      else if (k < 10) {
        // JUMP or JUMPI, mostly to a JUMPDEST just after it, now and then anywhere.
        const jumpi = rnd(2) === 1;
        if (jumpi) pushN(BigInt(rnd(2)), 1);
        pushN(BigInt(rnd(10) === 0 ? rnd(out.length + 8) : out.length + 4), 2);
        op([jumpi ? 0x57 : 0x56, jumpi ? 2 : 1, 0]);
        out.push(0x5b);
      } else if (k < 11) op(OTHERS[rnd(OTHERS.length)]!);
      else if (rnd(10) === 0) out.push(0xfe);
      else {
        pushN(BigInt(rnd(64)), 1);
        pushN(BigInt(rnd(64)), 1);
        op([0x20, 2, 1]);
      }
    }
    for (let k = 0; k < 4; k++) out.push(0x60, 32 * k, 0x52);
    out.push(0x60, 128, 0x60, 0, 0xf3);
    return Uint8Array.from(out);
  }

  for (const fork of [Fork.Frontier, Fork.Cancun]) {
    it(`${Fork[fork]}: 400 random programs end alike on both loops`, () => {
      let returned = 0;
      for (let i = 0; i < 400; i++) {
        // Before Shanghai 0x5f (PUSH0) is undefined: both loops must halt on it.
        const code = program(10 + rnd(60));
        const gas = rnd(4) === 0 ? 20 + rnd(400) : 1_000_000;
        const ends = [false, true].map((traced) => {
          const w = world(fork, {
            [addrHex(CALLER)]: { balance: "0xffffffffffffffff" },
            [addrHex(TARGET)]: { code: bytesToHex(code), balance: "0x0" },
          });
          if (traced) w.evm.tracer = {};
          const r = w.evm.call(CALLER, TARGET, 0n, new Uint8Array(0), gas);
          // The tx-level frame stays in the Evm's pool: its stack is the whole end state, words
          // over 2^256 included (memory would hide those).
          const f = w.evm.frameAt(0);
          const stack = f.stack.slice(0, f.sp).map((v) => v.toString(16));
          return { halt: Halt[r.halt], gasLeft: r.gasLeft, output: bytesToHex(r.output), pc: f.pc, stack };
        });
        assert.deepEqual(ends[0], ends[1], `program ${i}: ${bytesToHex(code)}`);
        if (ends[0]!.halt === "Return") returned++;
      }
      // The generator must reach the stored-stack ending often, or the test checks little.
      assert.ok(returned > 60, `only ${returned} programs returned`);
    });
  }
});
