/**
 * Opal's own L1Block (0x4200…0015) and GasPriceOracle (0x4200…000F) predeploys
 * (contracts/*.sol, compiled into src/executor/op/predeploys.ts), run in Opal's EVM: a block with the
 * L1-attributes deposit of each calldata format and a signed user tx, then eth_call-style calls.
 *
 * What the GasPriceOracle computes and how it relates to what the block charges (op-stack.md §3.3;
 * the oracle's contract notes; specs GasPriceOracle "getL1Fee"):
 * - The oracle takes the *unsigned* encoding U of a tx (the EIP-155/2718 signing payload) and adds a
 *   signature's worth: 68 non-zero bytes (1088 calldata gas) for Bedrock/Ecotone, 68 bytes of FastLZ
 *   output for Fjord. The block charges the *signed* encoding S without padding (from Regolith on).
 * - Bedrock/Ecotone: `getL1Fee(U) == l1Cost(S)` exactly when `calldataGas(S) == calldataGas(U) + 1088`,
 *   i.e. the signature adds 68 non-zero bytes. That holds for a short EIP-1559 tx whose r and s have
 *   no zero byte (yParity, r, s = 67 bytes, and the list header grows from 1 to 2 bytes); the test
 *   picks such a tx and checks the precondition.
 * - Pre-Regolith Bedrock: op-geth pads the signed bytes with the same 1088 gas, so the oracle's
 *   formula equals `l1Cost(X)` under Bedrock rules for any input X.
 * - Fjord+: `getL1Fee(U) == fjordL1Cost(flz(U) + 68)`. It equals `l1Cost(S)` when
 *   `flz(S) == flz(U) + 68`, or when both sizes are under the minimum (estimated size clamped at
 *   100 bytes, i.e. flz ≤ 170); a short tx is in the second case, which the test checks.
 * - Operator fee: `getOperatorFee(g) == operatorFee(g)`, and for the tx in the block, the
 *   OperatorFeeVault receives `operatorFee(receipt gasUsed)`.
 * The contracts are Cancun code, so blocks run under Ecotone+ rules; the oracle picks its formula by
 * its flags (set in genesis storage), not by the EVM fork. That the generated module matches a fresh
 * compile of contracts/*.sol: test/e2e/executor/op/predeploys.test.ts.
 */
import { strict as assert } from "node:assert";
import type { Header } from "../../../../src/block/header.js";
import { type AllocAccount, writeAlloc } from "../../../../src/chain/genesisState.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { privateKeyToAddress } from "../../../../src/crypto/secp256k1.js";
import type { BlockContext } from "../../../../src/evm/context.js";
import { Evm } from "../../../../src/evm/evm.js";
import { type BlockExecFailure, type BlockExecResult, executeBlock } from "../../../../src/executor/executeBlock.js";
import type { TxOutcome, TxRejectCode } from "../../../../src/executor/executeTx.js";
import { executeDeposit } from "../../../../src/executor/op/executeDeposit.js";
import { fastLzCompressedLength } from "../../../../src/executor/op/fastLz.js";
import { fjordL1Cost, l1Cost } from "../../../../src/executor/op/l1Cost.js";
import { operatorFee } from "../../../../src/executor/op/operatorFee.js";
import {
  gasPriceOracleGenesisStorage,
  gasPriceOracleRuntimeCode,
  l1BlockRuntimeCode,
  l1BlockStorage,
} from "../../../../src/executor/op/predeploys.js";
import { type CallMessage, call } from "../../../../src/executor/simulate.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { bigintToBytes32, bytesToBigint, MAX_U256 } from "../../../../src/primitives/u256.js";
import { type ForkRules, OpFork, opRules } from "../../../../src/spec/forks.js";
import { GAS_PRICE_ORACLE_ADDRESS, L1_BLOCK_ADDRESS } from "../../../../src/spec/opAddresses.js";
import { KvStateReader } from "../../../../src/state/kvStateReader.js";
import { addressToBigint, WorldState } from "../../../../src/state/worldState.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { encodeL1BlockInfo, type L1BlockInfo, L1InfoFormat, newL1BlockInfo } from "../../../../src/tx/l1BlockInfo.js";
import { signingPayload, signTx } from "../../../../src/tx/signer.js";
import { type DepositTx, type FeeMarketTx, type Tx, TxType } from "../../../../src/tx/tx.js";
import { testHeader } from "../../../utils/blocks.js";
import { fixturePath, readJson } from "../../../utils/fixtures.js";
import { DEV_KEY } from "../../tx/builders.js";

// ---- fixtures and constants ----

interface FeeCase {
  id: string;
  fork?: string;
  tx?: string;
  fastLzSize?: string;
  gas?: string;
  params: Record<string, string>;
  expected: Record<string, unknown>;
}
const VECTORS = readJson<{
  cases: FeeCase[];
  fastlz_compress_len: { name: string; input: string; expected: string }[];
}>(fixturePath("op-stack", "l1-fee-vectors.json"));
const vector = (id: string): FeeCase => {
  const c = VECTORS.cases.find((x) => x.id === id);
  if (c === undefined) throw new Error(`no vector ${id}`);
  return c;
};

