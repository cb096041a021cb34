import type { Header } from "../block/header.js";
import type { ReceiptLog } from "../block/log.js";
import { receiptAndBlockBlooms } from "../block/logsBloom.js";
import { CANYON_DEPOSIT_RECEIPT_VERSION, type Receipt } from "../block/receipt.js";
import type { Withdrawal } from "../block/withdrawal.js";
import type { BlockContext } from "../evm/context.js";
import { Evm, type EvmOptions } from "../evm/evm.js";
import type { Tracer } from "../evm/tracer.js";
import { readWord } from "../evm/word.js";
import { Fork, type ForkRules, OpFork } from "../spec/forks.js";
import { addressToBigint, type WorldState } from "../state/worldState.js";
import { type L1BlockInfo, parseL1BlockInfo } from "../tx/l1BlockInfo.js";
import type { SenderSource } from "../tx/sharedRecovery.js";
import { type Tx, TxType } from "../tx/tx.js";
import { runToEnd, type SliceJob } from "../util/slicer.js";
import { executeTx, type TxOutcome, type TxRejectCode } from "./executeTx.js";
import { CREATE2_DEPLOYER_ADDRESS, CREATE2_DEPLOYER_CODE } from "./op/create2Deployer.js";
import { type DepositOutcome, executeDeposit } from "./op/executeDeposit.js";
import {
  CONSOLIDATION_REQUEST_TYPE,
  DEPOSIT_REQUEST_TYPE,
  depositRequests,
  requestsHash,
  WITHDRAWAL_REQUEST_TYPE,
} from "./requests.js";
import {
  BEACON_ROOTS_ADDRESS,
  CONSOLIDATION_REQUEST_ADDRESS,
  HISTORY_STORAGE_ADDRESS,
  hasCode,
  systemCall,
  WITHDRAWAL_REQUEST_ADDRESS,
} from "./systemCalls.js";

const GWEI = 1_000_000_000n;
const ETHER = 10n ** 18n;

export interface BlockExecEnv {
  readonly rules: ForkRules;
  readonly chainId: bigint;
  /** Blob base fee of this block (from its excessBlobGas and the fork's update fraction). */
  readonly blobBaseFee: bigint;
  /** Blob gas a block may use (the schedule's max × GAS_PER_BLOB). */
  readonly maxBlobGas: number;
  /** EIP-6110 deposit contract (Prague on L1). */
  readonly depositContract: Uint8Array | null;
  /** Canonical hash of an ancestor by number (BLOCKHASH), 0n when unknown. */
  readonly blockHash: (n: bigint) => bigint;
  /** Pre-Byzantium receipts carry the state root after each tx: the caller computes it. */
  readonly intermediateRoot: (() => Uint8Array) | null;
  readonly tracer?: Tracer | null;
  /** Given to the block's Evm (eth_simulateV1: the precompiles its overrides moved). */
  readonly evmOptions?: EvmOptions;
  /** OP chains: this block is the Canyon activation block (its timestamp equals canyonTime). */
  readonly canyonActivation?: boolean;
}

export interface BlockBodyInput {
  readonly header: Header;
  readonly txs: readonly Tx[];
  /** Recovered senders, index-aligned with `txs`; or a source asked for each as its tx is about to run. */
  readonly senders: readonly Uint8Array[] | SenderSource;
  readonly ommers: readonly Header[];
  readonly withdrawals: readonly Withdrawal[] | null;
}

export interface BlockExecResult {
  readonly receipts: Receipt[];
  readonly outcomes: TxOutcome[];
  readonly gasUsed: number;
  readonly blobGasUsed: number;
  readonly logsBloom: Uint8Array;
  /** EIP-7685 requestsHash (Prague on L1), else null. */
  readonly requestsHash: Uint8Array | null;
}

/** BlockExecFailure.error when a sender source has no sender for the tx (invalid signature). */
export const NO_SENDER = "NO_SENDER";

export interface BlockExecFailure {
  readonly error: string;
  /** Index of the offending tx, -1 for block-level failures. */
  readonly txIndex: number;
}

export function blockContext(header: Header, env: BlockExecEnv): BlockContext {
  return {
    coinbase: addressToBigint(header.coinbase),
    number: BigInt(header.number),
    timestamp: BigInt(header.timestamp),
    gasLimit: header.gasLimit,
    difficulty: header.difficulty,
    prevRandao: readWord(header.mixHash, 0, 32),
    baseFee: header.baseFeePerGas ?? 0n,
    blobBaseFee: env.blobBaseFee,
    chainId: env.chainId,
    blockHash: env.blockHash,
  };
}

