/**
 * The interpreter's native core (native/src/interp.c) against its twin, the TS loop: random programs
 * over the opcodes it runs (plus some it leaves to the loop, bad jumps and stack faults) are run with
 * the core off and with the core entered wherever the loop can (NativeCore.Eager), and must end with
 * the same halt, gas left and output (the whole final stack, stored to memory and returned). A loop
 * like compute-keccak's, which the default mode runs natively from its backward jump, is checked
 * against the same arithmetic done here on bigints with @noble/hashes' keccak. Skipped without the
 * addon (OPAL_NATIVE=0), where the loop never enters the core.
 */
import { strict as assert } from "node:assert";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { buildPreState } from "../../../src/cli/evmTool/preState.js";
import { Evm, NativeCore, setNativeCore } from "../../../src/evm/evm.js";
import { Halt } from "../../../src/evm/status.js";
import { native } from "../../../src/native/load.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { Fork, l1Rules } from "../../../src/spec/forks.js";
import { KvStateReader } from "../../../src/state/kvStateReader.js";
import { bigintToAddress, WorldState } from "../../../src/state/worldState.js";
import { TEST_BLOCK } from "../../utils/blocks.js";
import { mulberry32 } from "../../utils/prng.js";

const CALLER = 0xca11e40000000000000000000000000000000001n;
const TARGET = 0xc0de000000000000000000000000000000000001n;
const M256 = (1n << 256n) - 1n;

interface Outcome {
  halt: Halt;
  gasLeft: number;
  output: string;
}

function runCode(fork: Fork, code: Uint8Array, mode: NativeCore, gas = 3_000_000): Outcome {
  const { kv } = buildPreState({
    [bytesToHex(bigintToAddress(CALLER))]: { balance: "0xffffffffffffffff" },
    [bytesToHex(bigintToAddress(TARGET))]: { code: bytesToHex(code), balance: "0x0" },
  });
  const st = new WorldState(new KvStateReader(kv), kv);
  const evm = new Evm(l1Rules(fork), TEST_BLOCK, st);
  setNativeCore(mode);
  try {
    const r = evm.call(CALLER, TARGET, 0n, new Uint8Array(0), gas);
    return { halt: r.halt, gasLeft: r.gasLeft, output: bytesToHex(r.output) };
  } finally {
    setNativeCore(NativeCore.Loops);
  }
}

/** Uint32s from the shared seeded PRNG: the same programs on every run. */
function rng(seed: number): () => number {
  const r = mulberry32(seed);
  return () => Math.floor(r() * 2 ** 32);
}

const SPECIAL: bigint[] = [
  0n,
  1n,
  2n,
  3n,
  31n,
  32n,
  255n,
  256n,
  257n,
  (1n << 64n) - 1n,
  1n << 64n,
  (1n << 128n) + 7n,
  1n << 255n,
  (1n << 255n) - 1n,
  M256,
  M256 - 1n,
  0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn,
];
/** Opcodes taking only words: [opcode, pops]. */
const WORD_OPS: [number, number][] = [
  [0x01, 2],
  [0x02, 2],
  [0x03, 2],
  [0x04, 2],
  [0x05, 2],
  [0x06, 2],
  [0x07, 2],
  [0x08, 3],
  [0x09, 3],
  [0x0a, 2],
  [0x0b, 2],
  [0x10, 2],
  [0x11, 2],
  [0x12, 2],
  [0x13, 2],
  [0x14, 2],
  [0x15, 1],
  [0x16, 2],
  [0x17, 2],
  [0x18, 2],
  [0x19, 1],
  [0x1a, 2],
  [0x1b, 2],
  [0x1c, 2],
  [0x1d, 2],
];

function pushWord(out: number[], v: bigint, width = 32): void {
  out.push(0x5f + width);
  for (let i = width - 1; i >= 0; i--) out.push(Number((v >> BigInt(8 * i)) & 0xffn));
}

