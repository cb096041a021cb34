/**
 * Fee suggestions and history: geth's gas price oracle (eth/gasprice: the 60th percentile of the
 * three lowest tips of each of the last 20 blocks, ignoring tips below 2 wei, capped at 500 gwei),
 * op-geth's variant on OP chains (the minimum suggested tip, 1e6 wei by default, unless the head
 * block was near full), and eth_feeHistory (eth/gasprice/feehistory.go) with its error texts.
 */

import type { Header } from "../../block/header.js";
import type { ChainView } from "../../chain/blockchain.js";
import { headerBlobBaseFee } from "../../chain/importBlock.js";
import { expectedBaseFee, expectedExcessBlobGas } from "../../chain/validateHeader.js";
import type { JsonValue } from "../../primitives/json.js";
import { blobParamsAt, rulesAt } from "../../spec/chainConfig.js";
import { type Tx, TxType, txMaxFeePerGas, txMaxPriorityFeePerGas } from "../../tx/tx.js";
import { RpcError } from "../errors.js";
import { qty } from "../format.js";
import type { BlockNumberSelector } from "../params.js";
import type { ChainReader, DecodedBlock } from "./chainReader.js";

const CHECK_BLOCKS = 20;
const SAMPLE_NUMBER = 3;
const PERCENTILE = 60;
const IGNORE_PRICE = 2n;
const MAX_PRICE = 500_000_000_000n;
/** op-geth `DefaultMinSuggestedPriorityFee`. */
export const OP_MIN_SUGGESTED_PRIORITY_FEE = 1_000_000n;
const MAX_FEE_HISTORY = 1024;
const MAX_BLOCK_COUNT_PERCENTILES = 100;

/**
 * The tip a tx pays at `baseFee` (geth `EffectiveGasTipValue`), negative when below the base fee
 * (never for a tx in a valid block). A deposit tips 0: op-geth `Transaction.EffectiveGasTip` answers
 * 0 for DepositTxType before looking at the base fee (its fee fields are 0, so `min(0, 0 - baseFee)`
 * would otherwise make every OP block's fee history carry a negative reward).
 */
export function effectiveTip(tx: Tx, baseFee: bigint | null): bigint {
  if (tx.type === TxType.Deposit) return 0n;
  const tip = txMaxPriorityFeePerGas(tx);
  if (baseFee === null) return tip;
  const cap = txMaxFeePerGas(tx) - baseFee;
  return cap < tip ? cap : tip;
}

export class GasPriceOracle {
  private cacheHead: string | null = null;
  private cacheTip = 0n;
  private lastPrice: bigint;

  constructor(
    private readonly chain: ChainView,
    private readonly reader: ChainReader,
  ) {
    this.lastPrice = chain.config.optimism !== null ? OP_MIN_SUGGESTED_PRIORITY_FEE : 1_000_000_000n;
  }

  /** eth_maxPriorityFeePerGas. */
  suggestTip(): bigint {
    const head = this.chain.headBlockHash;
    const key = Buffer.from(head).toString("hex");
    if (this.cacheHead === key) return this.cacheTip;
    const tip = this.chain.config.optimism !== null ? this.opTip(head) : this.l1Tip();
    this.cacheHead = key;
    this.cacheTip = tip;
    return tip;
  }

  /** eth_gasPrice: the tip plus the head's base fee. */
  suggestGasPrice(): bigint {
    return this.suggestTip() + (this.chain.head.baseFeePerGas ?? 0n);
  }

  private l1Tip(): bigint {
    const samples: bigint[] = [];
    let n = this.chain.head.number;
    for (let i = 0; i < CHECK_BLOCKS && n >= 0; i++, n--) {
      const h = this.chain.store.canonicalHash(n);
      const b = h === null ? null : this.reader.block(h);
      if (b === null) break;
      const tips = blockTips(b);
      if (tips.length === 0) samples.push(this.lastPrice);
      else samples.push(...tips.slice(0, SAMPLE_NUMBER));
    }
    let price = this.lastPrice;
    if (samples.length > 0) {
      samples.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      price = samples[Math.floor(((samples.length - 1) * PERCENTILE) / 100)];
    }
    if (price > MAX_PRICE) price = MAX_PRICE;
    this.lastPrice = price;
    return price;
  }

  /** op-geth `SuggestOptimismPriorityFee`: the minimum unless the head had little room left. */
  private opTip(head: Uint8Array): bigint {
    const b = this.reader.block(head);
    const min = OP_MIN_SUGGESTED_PRIORITY_FEE;
    if (b === null) return min;
    const tips = blockTips(b);
    if (tips.length === 0) return min;
    let maxGas = 0n;
    for (const tx of b.txs) if (tx.type !== TxType.Deposit && tx.gasLimit > maxGas) maxGas = tx.gasLimit;
    if (BigInt(b.header.gasUsed) + maxGas <= b.header.gasLimit) return min;
    const median = tips[Math.floor(tips.length / 2)];
    const bumped = median + median / 10n;
    return bumped > min ? bumped : min;
  }
}