/** Block reward before the merge (Frontier 5 ETH, Byzantium 3, Constantinople 2). */
function blockReward(fork: Fork): bigint {
  if (fork >= Fork.Constantinople) return 2n * ETHER;
  if (fork >= Fork.Byzantium) return 3n * ETHER;
  return 5n * ETHER;
}

/**
 * A receipt's bloom until `finish` computes every receipt's in one batch of hashes (one native call a
 * block, where one a tx cost erc20-transfers' 5,000 receipts ~120 ms in a cold import). Zero bytes,
 * so a receipt encoded before `finish` fails loudly instead of carrying a wrong bloom.
 */
const BLOOM_AT_FINISH = new Uint8Array(0);

/**
 * A block's transition in three steps, so import and block building share every rule: `begin`
 * (system calls, Canyon's code change), `applyTx` per tx (a rejected tx leaves the state untouched,
 * so a builder can skip it), `finish` (requests, withdrawals, rewards, bloom).
 */
export class BlockExecutor {
  readonly evm: Evm;
  /** The receipts so far; their blooms are set by `finish`. */
  readonly receipts: Receipt[] = [];
  readonly outcomes: TxOutcome[] = [];
  private readonly allLogs: ReceiptLog[] = [];
  gasUsed = 0;
  blobGasUsed = 0;
  private l1Info: L1BlockInfo | null = null;

  constructor(
    readonly state: WorldState,
    readonly header: Header,
    readonly env: BlockExecEnv,
  ) {
    this.evm = new Evm(env.rules, blockContext(header, env), state, env.evmOptions);
    this.evm.tracer = env.tracer ?? null;
  }

  begin(): void {
    const { header, env, evm, state } = this;
    const fork = env.rules.fork;
    if (fork >= Fork.Cancun && header.parentBeaconBlockRoot !== null) {
      systemCall(evm, BEACON_ROOTS_ADDRESS, header.parentBeaconBlockRoot);
    }
    // EIP-2935 from Prague on L1 and from Isthmus (which executes under Prague) on OP chains.
    if (fork >= Fork.Prague) systemCall(evm, HISTORY_STORAGE_ADDRESS, header.parentHash);
    if (env.canyonActivation === true) {
      state.setCode(state.account(CREATE2_DEPLOYER_ADDRESS), CREATE2_DEPLOYER_CODE);
      state.finalizeTx(evm.schedule.eip158);
    }
  }

  /** Applies one tx; on rejection nothing changed and the code says why. */
  applyTx(tx: Tx, sender: Uint8Array): TxOutcome | TxRejectCode | "DEPOSIT_ON_L1" {
    const rules = this.env.rules;
    const fork = rules.fork;
    // OP: the L1 attributes the fees of this block use come from its first tx (the L1-info deposit).
    if (this.receipts.length === 0 && rules.op !== null && tx.type === TxType.Deposit)
      this.l1Info = parseL1BlockInfo(tx.data);
    const blockGasLeft = this.header.gasLimit - BigInt(this.gasUsed);
    let depositNonce: number | null = null;
    let r: TxOutcome | DepositOutcome | TxRejectCode;
    if (tx.type === TxType.Deposit) {
      if (rules.op === null) return "DEPOSIT_ON_L1";
      const d = executeDeposit(this.evm, tx, blockGasLeft);
      if (typeof d !== "string" && rules.op >= OpFork.Regolith) depositNonce = Number(d.depositNonce);
      r = d;
    } else {
      r = executeTx(this.evm, tx, {
        sender,
        blockGasLeft,
        blobGasLeft: this.env.maxBlobGas - this.blobGasUsed,
        l1Info: this.l1Info,
      });
    }
    if (typeof r === "string") return r;
    this.gasUsed += r.gasUsed;
    this.blobGasUsed += r.blobGasUsed;
    this.outcomes.push(r);
    for (let j = 0; j < r.logs.length; j++) this.allLogs.push(r.logs[j]);
    this.receipts.push({
      type: tx.type,
      status: r.status,
      postState: fork < Fork.Byzantium && this.env.intermediateRoot !== null ? this.env.intermediateRoot() : null,
      cumulativeGasUsed: this.gasUsed,
      logsBloom: BLOOM_AT_FINISH,
      logs: r.logs,
      depositNonce,
      depositReceiptVersion:
        tx.type === TxType.Deposit && rules.op !== null && rules.op >= OpFork.Canyon
          ? CANYON_DEPOSIT_RECEIPT_VERSION
          : null,
    });
    return r;
  }

