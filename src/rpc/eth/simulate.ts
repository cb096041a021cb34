/**
 * eth_simulateV1 (geth internal/ethapi/simulate.go): a chain of blocks built on top of the selected
 * block from `blockStateCalls`, each with block and state overrides, executed without signatures;
 * every block is assembled (state root over an overlay of the base state, tx and receipt roots,
 * hash, size) and returned with its per-call results. Error codes are the spec's -380xx.
 *
 * `traceTransfers` adds geth's synthetic ERC-20 Transfer logs from 0xeeee… for value transfers;
 * `movePrecompileToAddress` relocates a precompile for its block (the block's Evm gets the moved
 * table as `EvmOptions.precompiles`). Calls with `blobVersionedHashes`
 * become blob txs (no sidecar: the hashes are what execution sees).
 */

import { encodeBlock } from "../../block/block.js";
import { EMPTY_OMMERS_HASH, type Header, headerHash } from "../../block/header.js";
import type { ReceiptLog } from "../../block/log.js";
import { blockLogsBloom, logsBloom } from "../../block/logsBloom.js";
import type { Receipt } from "../../block/receipt.js";
import { encodeReceiptsForRoot } from "../../block/receipt.js";
import { headerBlobBaseFee } from "../../chain/importBlock.js";
import { expectedBaseFee, expectedExcessBlobGas } from "../../chain/validateHeader.js";
import { keccak256 } from "../../crypto/keccak.js";
import { precompileTable } from "../../evm/precompiles/table.js";
import type { Precompile } from "../../evm/precompiles/types.js";
import type { CallKind, EvmTracer } from "../../evm/tracer.js";
import { BlockExecutor } from "../../executor/executeBlock.js";
import { executeTx, type TxOutcome } from "../../executor/executeTx.js";
import { toChecksumAddress } from "../../primitives/address.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { JsonValue } from "../../primitives/json.js";
import { bytesToBigint, MAX_U64 } from "../../primitives/u256.js";
import { blobParamsAt, rulesAt } from "../../spec/chainConfig.js";
import { Fork, type ForkRules } from "../../spec/forks.js";
import { KvStateReader } from "../../state/kvStateReader.js";
import { addressToBigint, WorldState } from "../../state/worldState.js";
import { type Overlay, OverlayKv } from "../../storage/overlayKv.js";
import { orderedTrieRoot } from "../../trie/orderedRoot.js";
import { updateStateRoot } from "../../trie/stateRoot.js";
import { encodeTx, txHash } from "../../tx/envelope.js";
import { type SignedTx, TxType } from "../../tx/tx.js";
import { RpcError } from "../errors.js";
import { blockJson, logJson, qty, txJson } from "../format.js";
import { type BlockSelector, bool, ParamError } from "../params.js";
import type { EthBackend } from "./backend.js";
import { decodeTxArgs, revertError, type TxArgs } from "./callArgs.js";
import {
  applyBatch,
  applyStateOverrides,
  type BlockOverrides,
  lowerKeys,
  parseBlockOverrides,
  parseStateOverrides,
  type StateOverrides,
} from "./overrides.js";

const MAX_SIMULATE_BLOCKS = 256;
const TIMESTAMP_INCREMENT = 12;
const ZERO32 = new Uint8Array(32);
const EMPTY_WITHDRAWALS_ROOT = orderedTrieRoot([]);

interface SimBlock {
  overrides: BlockOverrides;
  state: StateOverrides;
  calls: TxArgs[];
}

function parseOpts(v: unknown): { blocks: SimBlock[]; validation: boolean; fullTx: boolean; traceTransfers: boolean } {
  if (v === null || typeof v !== "object" || Array.isArray(v)) {
    throw new ParamError("json: cannot unmarshal non-object into Go value of type ethapi.simOpts");
  }
  const o = lowerKeys(v as Record<string, unknown>);
  const raw = Array.isArray(o.blockstatecalls) ? o.blockstatecalls : [];
  const blocks = raw.map((b: unknown): SimBlock => {
    const bo = lowerKeys((b ?? {}) as Record<string, unknown>);
    const overrides = parseBlockOverrides(bo.blockoverrides);
    const state = parseStateOverrides(bo.stateoverrides);
    const calls = Array.isArray(bo.calls) ? bo.calls.map((c: unknown) => decodeTxArgs(c)) : [];
    return { overrides, state, calls };
  });
  return {
    blocks,
    validation: o.validation === undefined ? false : bool.decode(o.validation),
    fullTx: o.returnfulltransactions === undefined ? false : bool.decode(o.returnfulltransactions),
    traceTransfers: o.tracetransfers === undefined ? false : bool.decode(o.tracetransfers),
  };
}

