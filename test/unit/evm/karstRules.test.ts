/**
 * The EVM rules Karst (OP Upgrade 19) brings to L2, each against Jovian on the same OP chain config
 * (rules from `rulesAt`, the way blocks get them). Expected values come from the specs, worked out
 * here:
 * - EIP-7939 CLZ (0x1e): count of leading zero bits, 5 gas; before Osaka an undefined opcode.
 * - EIP-7951 P256VERIFY (0x100): 6,900 gas; RIP-7212 on OP from Fjord: 3,450.
 * - MODEXP: EIP-7823 caps each length at 1,024 bytes; EIP-7883 prices max(500, c·it) with c = 16
 *   for lengths ≤ 32 and an exponent tail counted 16× per byte, EIP-2565 max(200, w²·it/3) with 8×.
 * - bn256Pairing (0x08): OP caps the input at 81,984 bytes (427 pairs) from Jovian and 57,600 bytes
 *   (300 pairs) from Karst (op-revm precompiles.rs `bn254_pair::JOVIAN_MAX_INPUT_SIZE`,
 *   `KARST_MAX_INPUT_SIZE`; karst() replaces Jovian's pair precompile and keeps its BLS limits).
 */
import { strict as assert } from "node:assert";
import { p256 } from "@noble/curves/nist.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { buildPreState } from "../../../src/cli/evmTool/preState.js";
import { Evm } from "../../../src/evm/evm.js";
import { Halt } from "../../../src/evm/status.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { type ChainConfig, rulesAt } from "../../../src/spec/chainConfig.js";
import { Fork, type ForkRules, OpFork } from "../../../src/spec/forks.js";
import { KvStateReader } from "../../../src/state/kvStateReader.js";
import { bigintToAddress, WorldState } from "../../../src/state/worldState.js";
import { TEST_BLOCK } from "../../utils/blocks.js";
import { opGenesis } from "../../utils/genesis.js";

const CALLER = 0xca11e40000000000000000000000000000000001n;
const TARGET = 0xc0de000000000000000000000000000000000001n;

/** The test OP chain (every fork through Jovian at 0), with Karst at `karst` when given. */
function opConfig(karst: number | null): ChainConfig {
  const json = opGenesis() as { config: Record<string, unknown> };
  if (karst !== null) json.config.karstTime = karst;
  return parseGenesis(json).config;
}

const KARST_AT = 1_000;
const CFG = opConfig(KARST_AT);
const JOVIAN: ForkRules = rulesAt(CFG, 1, KARST_AT - 1);
const KARST: ForkRules = rulesAt(CFG, 2, KARST_AT);

function runAt(rules: ForkRules, to: bigint, input: Uint8Array, gas: number, code?: string) {
  const alloc: Record<string, { balance: string; code?: string }> = {
    [bytesToHex(bigintToAddress(CALLER))]: { balance: "0xffffffffffff" },
  };
  if (code !== undefined) alloc[bytesToHex(bigintToAddress(to))] = { balance: "0x0", code: `0x${code}` };
  const { kv } = buildPreState(alloc);
  const evm = new Evm(rules, TEST_BLOCK, new WorldState(new KvStateReader(kv), kv));
  const r = evm.call(CALLER, to, 0n, input, gas);
  return { halt: r.halt, used: gas - r.gasLeft, output: r.output.slice() };
}

const word = (b: Uint8Array): bigint => (b.length === 0 ? -1n : BigInt(bytesToHex(b)));
const be32 = (v: bigint): string => v.toString(16).padStart(64, "0");