/** A random program that ends by storing its whole stack from 0x400 up and returning it. */
function randomProgram(next: () => number): Uint8Array {
  const c: number[] = [];
  let depth = 0;
  const pick = <T>(xs: readonly T[]): T => xs[next() % xs.length];
  const randomWord = (): bigint => {
    const k = next() % 4;
    if (k === 0) return BigInt(next() % 300);
    if (k === 1) return pick(SPECIAL);
    let v = 0n;
    for (let i = 0; i < 8; i++) v = (v << 32n) | BigInt(next());
    return k === 2 ? v : v >> BigInt(next() % 256);
  };
  // Active memory 0..0x140 first (an expansion the loop runs), so memory opcodes can run natively.
  pushWord(c, 0n, 1);
  pushWord(c, 0x120n, 2);
  c.push(0x52);
  const steps = 20 + (next() % 60);
  for (let s = 0; s < steps; s++) {
    const k = next() % 100;
    if (k < 30 || depth < 3) {
      const w = randomWord();
      const width = w === 0n && next() % 2 === 0 ? 0 : 1 + (next() % 32);
      if (width === 0) c.push(0x5f);
      else pushWord(c, w & ((1n << BigInt(8 * width)) - 1n), width);
      depth++;
    } else if (k < 62) {
      const [op, pops] = pick(WORD_OPS);
      c.push(op);
      depth -= pops - 1;
    } else if (k < 70) {
      const n = 1 + (next() % Math.min(16, depth));
      c.push(0x7f + n);
      depth++;
    } else if (k < 78) {
      const n = 1 + (next() % Math.min(16, depth - 1));
      c.push(0x8f + n);
    } else if (k < 81) {
      c.push(0x50);
      depth--;
    } else if (k < 90) {
      // Memory at a small offset: mostly inside the active 0x140 bytes, sometimes past them.
      const op = pick([0x51, 0x52, 0x53, 0x20]);
      if (op === 0x20) {
        pushWord(c, BigInt(next() % 0x60), 1);
        pushWord(c, BigInt(next() % 0x150), 2);
        depth += 1;
      } else {
        if (op !== 0x51) depth -= 1;
        pushWord(c, BigInt(next() % 0x150), 2);
      }
      c.push(op);
    } else if (k < 94) {
      c.push(pick([0x58, 0x59, 0x5a, 0x5b]));
      if (c[c.length - 1] !== 0x5b) depth++;
    } else if (k < 96) {
      // An opcode the core leaves to the loop, then back.
      c.push(pick([0x30, 0x33, 0x36, 0x3a]));
      depth++;
    } else if (k < 98) {
      // A forward jump over a few bytes to a JUMPDEST, or (rarely) to a bad destination.
      const bad = next() % 4 === 0;
      const target = c.length + 4 + 2;
      pushWord(c, BigInt(bad ? target - 1 : target), 2);
      c.push(0x56, 0xfe, 0xfe, 0x5b);
    } else {
      // A conditional jump on the top word, to just past itself.
      pushWord(c, BigInt(c.length + 3 + 1), 2);
      c.push(0x57, 0x5b);
      depth--;
    }
  }
  if (depth < 0) depth = 0;
  for (let i = 0; i < depth; i++) {
    pushWord(c, BigInt(0x400 + 32 * i), 2);
    c.push(0x52);
  }
  pushWord(c, BigInt(32 * depth), 2);
  pushWord(c, 0x400n, 2);
  c.push(0xf3);
  return Uint8Array.from(c);
}