/** geth `sanitizeChain`: numbers in order, gaps filled with empty blocks, timestamps in order. */
function sanitizeChain(base: Header, blocks: SimBlock[]): SimBlock[] {
  const out: SimBlock[] = [];
  let prevNumber = BigInt(base.number);
  let prevTime = BigInt(base.timestamp);
  for (const b of blocks) {
    const number = b.overrides.number ?? prevNumber + 1n;
    b.overrides.number = number;
    if (number <= prevNumber) {
      throw new RpcError(-38020, `block numbers must be in order: ${number} <= ${prevNumber}`);
    }
    if (number - BigInt(base.number) > BigInt(MAX_SIMULATE_BLOCKS)) throw new RpcError(-38026, "too many blocks");
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += BigInt(TIMESTAMP_INCREMENT);
      out.push({ overrides: { number: n, time: prevTime }, state: new Map(), calls: [] });
    }
    prevNumber = number;
    if (b.overrides.time === undefined) b.overrides.time = prevTime + BigInt(TIMESTAMP_INCREMENT);
    else if (b.overrides.time <= prevTime) {
      throw new RpcError(-38021, `block timestamps must be in order: ${b.overrides.time} <= ${prevTime}`);
    }
    prevTime = b.overrides.time;
    out.push(b);
  }
  return out;
}

const TRANSFER_TOPIC = keccak256(new TextEncoder().encode("Transfer(address,address,uint256)"));
const TRANSFER_ADDRESS = new Uint8Array(20).fill(0xee);

function word(v: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(v.toString(16).padStart(64, "0"), "hex"));
}

/**
 * geth's simulate tracer with traceTransfers: every value-moving message (not DELEGATECALL) adds an
 * ERC-20 style Transfer log from 0xeeee…; real logs keep their place (LOG opcodes are marked when
 * they run and filled in from the outcome's logs); a reverted frame drops its logs.
 */
class TransferTracer implements EvmTracer {
  private stack: Entry[][] = [];
  result: Entry[] = [];
  private pendingLog = false;

  /** `seq` numbers logs as they are captured, across the block (geth's tracer count). */
  constructor(private readonly seq: { n: number }) {}

  onEnter(
    _depth: number,
    kind: CallKind,
    from: bigint,
    to: bigint,
    _i: Uint8Array,
    _g: number,
    value: bigint | null,
  ): void {
    this.flushLog();
    const list: Entry[] = [];
    if (kind !== "DELEGATECALL" && value !== null && value > 0n) {
      list.push({
        log: { address: TRANSFER_ADDRESS, topics: [TRANSFER_TOPIC, word(from), word(to)], data: word(value) },
        index: this.seq.n++,
      });
    }
    this.stack.push(list);
  }

  onExit(_d: number, _o: Uint8Array, _g: number, _h: unknown, reverted: boolean): void {
    this.flushLog();
    const top = this.stack.pop() ?? [];
    if (reverted) return;
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) this.result = top;
    else parent.push(...top);
  }

  onStep(_f: unknown, op: number): void {
    this.flushLog();
    if (op >= 0xa0 && op <= 0xa4) this.pendingLog = true;
  }

  onFault(): void {
    this.pendingLog = false;
  }

  private flushLog(): void {
    if (!this.pendingLog) return;
    this.pendingLog = false;
    this.stack[this.stack.length - 1]?.push({ log: null, index: this.seq.n++ });
  }

  /** The logs in order, real ones (null marks) taken from `real`. */
  logs(real: readonly ReceiptLog[]): Entry[] {
    const out: Entry[] = [];
    let k = 0;
    for (const e of this.result) {
      if (e.log !== null) out.push(e);
      else if (k < real.length) out.push({ log: real[k++], index: e.index });
    }
    while (k < real.length) out.push({ log: real[k++], index: this.seq.n++ });
    return out;
  }
}

interface Entry {
  readonly log: ReceiptLog | null;
  readonly index: number;
}