describe("evm: Karst rules on an OP chain (against Jovian)", () => {
  it("the chain config gives Jovian → Prague and Karst → Osaka", () => {
    assert.deepEqual([JOVIAN.fork, JOVIAN.op], [Fork.Prague, OpFork.Jovian]);
    assert.deepEqual([KARST.fork, KARST.op], [Fork.Osaka, OpFork.Karst]);
    // Without karstTime the chain stays at Jovian.
    assert.equal(rulesAt(opConfig(null), 2, KARST_AT).op, OpFork.Jovian);
  });

  it("CLZ (EIP-7939) runs at Karst and is an invalid opcode at Jovian", () => {
    // PUSH1 1, CLZ, PUSH1 0, MSTORE, PUSH1 32, PUSH1 0, RETURN.
    const code = "60011e60005260206000f3";
    const k = runAt(KARST, TARGET, new Uint8Array(0), 100_000, code);
    assert.equal(k.halt, Halt.Return);
    assert.equal(word(k.output), 255n, "clz(1) = 255 leading zero bits");
    // PUSH1 3 + CLZ 5 + PUSH1 3 + MSTORE 3 + 3 (one memory word) + PUSH1 3 + PUSH1 3 + RETURN 0.
    assert.equal(k.used, 3 + 5 + 3 + 3 + 3 + 3 + 3);
    // clz(0) = 256 and clz(2^255) = 0.
    assert.equal(word(runAt(KARST, TARGET, new Uint8Array(0), 100_000, "60001e60005260206000f3").output), 256n);
    const top = `7f${be32(1n << 255n)}1e60005260206000f3`;
    assert.equal(word(runAt(KARST, TARGET, new Uint8Array(0), 100_000, top).output), 0n);

    const j = runAt(JOVIAN, TARGET, new Uint8Array(0), 100_000, code);
    assert.equal(j.halt, Halt.InvalidOpcode);
    assert.equal(j.used, 100_000, "an invalid opcode consumes all gas");
  });

  it("P256VERIFY costs 6,900 at Karst (EIP-7951) and 3,450 at Jovian (RIP-7212)", () => {
    const priv = p256.utils.randomSecretKey();
    const pub = p256.getPublicKey(priv, false);
    const hash = sha256(Uint8Array.of(1, 2, 3));
    const sig = p256.sign(hash, priv, { prehash: false, lowS: false, format: "compact" });
    const input = new Uint8Array(160);
    input.set(hash, 0);
    input.set(sig, 32);
    input.set(pub.subarray(1), 96);
    for (const [rules, gas] of [
      [KARST, 6900],
      [JOVIAN, 3450],
    ] as const) {
      const r = runAt(rules, 0x100n, input, 50_000);
      assert.equal(r.halt, Halt.Return);
      assert.equal(word(r.output), 1n, "valid signature");
      assert.equal(r.used, gas);
      // One gas short is out of gas.
      assert.equal(runAt(rules, 0x100n, input, gas - 1).halt, Halt.OutOfGas);
    }
  });

  it("MODEXP: EIP-7883 prices and EIP-7823 bounds apply at Karst only", () => {
    const input = (b: bigint, bLen: number, e: string, eLen: number, m: bigint, mLen: number): Uint8Array =>
      hexToBytes(
        `0x${be32(BigInt(bLen))}${be32(BigInt(eLen))}${be32(BigInt(mLen))}${b.toString(16).padStart(bLen * 2, "0")}${e}${m.toString(16).padStart(mLen * 2, "0")}`,
      );
    // 3^5 mod 7 = 243 mod 7 = 5. Lengths 1: EIP-2565 w = 1, it = bitlen(5) − 1 = 2 → max(200, 1·2/3)
    // = 200; EIP-7883 c = 16, it = 2 → max(500, 32) = 500.
    const small = input(3n, 1, "05", 1, 7n, 1);
    const jSmall = runAt(JOVIAN, 0x05n, small, 100_000);
    const kSmall = runAt(KARST, 0x05n, small, 100_000);
    assert.deepEqual([jSmall.used, word(jSmall.output)], [200, 5n]);
    assert.deepEqual([kSmall.used, word(kSmall.output)], [500, 5n]);

    // A 40-byte exponent whose first 32 bytes are 1 (head bit length 1): EIP-2565 it = 8·(40−32) = 64,
    // 1·64/3 = 21 → 200; EIP-7883 it = 16·8 = 128, 16·128 = 2048.
    const longExp = `${be32(1n)}${"00".repeat(8)}`;
    const long = input(2n, 1, longExp, 40, 7n, 1);
    assert.equal(runAt(JOVIAN, 0x05n, long, 100_000).used, 200);
    assert.equal(runAt(KARST, 0x05n, long, 100_000).used, 2048);
    // 2^(2^64) mod 7: 2^3 ≡ 1 (mod 7) and 2^64 ≡ 1 (mod 3), so 2^(2^64) ≡ 2.
    assert.equal(word(runAt(KARST, 0x05n, long, 100_000).output), 2n);

    // EIP-7823: a 1,025-byte base fails at Karst (all gas), and is priced normally at Jovian.
    const big = input(1n, 1025, "01", 1, 7n, 1);
    const kBig = runAt(KARST, 0x05n, big, 1_000_000);
    assert.equal(kBig.halt, Halt.PrecompileFailure);
    assert.equal(kBig.used, 1_000_000);
    const jBig = runAt(JOVIAN, 0x05n, big, 1_000_000);
    assert.equal(jBig.halt, Halt.Return);
    assert.equal(word(jBig.output), 1n, "1^1 mod 7");
    // 1,024 bytes is still allowed at Karst.
    assert.equal(runAt(KARST, 0x05n, input(1n, 1024, "01", 1, 7n, 1), 1_000_000).halt, Halt.Return);
  });

  it("bn256Pairing: 300 pairs (57,600 bytes) pass and 301 (57,792) fail at Karst; Jovian's 81,984 holds at Jovian", () => {
    // Pairs of points at infinity (all zero): valid points whose pairing product is 1.
    const pairs = (n: number): Uint8Array => new Uint8Array(n * 192);
    const gasOf = (n: number): number => 45_000 + 34_000 * n;
    const run = (rules: ForkRules, n: number) => runAt(rules, 0x08n, pairs(n), gasOf(n) + 1_000);

    const k300 = run(KARST, 300);
    assert.equal(pairs(300).length, 57_600);
    assert.deepEqual([k300.halt, word(k300.output), k300.used], [Halt.Return, 1n, gasOf(300)]);
    const k301 = run(KARST, 301);
    assert.equal(pairs(301).length, 57_792);
    assert.deepEqual([k301.halt, k301.used], [Halt.PrecompileFailure, gasOf(301) + 1_000]);

    const j301 = run(JOVIAN, 301);
    assert.deepEqual([j301.halt, word(j301.output)], [Halt.Return, 1n]);
    const j427 = run(JOVIAN, 427);
    assert.equal(pairs(427).length, 81_984);
    assert.equal(j427.halt, Halt.Return);
    assert.equal(run(JOVIAN, 428).halt, Halt.PrecompileFailure);
  });
});