  finish(ommers: readonly Header[], withdrawals: readonly Withdrawal[] | null): BlockExecResult | BlockExecFailure {
    const { header, env, evm, state } = this;
    const fork = env.rules.fork;
    const eip158 = evm.schedule.eip158;
    let reqHash: Uint8Array | null = null;
    if (fork >= Fork.Prague && env.rules.op === null) {
      const deposits =
        env.depositContract === null ? new Uint8Array(0) : depositRequests(this.allLogs, env.depositContract);
      if (deposits === null) return { error: "INVALID_DEPOSIT_EVENT_LAYOUT", txIndex: -1 };
      const requests: [number, Uint8Array][] = [[DEPOSIT_REQUEST_TYPE, deposits]];
      for (const [type, address] of [
        [WITHDRAWAL_REQUEST_TYPE, WITHDRAWAL_REQUEST_ADDRESS],
        [CONSOLIDATION_REQUEST_TYPE, CONSOLIDATION_REQUEST_ADDRESS],
      ] as const) {
        if (!hasCode(evm, address)) return { error: "SYSTEM_CONTRACT_EMPTY", txIndex: -1 };
        const out = systemCall(evm, address, new Uint8Array(0));
        if (out === null) return { error: "SYSTEM_CONTRACT_CALL_FAILED", txIndex: -1 };
        requests.push([type, out]);
      }
      reqHash = requestsHash(requests);
    }
    if (withdrawals !== null) {
      for (const w of withdrawals) state.addBalance(state.account(addressToBigint(w.address)), w.amount * GWEI);
      state.finalizeTx(eip158);
    }
    if (fork < Fork.Paris) {
      const reward = blockReward(fork);
      const miner = state.account(addressToBigint(header.coinbase));
      for (const o of ommers) {
        const share = (reward * BigInt(8 + o.number - header.number)) / 8n;
        state.addBalance(state.account(addressToBigint(o.coinbase)), share);
      }
      state.addBalance(miner, reward + (reward / 32n) * BigInt(ommers.length));
      state.finalizeTx(eip158);
    }
    const receipts = this.receipts;
    const blooms = receiptAndBlockBlooms(receipts.map((r) => r.logs));
    for (let i = 0; i < receipts.length; i++) receipts[i]!.logsBloom = blooms.receipts[i]!;
    return {
      receipts,
      outcomes: this.outcomes,
      gasUsed: this.gasUsed,
      blobGasUsed: this.blobGasUsed,
      logsBloom: blooms.block,
      requestsHash: reqHash,
    };
  }
}

export function executeBlock(
  state: WorldState,
  body: BlockBodyInput,
  env: BlockExecEnv,
): BlockExecResult | BlockExecFailure {
  return runToEnd(executeBlockSteps(state, body, env));
}

/**
 * `executeBlock` as a sliced job (util/slicer.ts): it yields after each tx, so a block import can
 * give the event loop back between txs (issue 25: reads answered while a block imports). Execution
 * writes nothing to the store (the WorldState keeps every change until its commit), so what runs
 * meanwhile reads the parent's state.
 */
export function* executeBlockSteps(
  state: WorldState,
  body: BlockBodyInput,
  env: BlockExecEnv,
): SliceJob<BlockExecResult | BlockExecFailure> {
  const x = new BlockExecutor(state, body.header, env);
  x.begin();
  const senders = body.senders;
  const source = Array.isArray(senders) ? null : (senders as SenderSource);
  for (let i = 0; i < body.txs.length; i++) {
    const sender = source === null ? (senders as readonly Uint8Array[])[i] : source.sender(i, body.txs[i]);
    if (sender === null) return { error: NO_SENDER, txIndex: i };
    const r = x.applyTx(body.txs[i], sender);
    if (typeof r === "string") return { error: r, txIndex: i };
    yield;
  }
  return x.finish(body.ommers, body.withdrawals);
}