/**
 * The precompiles calls reach in a block whose state overrides move some (`movePrecompileToAddress`,
 * geth `StateOverride.Apply` on the simulator's table), or null when none moves: the fork's table by
 * address, each moved one deleted from its address and set at its destination. The Evm gets it as
 * `EvmOptions.precompiles`; the warm set at tx start stays the fork's.
 */
function movedPrecompiles(rules: ForkRules, overrides: StateOverrides): Map<bigint, Precompile> | null {
  let moved: Map<bigint, Precompile> | null = null;
  for (const [addr, x] of overrides.values()) {
    if (x.movePrecompileToAddress === undefined) continue;
    if (moved === null) {
      moved = new Map();
      for (const [id, fn] of precompileTable(rules)) moved.set(BigInt(id), fn);
    }
    const from = addressToBigint(addr);
    const fn = moved.get(from);
    if (fn === undefined) throw RpcError.server(`account ${toChecksumAddress(addr)} is not a precompile`);
    moved.delete(from);
    moved.set(addressToBigint(x.movePrecompileToAddress), fn);
  }
  return moved;
}

/** Tx-level refusals of a simulated call: the spec's codes, geth's "err: … (supplied gas N)". */
const REJECT_CODES: Record<string, number> = {
  NONCE_TOO_LOW: -38010,
  NONCE_TOO_HIGH: -38011,
  FEE_CAP_BELOW_BASE_FEE: -38012,
  INTRINSIC_GAS_TOO_LOW: -38013,
  INSUFFICIENT_FUNDS: -38014,
  GAS_ALLOWANCE_EXCEEDED: -38015,
  SENDER_NOT_EOA: -38024,
};

/** The unsigned tx a call stands for (geth `ToTransaction(DynamicFeeTxType)`). */
function callTx(a: TxArgs, nonce: bigint, gas: bigint, chainId: bigint): SignedTx {
  const to = a.to;
  const value = a.value ?? 0n;
  const data = a.input ?? new Uint8Array(0);
  const typed = {
    chainId,
    nonce,
    maxPriorityFeePerGas: a.maxPriorityFeePerGas ?? 0n,
    maxFeePerGas: a.maxFeePerGas ?? 0n,
    gasLimit: gas,
    value,
    data,
    accessList: a.accessList ?? [],
    yParity: 0,
    r: 0n,
    s: 0n,
  };
  if (a.authorizationList !== null && to !== null) {
    return { type: TxType.SetCode, ...typed, to, authorizationList: a.authorizationList };
  }
  if (a.blobVersionedHashes !== null && to !== null) {
    const hashes = a.blobVersionedHashes;
    return { type: TxType.Blob, ...typed, to, maxFeePerBlobGas: a.maxFeePerBlobGas ?? 0n, blobVersionedHashes: hashes };
  }
  if (a.gasPrice !== null) {
    return { type: TxType.Legacy, nonce, gasPrice: a.gasPrice, gasLimit: gas, to, value, data, v: 0n, r: 0n, s: 0n };
  }
  return { type: TxType.FeeMarket, ...typed, to };
}