/** Tips of a block's non-deposit txs not sent by its coinbase, at least IGNORE_PRICE, ascending. */
function blockTips(b: DecodedBlock): bigint[] {
  const out: bigint[] = [];
  for (let i = 0; i < b.txs.length; i++) {
    const tx = b.txs[i];
    if (tx.type === TxType.Deposit) continue;
    if (Buffer.compare(b.senders[i], b.header.coinbase) === 0) continue;
    const tip = effectiveTip(tx, b.header.baseFeePerGas);
    if (tip >= IGNORE_PRICE) out.push(tip);
  }
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Go's %f: six decimals. */
function goFloat(p: number): string {
  return p.toFixed(6);
}

function blobFeeOf(chain: ChainView, h: Header): bigint {
  return h.excessBlobGas === null ? 0n : headerBlobBaseFee(chain.config, h.excessBlobGas, h.timestamp);
}

/** eth_feeHistory. */
export function feeHistory(
  chain: ChainView,
  reader: ChainReader,
  /** Any uint64: more than geth's maxHeaderHistory / maxBlockHistory (1024) is cut to it. */
  blockCount: bigint,
  last: BlockNumberSelector,
  percentiles: readonly number[] | undefined,
): Record<string, JsonValue> {
  const pct = percentiles ?? [];
  if (pct.length > MAX_BLOCK_COUNT_PERCENTILES) {
    throw RpcError.invalidParams(
      `${"invalid reward percentile"}: too many percentiles (max ${MAX_BLOCK_COUNT_PERCENTILES})`,
    );
  }
  for (let i = 0; i < pct.length; i++) {
    const p = pct[i];
    if (!(p >= 0 && p <= 100)) throw RpcError.invalidParams(`invalid reward percentile: ${goFloat(p)}`);
    if (i > 0 && p <= pct[i - 1]) {
      throw RpcError.invalidParams(
        `invalid reward percentile: #${i - 1}:${goFloat(pct[i - 1])} >= #${i}:${goFloat(p)}`,
      );
    }
  }
  if (blockCount < 1n) return { oldestBlock: "0x0", gasUsedRatio: null };
  const count = blockCount > BigInt(MAX_FEE_HISTORY) ? MAX_FEE_HISTORY : Number(blockCount);
  const head = chain.head.number;
  let lastN: number;
  if (last.kind === "number") {
    if (last.number > head) {
      throw RpcError.invalidParams(`request beyond head block: requested ${last.number}, head ${head}`);
    }
    lastN = last.number;
  } else {
    const h = reader.resolve(last);
    const hd = h === null ? null : chain.store.header(h);
    if (hd === null) throw RpcError.server(`${last.tag} block not found`);
    lastN = hd.number;
  }
  const blocks = Math.min(count, lastN + 1);
  const oldest = lastN + 1 - blocks;
  const baseFees: JsonValue[] = [];
  const ratios: JsonValue[] = [];
  const blobFees: JsonValue[] = [];
  const blobRatios: JsonValue[] = [];
  const rewards: JsonValue[] = [];
  let lastHeader: Header | null = null;
  for (let n = oldest; n <= lastN; n++) {
    const hash = chain.store.canonicalHash(n);
    const b = hash === null ? null : reader.block(hash);
    if (b === null) break;
    const h = b.header;
    lastHeader = h;
    baseFees.push(qty(h.baseFeePerGas ?? 0n));
    ratios.push(Number(h.gasUsed) / Number(h.gasLimit));
    blobFees.push(qty(blobFeeOf(chain, h)));
    const params = blobParamsAt(chain.config, h.timestamp);
    const maxBlobGas = params === null ? 0 : params.max * 131072;
    blobRatios.push(maxBlobGas === 0 ? 0 : (h.blobGasUsed ?? 0) / maxBlobGas);
    if (pct.length > 0) rewards.push(blockRewards(b, pct));
  }
  if (lastHeader !== null) {
    const nextRules = rulesAt(chain.config, lastHeader.number + 1, lastHeader.timestamp);
    baseFees.push(qty(expectedBaseFee(lastHeader, chain.config, nextRules.op) ?? 0n));
    const nextExcess =
      lastHeader.excessBlobGas === null
        ? null
        : expectedExcessBlobGas(lastHeader, chain.config, nextRules.fork, lastHeader.timestamp);
    blobFees.push(qty(nextExcess === null ? 0n : headerBlobBaseFee(chain.config, nextExcess, lastHeader.timestamp)));
  }
  const out: Record<string, JsonValue> = { oldestBlock: qty(oldest) };
  if (pct.length > 0) out.reward = rewards;
  out.baseFeePerGas = baseFees;
  out.gasUsedRatio = ratios;
  out.baseFeePerBlobGas = blobFees;
  out.blobGasUsedRatio = blobRatios;
  return out;
}

/** geth `processBlock` rewards: gas-weighted percentiles of the effective tips. */
function blockRewards(b: DecodedBlock, pct: readonly number[]): JsonValue[] {
  if (b.txs.length === 0 || b.receipts === null) return pct.map(() => "0x0");
  const items: { tip: bigint; gas: number }[] = [];
  let prev = 0;
  for (let i = 0; i < b.txs.length; i++) {
    const cum = b.receipts[i].cumulativeGasUsed;
    items.push({ tip: effectiveTip(b.txs[i], b.header.baseFeePerGas), gas: cum - prev });
    prev = cum;
  }
  items.sort((a, c) => (a.tip < c.tip ? -1 : a.tip > c.tip ? 1 : 0));
  const out: JsonValue[] = [];
  let idx = 0;
  let sum = items[0].gas;
  for (const p of pct) {
    const threshold = (Number(b.header.gasUsed) * p) / 100;
    while (sum < threshold && idx < items.length - 1) {
      idx++;
      sum += items[idx].gas;
    }
    out.push(qty(items[idx].tip));
  }
  return out;
}
