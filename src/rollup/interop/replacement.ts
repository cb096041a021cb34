/**
 * Replacing an invalidated block (specs/interop/derivation.md "Replacing Invalid Blocks"; op-node
 * rollup/interop/managed/attributes.go): a block the supervisor found to hold an invalid executing
 * message is rebuilt on the same parent with the same inputs — timestamp, prevRandao, fee recipient,
 * withdrawals, parent beacon root, gas limit, EIP-1559 parameters (and Jovian's minimum base fee) as
 * its extraData holds them — but only its deposit transactions, followed by the *optimistic block
 * deposit*:
 *
 * - from `0xdeaddeaddeaddeaddeaddeaddeaddeaddead0002`, to the zero address, mint 0, value 0, gas
 *   36,000, not a system tx;
 * - data: the invalidated block's output-root preimage, `bytes32(0) ‖ stateRoot ‖
 *   messagePasserStorageRoot ‖ blockHash` (the storage root is the header's withdrawalsRoot, Isthmus);
 * - sourceHash: `keccak256(uint256(4) ‖ outputRoot)`, the invalidated-block source-hash domain.
 */
import { keccak256 } from "../../crypto/keccak.js";
import { concatBytes, equalBytes } from "../../primitives/bytes.js";
import { hexToBytes } from "../../primitives/hex.js";
import { DepositSourceDomain, depositSourceHash } from "../../tx/depositSourceHash.js";
import { decodeTx, encodeTx } from "../../tx/envelope.js";
import { type DepositTx, TxType } from "../../tx/tx.js";
import { isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { PayloadAttributes } from "../derive/attributes.js";
import type { PayloadEnvelope } from "../engine/engineClient.js";

/** The optimistic block depositor: the L1-attributes depositor plus one. */
export const OPTIMISTIC_BLOCK_DEPOSITOR = hexToBytes("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0002");
/** Deposit source-hash domain of the optimistic block deposit. */
export const INVALIDATED_BLOCK_SOURCE_DOMAIN = DepositSourceDomain.InvalidatedBlock;
export const OPTIMISTIC_BLOCK_DEPOSIT_GAS = 36_000n;

const DEPOSIT_TX_TYPE = 0x7e;
const OUTPUT_V0_PREIMAGE_LENGTH = 128;

/** The parts of an output root v0 (op-service eth.OutputV0). */
export interface OutputV0Parts {
  readonly stateRoot: Uint8Array;
  readonly messagePasserStorageRoot: Uint8Array;
  readonly blockHash: Uint8Array;
}

/** `bytes32(0) ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash`. */
export function outputV0Preimage(o: OutputV0Parts): Uint8Array {
  return concatBytes(new Uint8Array(32), o.stateRoot, o.messagePasserStorageRoot, o.blockHash);
}

/** keccak256(uint256(4) ‖ outputRoot). */
export function invalidatedBlockSourceHash(outputRoot: Uint8Array): Uint8Array {
  return depositSourceHash(INVALIDATED_BLOCK_SOURCE_DOMAIN, outputRoot);
}

/** The optimistic block deposit for an invalidated block's output. */
export function optimisticBlockDepositTx(o: OutputV0Parts): DepositTx {
  const preimage = outputV0Preimage(o);
  return {
    type: TxType.Deposit,
    sourceHash: invalidatedBlockSourceHash(keccak256(preimage)),
    from: OPTIMISTIC_BLOCK_DEPOSITOR,
    to: new Uint8Array(20),
    mint: 0n,
    value: 0n,
    gasLimit: OPTIMISTIC_BLOCK_DEPOSIT_GAS,
    isSystemTx: false,
    data: preimage,
  };
}

/**
 * The invalidated block's output from a replacement block's transactions (the last one must be the
 * optimistic block deposit); throws when they hold none.
 */
export function decodeOptimisticBlockDeposit(txs: readonly Uint8Array[]): OutputV0Parts {
  const last = txs.at(-1);
  if (last === undefined) throw new Error("expected block-replacement tx and more");
  const tx = decodeTx(last);
  if (tx.type !== TxType.Deposit) throw new Error(`expected deposit tx type, but got ${tx.type}`);
  if (!equalBytes(tx.from, OPTIMISTIC_BLOCK_DEPOSITOR)) throw new Error("expected the optimistic block depositor");
  const d = tx.data;
  if (d.length !== OUTPUT_V0_PREIMAGE_LENGTH || !d.subarray(0, 32).every((b) => b === 0)) {
    throw new Error("expected an output v0 preimage");
  }
  return { stateRoot: d.slice(32, 64), messagePasserStorageRoot: d.slice(64, 96), blockHash: d.slice(96, 128) };
}

function field(p: Record<string, unknown>, k: string): string {
  const v = p[k];
  if (typeof v !== "string") throw new Error(`invalidated block: payload field ${k} missing`);
  return v;
}

/** The attributes that rebuild `env`'s block with its deposits and the optimistic block deposit. */
export function attributesToReplaceInvalidBlock(cfg: RollupConfig, env: PayloadEnvelope): PayloadAttributes {
  const p = env.executionPayload;
  const txs = (p.transactions as string[] | undefined) ?? [];
  const deposits = txs.map((t) => hexToBytes(t)).filter((t) => t.length > 0 && t[0] === DEPOSIT_TX_TYPE);
  if (typeof p.withdrawalsRoot !== "string") {
    throw new Error("invalidated block: no withdrawalsRoot (the message passer's storage root, from Isthmus)");
  }
  const optimistic = optimisticBlockDepositTx({
    stateRoot: hexToBytes(field(p, "stateRoot")),
    messagePasserStorageRoot: hexToBytes(p.withdrawalsRoot),
    blockHash: env.blockHash,
  });
  const t = env.timestamp;
  const extra = hexToBytes(field(p, "extraData"));
  let eip1559Params: Uint8Array | null = null;
  let minBaseFee: bigint | null = null;
  if (isForkActive(cfg, "holocene", t)) {
    // The engine takes the inner parameters, not the extraData: denominator ‖ elasticity.
    if (extra.length < 9) throw new Error(`invalidated block: extraData of ${extra.length} bytes`);
    eip1559Params = extra.slice(1, 9);
    if (isForkActive(cfg, "jovian", t)) {
      if (extra.length !== 17) throw new Error(`invalidated block: Jovian extraData of ${extra.length} bytes`);
      minBaseFee = new DataView(extra.buffer, extra.byteOffset).getBigUint64(9);
    }
  }
  return {
    timestamp: t,
    prevRandao: hexToBytes(field(p, "prevRandao")),
    suggestedFeeRecipient: hexToBytes(field(p, "feeRecipient")),
    transactions: [...deposits, encodeTx(optimistic)],
    noTxPool: true,
    gasLimit: BigInt(field(p, "gasLimit")),
    withdrawals: Array.isArray(p.withdrawals) ? [] : null,
    parentBeaconBlockRoot: env.parentBeaconBlockRoot === null ? null : hexToBytes(env.parentBeaconBlockRoot),
    eip1559Params,
    minBaseFee,
  };
}