describe("evm: native core against the TS loop", () => {
  before(function () {
    if (native === null) this.skip();
  });

  for (const fork of [Fork.Byzantium, Fork.Cancun, Fork.Osaka]) {
    it(`${Fork[fork]}: 400 random programs end alike with and without it`, () => {
      const next = rng(0x5eed + fork);
      const halts = new Set<Halt>();
      for (let i = 0; i < 400; i++) {
        const code = randomProgram(next);
        const pure = runCode(fork, code, NativeCore.Off);
        const eager = runCode(fork, code, NativeCore.Eager);
        halts.add(pure.halt);
        assert.deepEqual(eager, pure, `program ${i}: ${bytesToHex(code)}`);
      }
      // The programs reach both ends: some return their stack, some fault.
      assert.ok(halts.has(Halt.Return) && halts.size > 1, `halts seen: ${[...halts].map((h) => Halt[h])}`);
    });
  }

  it("divides where long division's quotient digit estimate is one too large (Knuth D6)", () => {
    // Found by simulating algorithm D on words of 0, 1, 2^63±1, 2^64-1 digits: its add-back step runs.
    const a = 0xffffffffffffffff000000000000000100000000000000010000000000000001n;
    const b = 0x80000000000000008000000000000001fffffffffffffffen;
    for (const [op, want] of [
      [0x04, a / b],
      [0x06, a % b],
    ] as const) {
      const c: number[] = [];
      pushWord(c, b);
      pushWord(c, a);
      c.push(op, 0x5f, 0x52, 0x60, 0x20, 0x5f, 0xf3);
      const code = Uint8Array.from(c);
      const eager = runCode(Fork.Cancun, code, NativeCore.Eager);
      assert.equal(BigInt(eager.output), want);
      assert.deepEqual(eager, runCode(Fork.Cancun, code, NativeCore.Off));
    }
  });

  it("runs a keccak/mulmod loop from its backward jump to the value computed on bigints", () => {
    // h := seed; acc := 1; for i < rounds: mstore(0,h) mstore(32,i) h := keccak(0,64)
    //   acc := mulmod(acc*c + (h^i), h, P); then return acc — BenchCompute.work's loop.
    const rounds = 300;
    const seed = 0x1234n;
    const P = 0xfffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2fn;
    const C = 6364136223846793005n;
    const hex2 = (v: number): string => v.toString(16).padStart(4, "0");
    const head = `61${hex2(rounds)}61${hex2(Number(seed))}60015f`; // rounds h acc=1 i=0
    const body = (end: number, loop: number): string =>
      "5b" + // loop: [rounds, h, acc, i]
      `838110156${"1"}${hex2(end)}57` + // DUP4 DUP2 LT ISZERO PUSH2 end JUMPI
      "825f52" + // mstore(0, h)
      "80602052" + // mstore(32, i)
      "60405f20" + // keccak(0, 64) → h'
      "9250" + // h := h'
      "808318" + // i ^ h'
      `67${C.toString(16).padStart(16, "0")}8302` + // acc · C
      "01" + // + (i ^ h')
      `7f${P.toString(16)}9084` + // [acc', P] → [P, acc', h']
      "09" + // MULMOD
      "9150" + // acc := …
      "600101" + // i++
      `61${hex2(loop)}56` + // JUMP loop
      "5b505f5260205ff3"; // end: POP i, return acc
    const loopAt = head.length / 2;
    const endAt = loopAt + body(0, 0).length / 2 - 8;
    const code = hexToBytes(`0x${head}${body(endAt, loopAt)}`);
    assert.equal(code[loopAt], 0x5b);
    assert.equal(code[endAt], 0x5b);
    let h = seed;
    let acc = 1n;
    const buf = new Uint8Array(64);
    for (let i = 0n; i < BigInt(rounds); i++) {
      for (let j = 0; j < 32; j++) {
        buf[j] = Number((h >> BigInt(8 * (31 - j))) & 0xffn);
        buf[32 + j] = Number((i >> BigInt(8 * (31 - j))) & 0xffn);
      }
      h = BigInt(bytesToHex(keccak_256(buf)));
      acc = (((acc * C) & M256) + (h ^ i)) & M256;
      acc = (acc * h) % P;
    }
    const loops = runCode(Fork.Cancun, code, NativeCore.Loops);
    const pure = runCode(Fork.Cancun, code, NativeCore.Off);
    assert.equal(loops.halt, Halt.Return);
    assert.equal(BigInt(loops.output), acc);
    assert.deepEqual(loops, pure);
  });
});