export function simulateV1(be: EthBackend, rawOpts: unknown, sel: BlockSelector): JsonValue[] {
  const parsed = parseOpts(rawOpts);
  if (parsed.blocks.length === 0) throw RpcError.invalidParams("empty input");
  const base = be.stateAt(sel);
  const cfg = be.chain.config;
  const store = be.chain.store;
  const blocks = sanitizeChain(base.header, parsed.blocks);
  const overlay: Overlay = new Map();
  const kv = new OverlayKv(base.view, overlay);
  const results: JsonValue[] = [];
  const simHashes = new Map<bigint, Uint8Array>();
  let parent = base.header;
  let parentHash = base.hash;
  // geth's gasBudget: the RPC gas cap shared by every call of the request.
  let budget = be.deps.gasCap === 0n ? MAX_U64 : be.deps.gasCap;
  const ZERO_ADDR = new Uint8Array(20);
  for (const b of blocks) {
    const ov = b.overrides;
    const number = Number(ov.number);
    const timestamp = Number(ov.time);
    const rules = rulesAt(cfg, number, timestamp);
    const fork = rules.fork;
    const london = fork >= Fork.London;
    const cancun = fork >= Fork.Cancun;
    let baseFee: bigint | null = null;
    if (london) {
      baseFee = ov.baseFeePerGas ?? (parsed.validation ? (expectedBaseFee(parent, cfg, rules.op) ?? 0n) : 0n);
    }
    const parentCancun = rulesAt(cfg, parent.number, parent.timestamp).fork >= Fork.Cancun;
    const excess = cancun ? (parentCancun ? expectedExcessBlobGas(parent, cfg, fork, timestamp) : 0) : null;
    const header: Header = {
      parentHash,
      ommersHash: EMPTY_OMMERS_HASH,
      coinbase: ov.feeRecipient ?? parent.coinbase ?? ZERO_ADDR,
      stateRoot: ZERO32,
      transactionsRoot: ZERO32,
      receiptsRoot: ZERO32,
      logsBloom: new Uint8Array(256),
      difficulty: fork >= Fork.Paris ? 0n : parent.difficulty,
      number,
      gasLimit: ov.gasLimit ?? parent.gasLimit,
      gasUsed: 0,
      timestamp,
      extraData: new Uint8Array(0),
      mixHash: ov.prevRandao ?? ZERO32,
      nonce: new Uint8Array(8),
      baseFeePerGas: baseFee,
      withdrawalsRoot: fork >= Fork.Shanghai ? EMPTY_WITHDRAWALS_ROOT : null,
      blobGasUsed: cancun ? 0 : null,
      excessBlobGas: excess,
      parentBeaconBlockRoot: cancun ? (ov.beaconRoot ?? ZERO32) : null,
      requestsHash: null,
    };
    const blobParams = blobParamsAt(cfg, timestamp);
    const env = {
      rules,
      chainId: cfg.chainId,
      blobBaseFee: ov.blobBaseFee ?? headerBlobBaseFee(cfg, excess, timestamp),
      maxBlobGas: blobParams === null ? 0 : blobParams.max * 131072,
      depositContract: null,
      blockHash: (n: bigint): bigint => {
        if (n >= BigInt(number) || n + 256n < BigInt(number) || n < 0n) return 0n;
        const sim = simHashes.get(n);
        if (sim !== undefined) return bytesToBigint(sim);
        const h = store.canonicalHash(Number(n));
        return h === null ? 0n : bytesToBigint(h);
      },
      intermediateRoot: null,
    };
    const state = new WorldState(new KvStateReader(kv), kv);
    // Precompile moves first (geth `StateOverride.Apply`), then the account fields.
    const moved = movedPrecompiles(rules, b.state);
    applyStateOverrides(state, b.state);
    const exec = new BlockExecutor(
      state,
      header,
      moved === null ? env : { ...env, evmOptions: { precompiles: moved } },
    );
    exec.begin();
    const txs: SignedTx[] = [];
    const senders: Uint8Array[] = [];
    const receipts: Receipt[] = [];
    const outcomes: TxOutcome[] = [];
    const callLogs: Entry[][] = [];
    const seq = { n: 0 };
    const outputs: Uint8Array[] = [];
    let gasUsed = 0;
    let blobGasUsed = 0;
    for (const call of b.calls) {
      const from = call.from ?? ZERO_ADDR;
      const acct = state.account(addressToBigint(from));
      const nonce = call.nonce ?? acct.nonce;
      const remaining = header.gasLimit - BigInt(gasUsed);
      const gas = call.gas ?? remaining;
      if (remaining < gas) {
        throw new RpcError(-38015, `block gas limit reached: remaining: ${remaining}, required: ${gas}`);
      }
      const capped = gas > budget ? budget : gas;
      const tx = callTx(call, nonce, capped, cfg.chainId);
      const tracer = parsed.traceTransfers ? new TransferTracer(seq) : null;
      exec.evm.tracer = tracer;
      const r = executeTx(exec.evm, tx, {
        sender: from,
        blockGasLeft: remaining,
        blobGasLeft: env.maxBlobGas - blobGasUsed,
        simulate: !parsed.validation,
        // geth's simulator always skips the EOA check (calls from contracts are the point).
        skipEoaCheck: true,
      });
      exec.evm.tracer = null;
      if (typeof r === "string") {
        const msg = {
          from,
          to: call.to,
          gas,
          gasPrice: call.gasPrice,
          maxFeePerGas: call.maxFeePerGas,
          maxPriorityFeePerGas: call.maxPriorityFeePerGas,
          value: call.value ?? 0n,
          data: call.input ?? new Uint8Array(0),
          accessList: call.accessList ?? [],
        };
        const text = be.rejectMessage(r, kv, msg, capped, { ...be.callEnv(header), block: exec.evm.block }, acct);
        throw new RpcError(REJECT_CODES[r] ?? -32603, `err: ${text} (supplied gas ${capped})`);
      }
      gasUsed += r.gasUsed;
      budget -= BigInt(r.gasUsed);
      // geth's uint64 nonce wraps when a simulated call bumps the maximum.
      if (acct.nonce > MAX_U64) state.setNonce(acct, acct.nonce & MAX_U64);
      // A creation returns the deployed code (geth `ExecutionResult.Return`): the EVM's result carries it.
      outputs.push(r.output);
      blobGasUsed += r.blobGasUsed;
      txs.push(tx);
      senders.push(from);
      outcomes.push(r);
      callLogs.push(
        tracer === null ? (r.status === 1 ? r.logs.map((log) => ({ log, index: seq.n++ })) : []) : tracer.logs(r.logs),
      );
      receipts.push({
        type: tx.type,
        status: r.status,
        postState: null,
        cumulativeGasUsed: gasUsed,
        logsBloom: logsBloom(r.logs),
        logs: r.logs,
        depositNonce: null,
        depositReceiptVersion: null,
      });
    }
    exec.gasUsed = gasUsed;
    const fin = exec.finish([], fork >= Fork.Shanghai ? [] : null);
    if ("error" in fin) throw RpcError.server(`simulated block failed: ${fin.error}`);
    header.gasUsed = gasUsed;
    if (cancun) header.blobGasUsed = blobGasUsed;
    header.requestsHash = fin.requestsHash;
    const commit = state.commitBlock();
    applyBatch(overlay, commit.batch);
    const root = updateStateRoot(kv, commit.changeset);
    applyBatch(overlay, root.batch);
    header.stateRoot = root.root;
    const encodedTxs = txs.map((t) => encodeTx(t));
    header.transactionsRoot = orderedTrieRoot(encodedTxs);
    header.receiptsRoot = orderedTrieRoot(encodeReceiptsForRoot(receipts, rules));
    header.logsBloom = blockLogsBloom(receipts.map((r) => r.logsBloom));
    const body = { transactions: encodedTxs, ommers: [], withdrawals: fork >= Fork.Shanghai ? [] : null };
    const blockHash = headerHash(header);
    const size = encodeBlock({ header, body }).length;
    simHashes.set(BigInt(number), blockHash);
    const hashes = txs.map((t) => txHash(t));
    const calls: JsonValue[] = outcomes.map((r, i) => {
      const logs = (r.status === 1 ? callLogs[i] : []).map((e) =>
        logJson(e.log as ReceiptLog, {
          blockHash,
          blockNumber: number,
          blockTimestamp: timestamp,
          txHash: hashes[i],
          txIndex: i,
          logIndex: e.index,
        }),
      );
      const c: Record<string, JsonValue> = {
        returnData: r.status === 1 ? bytesToHex(outputs[i]) : "0x",
        logs,
        gasUsed: qty(r.gasUsed),
        maxUsedGas: qty(r.gasUsed),
        status: qty(r.status),
      };
      if (r.status !== 1) {
        if (r.error === "execution reverted" || r.error === null) {
          const e = revertError(r.output);
          c.error = { message: e.message, code: e.code, data: e.data as string };
        } else c.error = { message: r.error, code: -32015 };
      }
      return c;
    });
    const transactions: JsonValue[] = parsed.fullTx
      ? txs.map((t, i) =>
          txJson(
            t,
            { hash: hashes[i], from: senders[i] },
            { blockHash, blockNumber: number, blockTimestamp: timestamp, index: i, baseFee: header.baseFeePerGas },
          ),
        )
      : hashes.map((h) => bytesToHex(h));
    const out = blockJson({
      header,
      hash: blockHash,
      size,
      transactions,
      uncleHashes: [],
      withdrawals: body.withdrawals,
    });
    out.calls = calls;
    results.push(out);
    parent = header;
    parentHash = blockHash;
  }
  return results;
}
