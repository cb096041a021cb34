/**
 * OP Stack execution of whole blocks (executeBlock): deposits (0x7E) per fork and the fee split of a
 * non-deposit tx behind the L1-attributes deposit. Expected values are recomputed here from the
 * rules, never taken from the code under test:
 * - deposits: specs/protocol/deposits.md#execution and #deposit-receipt, op-stack.md §3.1–3.2,
 *   op-geth core/state_transition.go (`execute`: mint before the snapshot, failed deposits revert to
 *   it, bump the nonce and report the gas limit, 0 for a pre-Regolith system tx; `preCheck`:
 *   ErrSystemTxNotSupported from Regolith; `innerExecute`: real gas used from Regolith);
 * - fees: specs/protocol/exec-engine.md#fees (base fee → BaseFeeVault, L1 fee → L1FeeVault),
 *   ecotone/fjord exec-engine.md (L1 fee formulas), isthmus/jovian exec-engine.md#operator-fee,
 *   op-stack.md §3.3–3.4, op-geth `buyGas` / `innerExecute` / `refundIsthmusOperatorCost`.
 * Gas is counted by hand per opcode (EIP-2929/2200/3860/7623 schedules).
 */
import { strict as assert } from "node:assert";
import { RLP } from "@ethereumjs/rlp";
import { keccak_256 } from "@noble/hashes/sha3.js";
import type { Header } from "../../../../src/block/header.js";
import type { AllocAccount } from "../../../../src/chain/genesisState.js";
import { writeAlloc } from "../../../../src/chain/genesisState.js";
import { privateKeyToAddress } from "../../../../src/crypto/secp256k1.js";
import { type BlockExecFailure, type BlockExecResult, executeBlock } from "../../../../src/executor/executeBlock.js";
import { fastLzCompressedLength } from "../../../../src/executor/op/fastLz.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { OpFork, opRules } from "../../../../src/spec/forks.js";
import { KvStateReader } from "../../../../src/state/kvStateReader.js";
import { addressToBigint, WorldState } from "../../../../src/state/worldState.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { encodeL1BlockInfo, type L1BlockInfo, L1InfoFormat, newL1BlockInfo } from "../../../../src/tx/l1BlockInfo.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type DepositTx, type FeeMarketTx, type LegacyTx, type Tx, TxType } from "../../../../src/tx/tx.js";
import { validateTx } from "../../../../src/tx/validateTx.js";
import { testHeader } from "../../../utils/blocks.js";
import { blobTx, DEV_KEY } from "../../tx/builders.js";

const CHAIN_ID = 10n;
const GAS_LIMIT = 30_000_000n;
const L2_BASE_FEE = 1_000_000n;