const CHAIN_ID = 10n;
const GAS_LIMIT = 30_000_000n;
const L2_BASE_FEE = 1_000_000n;
const DEPOSITOR = hexToBytes("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
const L1_FEE_VAULT = hexToBytes("0x420000000000000000000000000000000000001a");
const OPERATOR_FEE_VAULT = hexToBytes("0x420000000000000000000000000000000000001b");
const COINBASE = hexToBytes("0x4200000000000000000000000000000000000011");
const USER = hexToBytes("0x00000000000000000000000000000000000a11ce");
const RECIPIENT = hexToBytes("0x0000000000000000000000000000000000000b0b");
const SENDER = privateKeyToAddress(DEV_KEY);

// ---- ABI helpers ----

function selector(sig: string): Uint8Array {
  return keccak256(new TextEncoder().encode(sig)).subarray(0, 4);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function word(v: bigint): Uint8Array {
  return bigintToBytes32(v);
}

/** Calldata of `sig` with ABI-encoded static words. */
function callData(sig: string, ...words: bigint[]): Uint8Array {
  return concat(selector(sig), ...words.map(word));
}

/** Calldata of a `f(bytes)` function. */
function bytesCall(sig: string, data: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil(data.length / 32) * 32);
  padded.set(data);
  return concat(selector(sig), word(32n), word(BigInt(data.length)), padded);
}

/** The `Error(string)` message of revert data. */
function revertReason(out: Uint8Array): string {
  assert.equal(bytesToHex(out.subarray(0, 4)), bytesToHex(selector("Error(string)")));
  const len = Number(bytesToBigint(out.subarray(36, 68)));
  return new TextDecoder().decode(out.subarray(68, 68 + len));
}

/** A deterministic pseudo-random byte string (xorshift32). */
function prng(seed: number, length: number): Uint8Array {
  let x = seed >>> 0 || 1;
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

// ---- chain helpers ----

/** Genesis with both predeploys; the GasPriceOracle flags of `gpoFork`. */
function genesis(gpoFork: OpFork, extra: AllocAccount[] = []): MemoryKv {
  const kv = new MemoryKv();
  writeAlloc(kv, [
    {
      address: L1_BLOCK_ADDRESS,
      nonce: 0n,
      balance: 0n,
      code: l1BlockRuntimeCode(),
      storage: [],
    },
    {
      address: GAS_PRICE_ORACLE_ADDRESS,
      nonce: 0n,
      balance: 0n,
      code: gasPriceOracleRuntimeCode(),
      storage: gasPriceOracleGenesisStorage(gpoFork),
    },
    ...extra,
  ]);
  return kv;
}

function header(): Header {
  return testHeader({ coinbase: COINBASE, gasLimit: GAS_LIMIT, baseFeePerGas: L2_BASE_FEE });
}

function blockContext(): BlockContext {
  return {
    coinbase: addressToBigint(COINBASE),
    number: 1n,
    timestamp: 1_000n,
    gasLimit: GAS_LIMIT,
    difficulty: 0n,
    prevRandao: 0n,
    baseFee: L2_BASE_FEE,
    blobBaseFee: 1n,
    chainId: CHAIN_ID,
    blockHash: () => 0n,
  };
}

function l1InfoDeposit(info: L1BlockInfo): DepositTx {
  return {
    type: TxType.Deposit,
    sourceHash: new Uint8Array(32).fill(0x11),
    from: DEPOSITOR,
    to: L1_BLOCK_ADDRESS,
    mint: 0n,
    value: 0n,
    gasLimit: 1_000_000n,
    isSystemTx: false,
    data: encodeL1BlockInfo(info),
  };
}

/** Runs a block (L1-info deposit, then `txs`) on `kv` and writes its state back. */
function runBlock(kv: MemoryKv, rules: ForkRules, info: L1BlockInfo, txs: readonly Tx[] = []): BlockExecResult {
  const state = new WorldState(new KvStateReader(kv), kv);
  const all: Tx[] = [l1InfoDeposit(info), ...txs];
  const r: BlockExecResult | BlockExecFailure = executeBlock(
    state,
    {
      header: header(),
      txs: all,
      senders: all.map((t) => (t.type === TxType.Deposit ? t.from : SENDER)),
      ommers: [],
      withdrawals: null,
    },
    {
      rules,
      chainId: CHAIN_ID,
      blobBaseFee: 1n,
      maxBlobGas: 0,
      depositContract: null,
      blockHash: () => 0n,
      intermediateRoot: null,
    },
  );
  if ("error" in r) assert.fail(`block failed: ${r.error} at tx ${r.txIndex}`);
  for (const rc of r.receipts) assert.equal(rc.status, 1);
  kv.write(state.commitBlock().batch);
  return r;
}

function ethCall(kv: MemoryKv, to: Uint8Array, data: Uint8Array, from: Uint8Array = USER): TxOutcome {
  const msg: CallMessage = {
    from,
    to,
    gas: null,
    gasPrice: null,
    maxFeePerGas: null,
    maxPriorityFeePerGas: null,
    value: 0n,
    data,
    accessList: [],
  };
  const r: TxOutcome | TxRejectCode = call(kv, msg, {
    rules: opRules(OpFork.Jovian),
    block: blockContext(),
    chainId: CHAIN_ID,
    gasCap: 0n,
  });
  if (typeof r === "string") assert.fail(`call rejected: ${r}`);
  return r;
}

/** A successful call's single-word result. */
function view(kv: MemoryKv, to: Uint8Array, data: Uint8Array): bigint {
  const r = ethCall(kv, to, data);
  assert.equal(r.status, 1, `call ${bytesToHex(data.subarray(0, 4))} failed: ${r.error}`);
  assert.equal(r.output.length, 32);
  return bytesToBigint(r.output);
}

const gpo = (kv: MemoryKv, sig: string, ...words: bigint[]): bigint =>
  view(kv, GAS_PRICE_ORACLE_ADDRESS, callData(sig, ...words));
const l1b = (kv: MemoryKv, sig: string): bigint => view(kv, L1_BLOCK_ADDRESS, callData(sig));
const getL1Fee = (kv: MemoryKv, data: Uint8Array): bigint =>
  view(kv, GAS_PRICE_ORACLE_ADDRESS, bytesCall("getL1Fee(bytes)", data));
const getL1GasUsed = (kv: MemoryKv, data: Uint8Array): bigint =>
  view(kv, GAS_PRICE_ORACLE_ADDRESS, bytesCall("getL1GasUsed(bytes)", data));

function balance(kv: MemoryKv, a: Uint8Array): bigint {
  return new WorldState(new KvStateReader(kv), kv).account(addressToBigint(a)).balance;
}

function storageOf(kv: MemoryKv, a: Uint8Array, slot: bigint): bigint {
  const st = new WorldState(new KvStateReader(kv), kv);
  return st.sload(st.account(addressToBigint(a)), slot);
}

// ---- L1 attributes of each format ----

const HASH = new Uint8Array(32).map((_, i) => 0xa0 + i);
const BATCHER = concat(new Uint8Array(12), new Uint8Array(20).fill(0xba));
const COMMON = {
  number: 20_123_456n,
  timestamp: 1_712_345_678n,
  baseFee: 31_415_926_535n,
  hash: HASH,
  batcherHash: BATCHER,
  sequenceNumber: 5n,
};
const BEDROCK_INFO = newL1BlockInfo({
  ...COMMON,
  format: L1InfoFormat.Bedrock,
  l1FeeOverhead: 188n,
  l1FeeScalar: 684_000n,
});
const ECOTONE_FIELDS = { ...COMMON, blobBaseFee: 2_718_281_828n, baseFeeScalar: 1_368, blobBaseFeeScalar: 810_949 };
const ECOTONE_INFO = newL1BlockInfo({ ...ECOTONE_FIELDS, format: L1InfoFormat.Ecotone });
const ISTHMUS_INFO = newL1BlockInfo({
  ...ECOTONE_FIELDS,
  format: L1InfoFormat.Isthmus,
  operatorFeeScalar: 1_439_103_868,
  operatorFeeConstant: 1_256_417_826_609_331_460n,
});
const JOVIAN_INFO = newL1BlockInfo({
  ...ECOTONE_FIELDS,
  format: L1InfoFormat.Jovian,
  operatorFeeScalar: 7_777,
  operatorFeeConstant: 123_456_789n,
  daFootprintGasScalar: 400,
});

// ---- signed user txs ----

function userTx(nonce: bigint, data: Uint8Array = new Uint8Array(0)): FeeMarketTx {
  return signTx(
    {
      type: TxType.FeeMarket,
      chainId: CHAIN_ID,
      nonce,
      maxPriorityFeePerGas: 1_000n,
      maxFeePerGas: 5_000_000n,
      gasLimit: 100_000n,
      to: RECIPIENT,
      value: 1_000_000n,
      data,
      accessList: [],
      yParity: 0,
      r: 0n,
      s: 0n,
    },
    DEV_KEY,
  );
}

function calldataGas(b: Uint8Array): number {
  let g = 0;
  for (const x of b) g += x === 0 ? 4 : 16;
  return g;
}

function unsignedOf(tx: FeeMarketTx): Uint8Array {
  const u = signingPayload(tx);
  if (u === null) throw new Error("no signing payload");
  return u;
}

/**
 * The first nonce ≥ `from` whose signed tx adds exactly 68 non-zero bytes to its unsigned encoding
 * (calldataGas(S) = calldataGas(U) + 1088): the case where the oracle and the block agree exactly.
 */
function txWithExactPadding(from = 0n): FeeMarketTx {
  for (let n = from; n < from + 64n; n++) {
    const tx = userTx(n);
    const s = encodeTx(tx);
    const u = unsignedOf(tx);
    if (s.length === u.length + 68 && calldataGas(s) === calldataGas(u) + 68 * 16) return tx;
  }
  throw new Error("no tx with an exact 68-byte signature found");
}

const FUNDED = (nonce: bigint): AllocAccount => ({
  address: SENDER,
  nonce,
  balance: 10n ** 20n,
  code: new Uint8Array(0),
  storage: [],
});

/** Fresh chain at `gpoFork` flags, one block under `rules` with `info` and (optionally) one user tx. */
function chainWith(gpoFork: OpFork, rules: ForkRules, info: L1BlockInfo, tx?: FeeMarketTx) {
  const kv = genesis(gpoFork, [FUNDED(tx?.nonce ?? 0n)]);
  const l1Vault = balance(kv, L1_FEE_VAULT);
  const opVault = balance(kv, OPERATOR_FEE_VAULT);
  const result = runBlock(kv, rules, info, tx === undefined ? [] : [tx]);
  return {
    kv,
    result,
    l1FeeCharged: balance(kv, L1_FEE_VAULT) - l1Vault,
    operatorFeeCharged: balance(kv, OPERATOR_FEE_VAULT) - opVault,
  };
}

// ---- tests ----

describe("executor/op: predeploys (L1Block, GasPriceOracle)", function () {
  this.timeout(120_000);

  describe("generated module", () => {
    it("genesis flags: one byte per fork in slot 0, from Ecotone on", () => {
      assert.deepEqual(gasPriceOracleGenesisStorage(OpFork.Canyon), []);
      assert.deepEqual(gasPriceOracleGenesisStorage(OpFork.Ecotone), [[0n, 0x01n]]);
      assert.deepEqual(gasPriceOracleGenesisStorage(OpFork.Holocene), [[0n, 0x0101n]]);
      assert.deepEqual(gasPriceOracleGenesisStorage(OpFork.Isthmus), [[0n, 0x010101n]]);
      assert.deepEqual(gasPriceOracleGenesisStorage(OpFork.Jovian), [[0n, 0x01010101n]]);
    });

    it("an Isthmus dev genesis: isEcotone, isFjord, isIsthmus true; isJovian false", () => {
      const kv = genesis(OpFork.Isthmus);
      assert.equal(gpo(kv, "isEcotone()"), 1n);
      assert.equal(gpo(kv, "isFjord()"), 1n);
      assert.equal(gpo(kv, "isIsthmus()"), 1n);
      assert.equal(gpo(kv, "isJovian()"), 0n);
    });
  });

  describe("L1Block: each L1-attributes format", () => {
    const formats: [string, L1BlockInfo, OpFork][] = [
      ["Bedrock (setL1BlockValues)", BEDROCK_INFO, OpFork.Ecotone],
      ["Ecotone (setL1BlockValuesEcotone)", ECOTONE_INFO, OpFork.Ecotone],
      ["Isthmus (setL1BlockValuesIsthmus)", ISTHMUS_INFO, OpFork.Isthmus],
      ["Jovian (setL1BlockValuesJovian)", JOVIAN_INFO, OpFork.Jovian],
    ];
    for (const [name, info, fork] of formats) {
      it(`${name}: the views return the deposited values and storage matches the layout`, () => {
        const { kv } = chainWith(fork, opRules(fork), info);
        assert.equal(l1b(kv, "number()"), info.number);
        assert.equal(l1b(kv, "timestamp()"), info.timestamp);
        assert.equal(l1b(kv, "basefee()"), info.baseFee);
        assert.equal(l1b(kv, "hash()"), bytesToBigint(info.hash));
        assert.equal(l1b(kv, "sequenceNumber()"), info.sequenceNumber);
        assert.equal(l1b(kv, "batcherHash()"), bytesToBigint(info.batcherHash));
        assert.equal(l1b(kv, "l1FeeOverhead()"), info.l1FeeOverhead);
        assert.equal(l1b(kv, "l1FeeScalar()"), info.l1FeeScalar);
        assert.equal(l1b(kv, "blobBaseFee()"), info.blobBaseFee);
        assert.equal(l1b(kv, "baseFeeScalar()"), BigInt(info.baseFeeScalar));
        assert.equal(l1b(kv, "blobBaseFeeScalar()"), BigInt(info.blobBaseFeeScalar));
        assert.equal(l1b(kv, "operatorFeeScalar()"), BigInt(info.operatorFeeScalar));
        assert.equal(l1b(kv, "operatorFeeConstant()"), info.operatorFeeConstant);
        assert.equal(l1b(kv, "daFootprintGasScalar()"), BigInt(info.daFootprintGasScalar));
        assert.equal(l1b(kv, "DEPOSITOR_ACCOUNT()"), addressToBigint(DEPOSITOR));
        // Slot by slot (op-stack.md §3.3), via the generated helper and by hand for the packed words.
        const want = new Map(l1BlockStorage(info));
        for (let slot = 0n; slot <= 9n; slot++) {
          assert.equal(storageOf(kv, L1_BLOCK_ADDRESS, slot), want.get(slot) ?? 0n, `slot ${slot}`);
        }
        assert.equal(storageOf(kv, L1_BLOCK_ADDRESS, 0n), (info.timestamp << 64n) | info.number);
        assert.equal(
          storageOf(kv, L1_BLOCK_ADDRESS, 3n),
          (BigInt(info.baseFeeScalar) << 96n) | (BigInt(info.blobBaseFeeScalar) << 64n) | info.sequenceNumber,
        );
        assert.equal(
          storageOf(kv, L1_BLOCK_ADDRESS, 8n),
          (BigInt(info.daFootprintGasScalar) << 96n) |
            (BigInt(info.operatorFeeScalar) << 64n) |
            info.operatorFeeConstant,
        );
        // The GasPriceOracle proxies the same values.
        assert.equal(gpo(kv, "l1BaseFee()"), info.baseFee);
        assert.equal(gpo(kv, "blobBaseFee()"), info.blobBaseFee);
        assert.equal(gpo(kv, "baseFeeScalar()"), BigInt(info.baseFeeScalar));
        assert.equal(gpo(kv, "blobBaseFeeScalar()"), BigInt(info.blobBaseFeeScalar));
      });
    }

    it("a later Ecotone deposit overwrites the Bedrock fields it carries and keeps overhead/scalar", () => {
      const kv = genesis(OpFork.Ecotone);
      runBlock(kv, opRules(OpFork.Ecotone), BEDROCK_INFO);
      runBlock(kv, opRules(OpFork.Ecotone), newL1BlockInfo({ ...ECOTONE_INFO, sequenceNumber: 6n }));
      assert.equal(l1b(kv, "sequenceNumber()"), 6n);
      assert.equal(l1b(kv, "baseFeeScalar()"), BigInt(ECOTONE_INFO.baseFeeScalar));
      assert.equal(l1b(kv, "l1FeeOverhead()"), BEDROCK_INFO.l1FeeOverhead);
      assert.equal(l1b(kv, "l1FeeScalar()"), BEDROCK_INFO.l1FeeScalar);
    });

    it("a Jovian deposit then an Isthmus one clears the DA footprint scalar", () => {
      const kv = genesis(OpFork.Jovian);
      runBlock(kv, opRules(OpFork.Jovian), JOVIAN_INFO);
      assert.equal(l1b(kv, "daFootprintGasScalar()"), 400n);
      runBlock(kv, opRules(OpFork.Jovian), ISTHMUS_INFO);
      assert.equal(l1b(kv, "daFootprintGasScalar()"), 0n);
      assert.equal(l1b(kv, "operatorFeeScalar()"), BigInt(ISTHMUS_INFO.operatorFeeScalar));
      assert.equal(l1b(kv, "operatorFeeConstant()"), ISTHMUS_INFO.operatorFeeConstant);
    });

    it("the deposit also works through executeDeposit directly", () => {
      const kv = genesis(OpFork.Isthmus);
      const state = new WorldState(new KvStateReader(kv), kv);
      const evm = new Evm(opRules(OpFork.Isthmus), blockContext(), state);
      const r = executeDeposit(evm, l1InfoDeposit(ISTHMUS_INFO), GAS_LIMIT);
      assert.notEqual(typeof r, "string");
      if (typeof r === "string") return;
      assert.equal(r.status, 1);
      kv.write(state.commitBlock().batch);
      assert.equal(l1b(kv, "operatorFeeConstant()"), ISTHMUS_INFO.operatorFeeConstant);
    });

    it("views that never change: DEPOSITOR_ACCOUNT, gas-paying token (ether), version", () => {
      const kv = genesis(OpFork.Isthmus);
      const tok = ethCall(kv, L1_BLOCK_ADDRESS, callData("gasPayingToken()"));
      assert.equal(tok.status, 1);
      assert.equal(bytesToBigint(tok.output.subarray(0, 32)), 0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeen);
      assert.equal(bytesToBigint(tok.output.subarray(32, 64)), 18n);
      assert.equal(l1b(kv, "isCustomGasToken()"), 0n);
      assert.equal(ethCall(kv, L1_BLOCK_ADDRESS, callData("version()")).status, 1);
      assert.equal(ethCall(kv, GAS_PRICE_ORACLE_ADDRESS, callData("version()")).status, 1);
    });
  });

  describe("depositor-only setters", () => {
    const packed: [string, L1BlockInfo][] = [
      ["setL1BlockValuesEcotone()", ECOTONE_INFO],
      ["setL1BlockValuesIsthmus()", ISTHMUS_INFO],
      ["setL1BlockValuesJovian()", JOVIAN_INFO],
    ];
    for (const [sig, info] of packed) {
      it(`${sig} reverts NotDepositor() for any other caller, succeeds for the depositor`, () => {
        const kv = genesis(OpFork.Jovian);
        const data = encodeL1BlockInfo(info);
        const bad = ethCall(kv, L1_BLOCK_ADDRESS, data, USER);
        assert.equal(bad.status, 0);
        assert.equal(bytesToHex(bad.output), bytesToHex(selector("NotDepositor()")));
        assert.equal(ethCall(kv, L1_BLOCK_ADDRESS, data, DEPOSITOR).status, 1);
      });
    }

    it("setL1BlockValues reverts for any other caller", () => {
      const kv = genesis(OpFork.Jovian);
      const data = encodeL1BlockInfo(BEDROCK_INFO);
      const bad = ethCall(kv, L1_BLOCK_ADDRESS, data, USER);
      assert.equal(bad.status, 0);
      assert.equal(revertReason(bad.output), "L1Block: only the depositor account can set L1 block values");
      assert.equal(ethCall(kv, L1_BLOCK_ADDRESS, data, DEPOSITOR).status, 1);
    });

    it("GasPriceOracle flags: depositor only, once each, in fork order", () => {
      const kv = genesis(OpFork.Canyon);
      const set = (fork: string, from: Uint8Array) =>
        ethCall(kv, GAS_PRICE_ORACLE_ADDRESS, callData(`set${fork}()`), from);
      for (const fork of ["Ecotone", "Fjord", "Isthmus", "Jovian"]) {
        const r = set(fork, USER);
        assert.equal(r.status, 0);
        assert.match(revertReason(r.output), /only the depositor account can set is/);
      }
      assert.match(revertReason(set("Fjord", DEPOSITOR).output), /Fjord can only be activated after Ecotone/);
      assert.equal(set("Ecotone", DEPOSITOR).status, 1);
      // Apply the flag for real (a deposit from the depositor) and go on up the chain of forks.
      const state = new WorldState(new KvStateReader(kv), kv);
      const evm = new Evm(opRules(OpFork.Ecotone), blockContext(), state);
      const steps: [string, string | null][] = [
        ["Ecotone", null],
        ["Ecotone", "Ecotone already active"],
        ["Isthmus", "Isthmus can only be activated after Fjord"],
        ["Fjord", null],
        ["Jovian", "Jovian can only be activated after Isthmus"],
        ["Isthmus", null],
        ["Jovian", null],
        ["Jovian", "Jovian already active"],
      ];
      let i = 0;
      for (const [fork, err] of steps) {
        const r = executeDeposit(
          evm,
          {
            type: TxType.Deposit,
            sourceHash: new Uint8Array(32).fill(++i),
            from: DEPOSITOR,
            to: GAS_PRICE_ORACLE_ADDRESS,
            mint: 0n,
            value: 0n,
            gasLimit: 100_000n,
            isSystemTx: false,
            data: callData(`set${fork}()`),
          },
          GAS_LIMIT,
        );
        if (typeof r === "string") assert.fail(r);
        assert.equal(r.status, err === null ? 1 : 0, `set${fork}`);
        if (err !== null) assert.equal(revertReason(r.output), `GasPriceOracle: ${err}`);
      }
      kv.write(state.commitBlock().batch);
      assert.equal(storageOf(kv, GAS_PRICE_ORACLE_ADDRESS, 0n), 0x01010101n);
      for (const f of ["isEcotone()", "isFjord()", "isIsthmus()", "isJovian()"]) assert.equal(gpo(kv, f), 1n);
    });
  });

  describe("GasPriceOracle: plain views", () => {
    it("decimals, gas price, base fee; overhead/scalar before Ecotone, reverting after", () => {
      const pre = chainWith(OpFork.Canyon, opRules(OpFork.Ecotone), BEDROCK_INFO).kv;
      assert.equal(gpo(pre, "DECIMALS()"), 6n);
      assert.equal(gpo(pre, "decimals()"), 6n);
      assert.equal(gpo(pre, "gasPrice()"), L2_BASE_FEE);
      assert.equal(gpo(pre, "baseFee()"), L2_BASE_FEE);
      assert.equal(gpo(pre, "overhead()"), BEDROCK_INFO.l1FeeOverhead);
      assert.equal(gpo(pre, "scalar()"), BEDROCK_INFO.l1FeeScalar);
      assert.equal(gpo(pre, "isEcotone()"), 0n);
      const post = chainWith(OpFork.Ecotone, opRules(OpFork.Ecotone), ECOTONE_INFO).kv;
      for (const f of ["overhead", "scalar"]) {
        const r = ethCall(post, GAS_PRICE_ORACLE_ADDRESS, callData(`${f}()`));
        assert.equal(r.status, 0);
        assert.equal(revertReason(r.output), `GasPriceOracle: ${f}() is deprecated`);
      }
    });
  });

  describe("GasPriceOracle.getL1Fee against what the block charges", () => {
    it("Bedrock formula (no flags; Ecotone activation block): getL1Fee(U) == L1FeeVault credit for S", () => {
      const tx = txWithExactPadding();
      const { kv, l1FeeCharged } = chainWith(OpFork.Canyon, opRules(OpFork.Ecotone), BEDROCK_INFO, tx);
      const s = encodeTx(tx);
      const u = unsignedOf(tx);
      assert.equal(l1FeeCharged, l1Cost(s, BEDROCK_INFO, opRules(OpFork.Ecotone)));
      assert.ok(l1FeeCharged > 0n);
      assert.equal(getL1Fee(kv, u), l1FeeCharged);
      // getL1GasUsed(U) == calldataGas(S) + overhead, the receipt's l1GasUsed (Regolith model).
      assert.equal(getL1GasUsed(kv, u), BigInt(calldataGas(s)) + BEDROCK_INFO.l1FeeOverhead);
    });

    it("Bedrock formula == op-geth's pre-Regolith l1Cost of the same bytes, for any input", () => {
      const { kv } = chainWith(OpFork.Canyon, opRules(OpFork.Ecotone), BEDROCK_INFO);
      const bedrock = opRules(OpFork.Bedrock);
      for (const data of [
        Uint8Array.of(0xfa, 0xce, 0xde),
        Uint8Array.of(0xfa, 0, 0xca, 0, 0xde),
        encodeTx(userTx(3n)),
        prng(7, 300),
        new Uint8Array(100),
      ]) {
        assert.equal(getL1Fee(kv, data), l1Cost(data, BEDROCK_INFO, bedrock), bytesToHex(data));
      }
    });

    it("Ecotone formula: getL1Fee(U) == L1FeeVault credit for S (signature = 68 non-zero bytes)", () => {
      const tx = txWithExactPadding(10n);
      const { kv, l1FeeCharged } = chainWith(OpFork.Ecotone, opRules(OpFork.Ecotone), ECOTONE_INFO, tx);
      const s = encodeTx(tx);
      assert.equal(l1FeeCharged, l1Cost(s, ECOTONE_INFO, opRules(OpFork.Ecotone)));
      assert.ok(l1FeeCharged > 0n);
      assert.equal(getL1Fee(kv, unsignedOf(tx)), l1FeeCharged);
      assert.equal(getL1GasUsed(kv, unsignedOf(tx)), BigInt(calldataGas(s)));
    });

    for (const [fork, info] of [
      [OpFork.Fjord, ECOTONE_INFO],
      [OpFork.Isthmus, ISTHMUS_INFO],
      [OpFork.Jovian, JOVIAN_INFO],
    ] as const) {
      it(`Fjord formula under ${OpFork[fork]}: getL1Fee(U) == L1FeeVault credit for a short S (both at the size floor)`, () => {
        const tx = userTx(20n);
        const { kv, l1FeeCharged } = chainWith(fork, opRules(fork), info, tx);
        const s = encodeTx(tx);
        const u = unsignedOf(tx);
        assert.ok(fastLzCompressedLength(s) <= 170 && fastLzCompressedLength(u) + 68 <= 170);
        assert.equal(l1FeeCharged, l1Cost(s, info, opRules(fork)));
        assert.equal(getL1Fee(kv, u), l1FeeCharged);
        // A larger tx: the oracle's exact relation, flz(U) + 68 through the repo's Fjord cost.
        const big = unsignedOf(userTx(21n, prng(99, 700)));
        assert.ok(fastLzCompressedLength(big) + 68 > 170);
        assert.equal(getL1Fee(kv, big), fjordL1Cost(fastLzCompressedLength(big) + 68, info));
      });
    }

    it("getL1FeeUpperBound: Fjord only; fjordL1Cost(n + n/255 + 16) for n = size + 68", () => {
      const pre = chainWith(OpFork.Ecotone, opRules(OpFork.Ecotone), ECOTONE_INFO).kv;
      const r = ethCall(pre, GAS_PRICE_ORACLE_ADDRESS, callData("getL1FeeUpperBound(uint256)", 100n));
      assert.equal(r.status, 0);
      assert.equal(revertReason(r.output), "GasPriceOracle: getL1FeeUpperBound only supports Fjord");
      const kv = chainWith(OpFork.Fjord, opRules(OpFork.Fjord), ECOTONE_INFO).kv;
      for (const size of [0, 1, 50, 100, 187, 1000, 100_000]) {
        const n = size + 68;
        const want = fjordL1Cost(n + Math.floor(n / 255) + 16, ECOTONE_INFO);
        assert.equal(gpo(kv, "getL1FeeUpperBound(uint256)", BigInt(size)), want, `size ${size}`);
      }
    });
  });

  describe("GasPriceOracle: FastLZ length in Solidity == src/executor/op/fastLz.ts", () => {
    // With baseFeeScalar 0, blobBaseFee 1e12 and blobBaseFeeScalar 1 the Fjord fee is exactly the
    // estimated size × 1e6, max(100e6, 836500 × (flz + 68) − 42585600): injective in flz above the floor.
    const PROBE = newL1BlockInfo({
      ...COMMON,
      format: L1InfoFormat.Ecotone,
      baseFee: 1n,
      baseFeeScalar: 0,
      blobBaseFee: 10n ** 12n,
      blobBaseFeeScalar: 1,
    });
    let kv: MemoryKv;
    before(() => {
      kv = chainWith(OpFork.Fjord, opRules(OpFork.Fjord), PROBE).kv;
    });
    const flzOf = (fee: bigint): number | null =>
      fee > 100_000_000n ? Number((fee + 42_585_600n) / 836_500n) - 68 : null;

    it("the fastlz_compress_len vectors", () => {
      for (const v of VECTORS.fastlz_compress_len) {
        const input = hexToBytes(v.input);
        const fee = getL1Fee(kv, input);
        assert.equal(fee, fjordL1Cost(Number(v.expected) + 68, PROBE), v.name);
        const flz = flzOf(fee);
        if (flz !== null) assert.equal(flz, Number(v.expected), v.name);
      }
    });

    it("random and repetitive inputs (incl. windows whose next byte is ≥ 0x80)", () => {
      const inputs: Uint8Array[] = [];
      for (let seed = 1; seed <= 12; seed++) inputs.push(prng(seed, 40 + seed * 97));
      // Repetitive: short alphabets, repeated blocks, long zero runs, near-tail matches.
      for (let seed = 1; seed <= 12; seed++) {
        const r = prng(seed * 31, 1200 + seed * 53);
        inputs.push(r.map((x) => (x % 3 === 0 ? 0x80 + (x & 3) : x & 0x7)));
        const block = prng(seed, 5 + seed);
        inputs.push(r.map((x, i) => (x % 17 === 0 ? x : block[i % block.length])));
      }
      inputs.push(new Uint8Array(9000).fill(0xab));
      inputs.push(concat(prng(5, 20), new Uint8Array(300), prng(6, 20), new Uint8Array(14)));
      for (let n = 0; n <= 20; n++) inputs.push(prng(n + 100, n)); // around the 13-byte tail
      for (const input of inputs) {
        const want = fastLzCompressedLength(input);
        const fee = getL1Fee(kv, input);
        assert.equal(fee, fjordL1Cost(want + 68, PROBE), `len ${input.length}`);
        const flz = flzOf(fee);
        if (flz !== null) assert.equal(flz, want);
      }
    });

    it("getL1GasUsed under Fjord: estimatedSize(flz(U) + 68) * 16 / 1e6", () => {
      for (const input of [prng(3, 500), Uint8Array.of(0xfa, 0xca, 0xde)]) {
        const est = fjordL1Cost(fastLzCompressedLength(input) + 68, PROBE);
        assert.equal(getL1GasUsed(kv, input), (est * 16n) / 1_000_000n);
      }
    });
  });

  describe("GasPriceOracle: l1-fee-vectors.json where the oracle's input convention applies", () => {
    function fjordChain(p: Record<string, string>): MemoryKv {
      const info = newL1BlockInfo({
        ...COMMON,
        format: L1InfoFormat.Ecotone,
        baseFee: BigInt(p.l1BaseFee),
        blobBaseFee: BigInt(p.blobBaseFee),
        baseFeeScalar: Number(p.baseFeeScalar),
        blobBaseFeeScalar: Number(p.blobBaseFeeScalar),
      });
      return chainWith(OpFork.Fjord, opRules(OpFork.Fjord), info).kv;
    }

    /** Incompressible bytes whose FastLZ length is `flz` (literal blocks of 32 cost 33). */
    function withFlz(flz: number): Uint8Array {
      for (let len = 0; len <= flz; len++) {
        for (let seed = 1; seed < 50; seed++) {
          const b = prng(seed * 7919 + len, len);
          if (fastLzCompressedLength(b) === flz) return b;
        }
      }
      throw new Error(`no input with FastLZ length ${flz}`);
    }

    it("opgeth-bedrock-emptytx: the oracle's Bedrock formula pads like pre-Regolith op-geth", () => {
      const c = vector("opgeth-bedrock-emptytx");
      const info = newL1BlockInfo({
        ...COMMON,
        format: L1InfoFormat.Bedrock,
        baseFee: BigInt(c.params.l1BaseFee),
        l1FeeOverhead: BigInt(c.params.overhead),
        l1FeeScalar: BigInt(c.params.scalar),
      });
      const kv = chainWith(OpFork.Canyon, opRules(OpFork.Ecotone), info).kv;
      const tx = hexToBytes(c.tx as string);
      assert.equal(getL1Fee(kv, tx), BigInt(c.expected.fee as string));
      assert.equal(getL1GasUsed(kv, tx), BigInt(c.expected.l1GasUsed as string));
    });

    it("revm-datagas-*: Bedrock data gas (with padding) and Fjord l1GasUsed", () => {
      const bedrock = chainWith(OpFork.Canyon, opRules(OpFork.Ecotone), newL1BlockInfo({ ...COMMON })).kv;
      const fjord = fjordChain({
        l1BaseFee: "1000",
        blobBaseFee: "1000",
        baseFeeScalar: "1000",
        blobBaseFeeScalar: "1000",
      });
      for (const id of ["revm-datagas-FACADE", "revm-datagas-FA00CA00DE"]) {
        const c = vector(id);
        const dataGas = c.expected.dataGas as Record<string, string>;
        const tx = hexToBytes(c.tx as string);
        assert.equal(getL1GasUsed(bedrock, tx), BigInt(dataGas.bedrock), id);
        assert.equal(getL1GasUsed(fjord, tx), BigInt(dataGas.fjord), id);
      }
    });

    it("Fjord fee vectors given by FastLZ size (oracle input with flz = size − 68)", () => {
      for (const id of [
        "opgeth-fjord-minbound-flz100",
        "opgeth-fjord-minbound-flz150",
        "opgeth-fjord-minbound-flz170",
        "opgeth-fjord-above-minbound-flz171",
        "opgeth-fjord-above-minbound-flz175",
        "opgeth-fjord-above-minbound-flz200",
        "opgeth-fjord-solidity-parity",
      ]) {
        const c = vector(id);
        const kv = fjordChain(c.params);
        const data = withFlz(Number(c.fastLzSize) - 68);
        const fee = getL1Fee(kv, data);
        const gasUsed = getL1GasUsed(kv, data);
        if (c.expected.fee !== undefined) {
          assert.equal(fee, BigInt(c.expected.fee as string), id);
          assert.equal(gasUsed, BigInt(c.expected.l1GasUsed as string), id);
        } else {
          assert.ok(fee > BigInt(c.expected.feeGreaterThan as string), id);
          assert.ok(gasUsed > BigInt(c.expected.l1GasUsedGreaterThan as string), id);
        }
      }
    });

    it("Fjord fee vectors whose tx is short enough to sit at the floor with or without padding", () => {
      for (const id of ["opgeth-fjord-emptytx", "revm-fjord-FACADE"]) {
        const c = vector(id);
        const kv = fjordChain(c.params);
        assert.equal(getL1Fee(kv, hexToBytes(c.tx as string)), BigInt(c.expected.fee as string), id);
      }
    });
  });

  describe("GasPriceOracle.getOperatorFee", () => {
    it("0 before Isthmus", () => {
      const kv = chainWith(OpFork.Fjord, opRules(OpFork.Fjord), ISTHMUS_INFO).kv;
      assert.equal(gpo(kv, "getOperatorFee(uint256)", 100_000n), 0n);
    });

    for (const [fork, info] of [
      [OpFork.Isthmus, ISTHMUS_INFO],
      [OpFork.Jovian, JOVIAN_INFO],
    ] as const) {
      it(`${OpFork[fork]}: == operatorFee(), and == the OperatorFeeVault credit for the receipt's gas`, () => {
        const tx = userTx(30n);
        const { kv, result, operatorFeeCharged } = chainWith(fork, opRules(fork), info, tx);
        const gasUsed = result.outcomes[1].gasUsed;
        assert.equal(operatorFeeCharged, operatorFee(gasUsed, info, opRules(fork)));
        assert.ok(operatorFeeCharged > 0n);
        assert.equal(gpo(kv, "getOperatorFee(uint256)", BigInt(gasUsed)), operatorFeeCharged);
        for (const g of [0, 1, 21_000, 999_999, 30_000_000]) {
          assert.equal(gpo(kv, "getOperatorFee(uint256)", BigInt(g)), operatorFee(g, info, opRules(fork)), `gas ${g}`);
        }
      });
    }

    it("vectors: opgeth-*-operator-fee and revm-operator-fee-formulas", () => {
      const chain = (fork: OpFork, scalar: string, constant: string): MemoryKv => {
        const format = fork >= OpFork.Jovian ? L1InfoFormat.Jovian : L1InfoFormat.Isthmus;
        const info = newL1BlockInfo({
          ...ECOTONE_FIELDS,
          format,
          operatorFeeScalar: Number(scalar),
          operatorFeeConstant: BigInt(constant),
        });
        return chainWith(fork, opRules(fork), info).kv;
      };
      for (const [id, fork] of [
        ["opgeth-isthmus-operator-fee", OpFork.Isthmus],
        ["opgeth-jovian-operator-fee", OpFork.Jovian],
      ] as const) {
        const c = vector(id);
        const kv = chain(fork, c.params.operatorFeeScalar, c.params.operatorFeeConstant);
        const got = gpo(kv, "getOperatorFee(uint256)", BigInt(c.gas as string));
        assert.equal(got, BigInt(c.expected.operatorFee as string), id);
      }
      const c = vector("revm-operator-fee-formulas");
      const want = c.expected.operatorFee as Record<string, string>;
      for (const [fork, key] of [
        [OpFork.Isthmus, "isthmus"],
        [OpFork.Jovian, "jovian"],
      ] as const) {
        const kv = chain(fork, c.params.operatorFeeScalar, c.params.operatorFeeConstant);
        assert.equal(gpo(kv, "getOperatorFee(uint256)", BigInt(c.gas as string)), BigInt(want[key]), key);
      }
    });

    it("Isthmus saturates at 2^256 − 1; Jovian reverts on overflow (checked arithmetic)", () => {
      const isthmus = chainWith(OpFork.Isthmus, opRules(OpFork.Isthmus), ISTHMUS_INFO).kv;
      const big = MAX_U256 / 2n;
      const scaled = MAX_U256 / 1_000_000n; // saturatingMul → max, then / 1e6
      const wantSat = scaled + ISTHMUS_INFO.operatorFeeConstant;
      assert.equal(gpo(isthmus, "getOperatorFee(uint256)", big), wantSat);
      const jovian = chainWith(OpFork.Jovian, opRules(OpFork.Jovian), JOVIAN_INFO).kv;
      const r = ethCall(jovian, GAS_PRICE_ORACLE_ADDRESS, callData("getOperatorFee(uint256)", big));
      assert.equal(r.status, 0);
    });
  });
});