// specs/protocol/predeploys.md, op-stack.md §3.7
const DEPOSITOR = hexToBytes("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
const L1_BLOCK = hexToBytes("0x4200000000000000000000000000000000000015");
const SEQUENCER_FEE_VAULT = hexToBytes("0x4200000000000000000000000000000000000011");
const BASE_FEE_VAULT = hexToBytes("0x4200000000000000000000000000000000000019");
const L1_FEE_VAULT = hexToBytes("0x420000000000000000000000000000000000001a");
const OPERATOR_FEE_VAULT = hexToBytes("0x420000000000000000000000000000000000001b");

const USER = hexToBytes("0x00000000000000000000000000000000000a11ce");
const RECIPIENT = hexToBytes("0x0000000000000000000000000000000000000b0b");
const REVERTER = hexToBytes("0x00000000000000000000000000000000000c0de0");
const SENDER = privateKeyToAddress(DEV_KEY);

/** SSTORE(0, 1) then REVERT(0, 0): 3+3+22100 (cold slot, 0→1: EIP-2929 2100 + EIP-2200 20000) +3+3+0. */
const SSTORE_THEN_REVERT = Uint8Array.of(0x60, 0x01, 0x60, 0x00, 0x55, 0x60, 0x00, 0x60, 0x00, 0xfd);
const SSTORE_THEN_REVERT_GAS = 21_000 + 3 + 3 + 22_100 + 3 + 3;
/** MSTORE8(0, 0x2a); RETURN(0, 1): deploys the one-byte runtime 0x2a. */
const INIT_CODE = Uint8Array.of(0x60, 0x2a, 0x60, 0x00, 0x53, 0x60, 0x01, 0x60, 0x00, 0xf3);

const ALL_FORKS = [
  OpFork.Bedrock,
  OpFork.Regolith,
  OpFork.Canyon,
  OpFork.Ecotone,
  OpFork.Fjord,
  OpFork.Isthmus,
  OpFork.Jovian,
] as const;

interface Acct {
  address: Uint8Array;
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  storage?: [bigint, bigint][];
}

function stateOf(accts: readonly Acct[]): WorldState {
  const kv = new MemoryKv();
  const alloc: AllocAccount[] = accts.map((a) => ({
    address: a.address,
    nonce: a.nonce ?? 0n,
    balance: a.balance ?? 0n,
    code: a.code ?? new Uint8Array(0),
    storage: a.storage ?? [],
  }));
  writeAlloc(kv, alloc);
  return new WorldState(new KvStateReader(kv), kv);
}

function header(): Header {
  return testHeader({ coinbase: SEQUENCER_FEE_VAULT, gasLimit: GAS_LIMIT, baseFeePerGas: L2_BASE_FEE });
}

function senderOf(tx: Tx): Uint8Array {
  return tx.type === TxType.Deposit ? tx.from : SENDER;
}

function run(op: OpFork, state: WorldState, txs: readonly Tx[]): BlockExecResult | BlockExecFailure {
  return executeBlock(
    state,
    { header: header(), txs, senders: txs.map(senderOf), ommers: [], withdrawals: null },
    {
      rules: opRules(op),
      chainId: CHAIN_ID,
      blobBaseFee: 1n,
      maxBlobGas: 0,
      depositContract: null,
      blockHash: () => 0n,
      intermediateRoot: null,
    },
  );
}

function ok(r: BlockExecResult | BlockExecFailure): BlockExecResult {
  if ("error" in r) assert.fail(`block failed: ${r.error} at tx ${r.txIndex}`);
  return r;
}

function balance(state: WorldState, a: Uint8Array): bigint {
  return state.account(addressToBigint(a)).balance;
}

function nonce(state: WorldState, a: Uint8Array): bigint {
  return state.account(addressToBigint(a)).nonce;
}

function deposit(over: Partial<DepositTx>): DepositTx {
  return {
    type: TxType.Deposit,
    sourceHash: new Uint8Array(32).fill(0x5e),
    from: USER,
    to: RECIPIENT,
    mint: 0n,
    value: 0n,
    gasLimit: 100_000n,
    isSystemTx: false,
    data: new Uint8Array(0),
    ...over,
  };
}

const regolith = (op: OpFork): boolean => op >= OpFork.Regolith;

describe("executor/op: deposits", () => {
  for (const op of ALL_FORKS) {
    describe(OpFork[op], () => {
      it("value above the balance after the mint: mint kept, nonce bumped, gasUsed = gasLimit, nothing else", () => {
        const state = stateOf([{ address: USER, balance: 5n, nonce: 2n }]);
        const r = ok(run(op, state, [deposit({ mint: 1_000n, value: 1_006n, gasLimit: 50_000n })]));
        assert.equal(r.receipts[0].status, 0);
        assert.equal(r.gasUsed, 50_000);
        assert.equal(r.receipts[0].cumulativeGasUsed, 50_000);
        assert.equal(r.receipts[0].logs.length, 0);
        assert.equal(balance(state, USER), 1_005n);
        assert.equal(nonce(state, USER), 3n);
        assert.equal(balance(state, RECIPIENT), 0n);
        assert.equal(state.account(addressToBigint(RECIPIENT)).exists, false);
      });

      it("gas limit below the intrinsic gas: failed, mint kept, value not moved, gasUsed = gasLimit", () => {
        const state = stateOf([{ address: USER, balance: 0n }]);
        const r = ok(run(op, state, [deposit({ mint: 700n, value: 300n, gasLimit: 20_999n })]));
        assert.equal(r.receipts[0].status, 0);
        assert.equal(r.gasUsed, 20_999);
        assert.equal(balance(state, USER), 700n);
        assert.equal(nonce(state, USER), 1n);
        assert.equal(balance(state, RECIPIENT), 0n);
      });

      it("system tx: reports 0 gas and runs before Regolith; fails with gasUsed = gasLimit from Regolith", () => {
        const state = stateOf([{ address: RECIPIENT, balance: 0n }]);
        const r = ok(
          run(op, state, [
            deposit({ from: DEPOSITOR, to: RECIPIENT, isSystemTx: true, gasLimit: 90_000n, mint: 9n, value: 4n }),
          ]),
        );
        if (regolith(op)) {
          assert.equal(r.receipts[0].status, 0);
          assert.equal(r.gasUsed, 90_000);
          assert.equal(balance(state, DEPOSITOR), 9n);
          assert.equal(balance(state, RECIPIENT), 0n);
        } else {
          assert.equal(r.receipts[0].status, 1);
          assert.equal(r.gasUsed, 0);
          assert.equal(r.receipts[0].cumulativeGasUsed, 0);
          assert.equal(balance(state, DEPOSITOR), 5n);
          assert.equal(balance(state, RECIPIENT), 4n);
        }
        assert.equal(nonce(state, DEPOSITOR), 1n);
      });

      it("pre-Regolith failed system tx reports 0 gas; from Regolith the gas limit", () => {
        const state = stateOf([]);
        const r = ok(run(op, state, [deposit({ from: DEPOSITOR, isSystemTx: true, gasLimit: 90_000n, value: 1n })]));
        assert.equal(r.receipts[0].status, 0);
        assert.equal(r.gasUsed, regolith(op) ? 90_000 : 0);
        assert.equal(nonce(state, DEPOSITOR), 1n);
      });

      it("EVM REVERT: mint and nonce bump kept, value and storage reverted, real gas from Regolith", () => {
        const state = stateOf([{ address: REVERTER, code: SSTORE_THEN_REVERT }]);
        const r = ok(run(op, state, [deposit({ to: REVERTER, mint: 1_000n, value: 400n, gasLimit: 200_000n })]));
        assert.equal(r.receipts[0].status, 0);
        assert.equal(r.gasUsed, regolith(op) ? SSTORE_THEN_REVERT_GAS : 200_000);
        assert.equal(balance(state, USER), 1_000n);
        assert.equal(nonce(state, USER), 1n);
        assert.equal(balance(state, REVERTER), 0n);
        const acc = state.account(addressToBigint(REVERTER));
        assert.equal(state.sload(acc, 0n), 0n);
      });

      it("the refund counter applies from Regolith (EIP-3529 cap gasUsed/5); before, gasUsed = gasLimit", () => {
        // SSTORE(0, 0) on a slot holding 1: cold 2100 + 2900 = 5000 gas, refund 4800 (EIP-2929/3529).
        const clear = Uint8Array.of(0x60, 0x00, 0x60, 0x00, 0x55, 0x00);
        const state = stateOf([{ address: REVERTER, code: clear, storage: [[0n, 1n]] }]);
        const r = ok(run(op, state, [deposit({ to: REVERTER, gasLimit: 100_000n })]));
        assert.equal(r.receipts[0].status, 1);
        const used = 21_000 + 3 + 3 + 5_000;
        const refund = Math.min(4_800, Math.floor(used / 5));
        assert.equal(r.gasUsed, regolith(op) ? used - refund : 100_000);
        assert.equal(state.sload(state.account(addressToBigint(REVERTER)), 0n), 0n);
      });

      it("a successful deposit pays no fee: coinbase and vaults unchanged; gas 21000 from Regolith", () => {
        const state = stateOf([{ address: USER, balance: 10n }]);
        const r = ok(run(op, state, [deposit({ mint: 100n, value: 30n, gasLimit: 100_000n })]));
        assert.equal(r.receipts[0].status, 1);
        assert.equal(r.gasUsed, regolith(op) ? 21_000 : 100_000);
        assert.equal(balance(state, USER), 80n);
        assert.equal(balance(state, RECIPIENT), 30n);
        for (const v of [SEQUENCER_FEE_VAULT, BASE_FEE_VAULT, L1_FEE_VAULT, OPERATOR_FEE_VAULT]) {
          assert.equal(balance(state, v), 0n, bytesToHex(v));
        }
      });

      it("receipts: depositNonce from Regolith, depositReceiptVersion 1 from Canyon", () => {
        const state = stateOf([{ address: USER, nonce: 5n }]);
        const r = ok(run(op, state, [deposit({}), deposit({ value: 1n })]));
        assert.equal(r.receipts[0].type, TxType.Deposit);
        assert.equal(r.receipts[0].depositNonce, regolith(op) ? 5 : null);
        // The second deposit fails (no balance) and still records the nonce before it.
        assert.equal(r.receipts[1].status, 0);
        assert.equal(r.receipts[1].depositNonce, regolith(op) ? 6 : null);
        for (const rc of r.receipts) assert.equal(rc.depositReceiptVersion, op >= OpFork.Canyon ? 1 : null);
        assert.equal(nonce(state, USER), 7n);
      });

      it("contract creation: address from (from, nonce before), code deployed, nonce bumped once", () => {
        const state = stateOf([{ address: USER, nonce: 3n }]);
        const r = ok(run(op, state, [deposit({ to: null, data: INIT_CODE, gasLimit: 200_000n })]));
        assert.equal(r.receipts[0].status, 1);
        const want = keccak_256(RLP.encode([USER, 3])).subarray(12);
        assert.equal(bytesToHex(r.outcomes[0].contractAddress as Uint8Array), bytesToHex(want));
        assert.deepEqual(state.code(state.account(addressToBigint(want))), Uint8Array.of(0x2a));
        assert.equal(nonce(state, USER), 4n);
        // Intrinsic 21000 + 32000 (creation) + 2 zero bytes * 4 + 8 non-zero * 16 (+ EIP-3860 2 per
        // initcode word from Shanghai/Canyon); execution 3+3+(3+3 memory)+3+3; code deposit 200 * 1.
        const gas = 21_000 + 32_000 + 2 * 4 + 8 * 16 + (op >= OpFork.Canyon ? 2 : 0) + 18 + 200;
        assert.equal(r.gasUsed, regolith(op) ? gas : 200_000);
      });
    });
  }
});

// ---- non-deposit txs ----

const TIP = 2_000n;
const MAX_FEE = 5_000_000n;
const TX_GAS_LIMIT = 100_000n;
const VALUE = 123_456_789n;
/** 5 zero and 10 non-zero bytes. */
const DATA = Uint8Array.of(0x11, 0x22, 0x33, 0, 0, 0, 0, 0, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa);

function userTx(over: Partial<FeeMarketTx> = {}): FeeMarketTx {
  const tx: FeeMarketTx = {
    type: TxType.FeeMarket,
    chainId: CHAIN_ID,
    nonce: 0n,
    maxPriorityFeePerGas: TIP,
    maxFeePerGas: MAX_FEE,
    gasLimit: TX_GAS_LIMIT,
    to: RECIPIENT,
    value: VALUE,
    data: DATA,
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
    ...over,
  };
  return signTx(tx, DEV_KEY);
}

/** The L1 attributes of the test block, in the calldata format of `op` (its non-activation blocks). */
function l1InfoFor(op: OpFork): L1BlockInfo {
  const common = { number: 20_000_000n, timestamp: 1_700_000_000n, baseFee: 30_000_000_000n, sequenceNumber: 1n };
  if (op < OpFork.Ecotone) {
    return newL1BlockInfo({ ...common, format: L1InfoFormat.Bedrock, l1FeeOverhead: 188n, l1FeeScalar: 684_000n });
  }
  const ecotone = { ...common, blobBaseFee: 3_000_000_000n, baseFeeScalar: 1_368, blobBaseFeeScalar: 810_949 };
  if (op < OpFork.Isthmus) return newL1BlockInfo({ ...ecotone, format: L1InfoFormat.Ecotone });
  if (op < OpFork.Jovian) {
    return newL1BlockInfo({
      ...ecotone,
      format: L1InfoFormat.Isthmus,
      operatorFeeScalar: 2_500_000,
      operatorFeeConstant: 1_000_000_000n,
    });
  }
  return newL1BlockInfo({
    ...ecotone,
    format: L1InfoFormat.Jovian,
    operatorFeeScalar: 7,
    operatorFeeConstant: 1_000_000_000n,
    daFootprintGasScalar: 400,
  });
}

function l1InfoDeposit(op: OpFork, info: L1BlockInfo): DepositTx {
  // deposits.md#l1-attributes-deposited-transaction: from the depositor to L1Block, 1M gas, a system
  // tx before Regolith.
  return deposit({
    from: DEPOSITOR,
    to: L1_BLOCK,
    gasLimit: 1_000_000n,
    isSystemTx: op < OpFork.Regolith,
    data: encodeL1BlockInfo(info),
  });
}

/** The L1 fee, from the fork's formula in the specs (op-stack.md §3.3), with its own byte count. */
function expectedL1Fee(op: OpFork, info: L1BlockInfo, raw: Uint8Array, ecotoneActivation = false): bigint {
  let zeroes = 0n;
  for (const b of raw) if (b === 0) zeroes++;
  const ones = BigInt(raw.length) - zeroes;
  const calldataGas = zeroes * 4n + ones * 16n;
  if (op < OpFork.Ecotone || ecotoneActivation) {
    // exec-engine.md#l1-cost-fees: (gas + overhead) * l1BaseFee * scalar / 1e6; Bedrock adds 68 bytes * 16.
    const pad = op < OpFork.Regolith ? 68n * 16n : 0n;
    return ((calldataGas + pad + info.l1FeeOverhead) * info.baseFee * info.l1FeeScalar) / 1_000_000n;
  }
  const scaled = 16n * info.baseFee * BigInt(info.baseFeeScalar) + info.blobBaseFee * BigInt(info.blobBaseFeeScalar);
  if (op < OpFork.Fjord) {
    // ecotone/exec-engine.md#fees
    return (calldataGas * scaled) / 16_000_000n;
  }
  // fjord/exec-engine.md#fees: estimatedSize = max(minTransactionSize * 1e6, intercept + fastlzCoef * flz)
  const flz = BigInt(fastLzCompressedLength(raw));
  let size = -42_585_600n + 836_500n * flz;
  if (size < 100_000_000n) size = 100_000_000n;
  return (size * scaled) / 1_000_000_000_000n;
}

/** isthmus/exec-engine.md#operator-fee; jovian/exec-engine.md#operator-fee. */
function expectedOperatorFee(op: OpFork, info: L1BlockInfo, gas: bigint): bigint {
  if (op < OpFork.Isthmus) return 0n;
  const s = BigInt(info.operatorFeeScalar);
  return (op >= OpFork.Jovian ? gas * s * 100n : (gas * s) / 1_000_000n) + info.operatorFeeConstant;
}

/** 21000 + calldata gas; from Prague (Isthmus) the EIP-7623 floor 21000 + 10 * (zeroes + 4 * non-zero). */
function expectedGasUsed(op: OpFork): bigint {
  const standard = 21_000n + 5n * 4n + 10n * 16n;
  const floor = 21_000n + 10n * (5n + 4n * 10n);
  return op >= OpFork.Isthmus && floor > standard ? floor : standard;
}

describe("executor/op: a user tx behind the L1-attributes deposit", () => {
  it("the test's gas arithmetic: 21180 before Isthmus, the 21450 floor from Isthmus", () => {
    assert.equal(expectedGasUsed(OpFork.Fjord), 21_180n);
    assert.equal(expectedGasUsed(OpFork.Isthmus), 21_450n);
  });

  for (const op of ALL_FORKS) {
    describe(OpFork[op], () => {
      const info = l1InfoFor(op);
      const tx = userTx();
      const raw = encodeTx(tx);
      const l1Fee = expectedL1Fee(op, info, raw);
      const used = expectedGasUsed(op);
      const price = L2_BASE_FEE + TIP < MAX_FEE ? L2_BASE_FEE + TIP : MAX_FEE;
      const opFeeMax = expectedOperatorFee(op, info, TX_GAS_LIMIT);
      const opFeeUsed = expectedOperatorFee(op, info, used);
      const START = 10n ** 18n;

      it("the L1 fee is positive and the operator fee is zero exactly before Isthmus", () => {
        assert.ok(l1Fee > 0n);
        assert.equal(opFeeMax > 0n, op >= OpFork.Isthmus);
        if (op >= OpFork.Isthmus) assert.ok(opFeeMax > opFeeUsed);
      });

      it("exact balances: sender, recipient, coinbase tip, BaseFeeVault, L1FeeVault, OperatorFeeVault", () => {
        const state = stateOf([{ address: SENDER, balance: START }]);
        const r = ok(run(op, state, [l1InfoDeposit(op, info), tx]));
        assert.equal(r.receipts[1].status, 1);
        assert.equal(r.receipts[1].type, TxType.FeeMarket);
        assert.equal(BigInt(r.receipts[1].cumulativeGasUsed - r.receipts[0].cumulativeGasUsed), used);
        assert.equal(r.receipts[1].depositNonce, null);
        assert.equal(r.receipts[1].depositReceiptVersion, null);
        assert.equal(balance(state, SENDER), START - VALUE - used * price - l1Fee - opFeeUsed);
        assert.equal(nonce(state, SENDER), 1n);
        assert.equal(balance(state, RECIPIENT), VALUE);
        assert.equal(balance(state, SEQUENCER_FEE_VAULT), used * (price - L2_BASE_FEE));
        assert.equal(balance(state, BASE_FEE_VAULT), used * L2_BASE_FEE);
        assert.equal(balance(state, L1_FEE_VAULT), l1Fee);
        assert.equal(balance(state, OPERATOR_FEE_VAULT), opFeeUsed);
        // Nothing is minted or burnt: every wei the sender lost is somewhere.
        const moved =
          balance(state, RECIPIENT) +
          balance(state, SEQUENCER_FEE_VAULT) +
          balance(state, BASE_FEE_VAULT) +
          balance(state, L1_FEE_VAULT) +
          balance(state, OPERATOR_FEE_VAULT);
        assert.equal(START - balance(state, SENDER), moved);
      });

      it("balance short of value + gasLimit*maxFee + L1 fee + worst-case operator fee by 1 wei: invalid", () => {
        const need = VALUE + TX_GAS_LIMIT * MAX_FEE + l1Fee + opFeeMax;
        const exact = ok(run(op, stateOf([{ address: SENDER, balance: need }]), [l1InfoDeposit(op, info), tx]));
        assert.equal(exact.receipts[1].status, 1);
        const short = run(op, stateOf([{ address: SENDER, balance: need - 1n }]), [l1InfoDeposit(op, info), tx]);
        assert.ok("error" in short);
        assert.equal(short.error, "INSUFFICIENT_FUNDS");
        assert.equal(short.txIndex, 1);
      });

      it("deposits in the same block pay no fees", () => {
        const state = stateOf([]);
        ok(run(op, state, [l1InfoDeposit(op, info), deposit({ mint: 50n, value: 20n })]));
        for (const v of [SEQUENCER_FEE_VAULT, BASE_FEE_VAULT, L1_FEE_VAULT, OPERATOR_FEE_VAULT]) {
          assert.equal(balance(state, v), 0n, bytesToHex(v));
        }
      });

      it("a legacy (EIP-155) tx: the L1 fee is on its RLP, the tip is gasPrice - baseFee", () => {
        const gasPrice = L2_BASE_FEE + 777n;
        const legacy = signTx(
          {
            type: TxType.Legacy,
            nonce: 0n,
            gasPrice,
            gasLimit: TX_GAS_LIMIT,
            to: RECIPIENT,
            value: VALUE,
            data: DATA,
            v: 0n,
            r: 0n,
            s: 0n,
          } as LegacyTx,
          DEV_KEY,
          CHAIN_ID,
        );
        const fee = expectedL1Fee(op, info, encodeTx(legacy));
        const state = stateOf([{ address: SENDER, balance: START }]);
        const r = ok(run(op, state, [l1InfoDeposit(op, info), legacy]));
        assert.equal(r.receipts[1].status, 1);
        assert.equal(balance(state, SENDER), START - VALUE - used * gasPrice - fee - opFeeUsed);
        assert.equal(balance(state, SEQUENCER_FEE_VAULT), used * 777n);
        assert.equal(balance(state, BASE_FEE_VAULT), used * L2_BASE_FEE);
        assert.equal(balance(state, L1_FEE_VAULT), fee);
        assert.equal(balance(state, OPERATOR_FEE_VAULT), opFeeUsed);
      });

      if (op >= OpFork.Ecotone) {
        it("blob txs are not supported on OP chains", () => {
          const blob = signTx(blobTx({ chainId: CHAIN_ID }), DEV_KEY);
          assert.equal(validateTx(blob, { rules: opRules(op), chainId: CHAIN_ID }), "TYPE_NOT_SUPPORTED");
        });
      }
    });
  }

  it("Ecotone activation block (Bedrock-format L1 info under Ecotone rules): Bedrock/Regolith formula", () => {
    // ecotone/exec-engine.md: the first Ecotone block still uses the Bedrock L1 cost function.
    const info = l1InfoFor(OpFork.Canyon);
    const tx = userTx();
    const l1Fee = expectedL1Fee(OpFork.Ecotone, info, encodeTx(tx), true);
    const state = stateOf([{ address: SENDER, balance: 10n ** 18n }]);
    ok(run(OpFork.Ecotone, state, [l1InfoDeposit(OpFork.Ecotone, info), tx]));
    assert.equal(balance(state, L1_FEE_VAULT), l1Fee);
  });

  it("the effective gas price is capped by maxFeePerGas (tip = maxFee - baseFee)", () => {
    const op = OpFork.Fjord;
    const info = l1InfoFor(op);
    const maxFee = L2_BASE_FEE + 500n;
    const tx = userTx({ maxFeePerGas: maxFee, maxPriorityFeePerGas: 10_000n });
    const used = expectedGasUsed(op);
    const state = stateOf([{ address: SENDER, balance: 10n ** 18n }]);
    ok(run(op, state, [l1InfoDeposit(op, info), tx]));
    assert.equal(balance(state, SEQUENCER_FEE_VAULT), used * 500n);
    assert.equal(balance(state, BASE_FEE_VAULT), used * L2_BASE_FEE);
  });
});
