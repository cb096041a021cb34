/**
 * The batcher's L1 transaction manager (op-service txmgr, reduced to what a batcher needs): signs
 * calldata (EIP-1559) or blob (EIP-4844, sent in the network form with KZG commitments and proofs)
 * transactions from one key with its own nonce count, prices them from the latest block (base fee
 * × 2 + tip; blob base fee × 2), waits for inclusion and confirmations, and when a transaction is
 * not mined within the resubmission timeout sends it again with the same nonce and fees bumped by
 * `feeBumpPercent` (a replacement the pool accepts). A reverted or repeatedly unmineable
 * transaction is an error for the caller, who rebuilds from the rollup's safe head.
 *
 * Blob proofs: from the L1's Osaka on, the wrapper carries EIP-7594 cell proofs (version 1), before
 * it one blob proof per blob (version 0); geth's pool takes only the version of its head's fork.
 * op-batcher switches at `--txmgr.cell-proof-time`, by default the known L1's Osaka time (op-service
 * txmgr cli.go `fallbackToOsakaCellProofTimeIfKnown`); here `cellProofTime` is that option and, left
 * out, the L1 says its own Osaka time through eth_config (EIP-7910), so a dev L1 needs no setting.
 */
import { computeCellProofs, loadKzg } from "../crypto/kzg.js";
import { privateKeyToAddress } from "../crypto/secp256k1.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { encodeBlob } from "../rollup/derive/blobCodec.js";
import type { RpcTransport } from "../rollup/transport/rpcTransport.js";
import { encodeBlobTxNetwork, kzgToVersionedHash } from "../tx/blobNetwork.js";
import { encodeTx } from "../tx/envelope.js";
import { signTx } from "../tx/signer.js";
import { type BlobTx, type FeeMarketTx, TxType } from "../tx/tx.js";
import { timerDelay } from "../util/timers.js";

export interface TxSenderOptions {
  readonly privateKey: Uint8Array;
  readonly chainId: bigint;
  readonly numConfirmations: number;
  readonly resubmissionTimeoutMs: number;
  readonly feeBumpPercent: number;
  /** Attempts with bumped fees before giving up. */
  readonly maxAttempts: number;
  readonly pollMs: number;
  /**
   * The L1 time from which blob txs carry cell proofs (op-batcher --txmgr.cell-proof-time), compared
   * with the latest L1 block's; null: never. Left out: the L1's Osaka time (`l1OsakaTime`).
   */
  readonly cellProofTime?: number | null;
}

/**
 * Osaka activation of the L1s op-service knows (eth.L1ChainConfigByChainID; times from geth v1.16.7
 * params/config.go): the fallback when the L1 does not serve eth_config.
 */
const KNOWN_L1_OSAKA: ReadonlyMap<bigint, number> = new Map([
  [1n, 1764798551],
  [11155111n, 1760427360],
  [17000n, 1759308480],
  [560048n, 1761677592],
]);

interface EthConfigFork {
  activationTime?: number;
  precompiles?: Record<string, string>;
}

/**
 * When `l1` activates Osaka, from its eth_config (EIP-7910: `current`, `next`, `last` fork configs):
 * the first config listing the P256VERIFY precompile, which Osaka brings to L1 (EIP-7951); a current
 * config with it means Osaka is active now (its activation time may be a later BPO fork's, still
 * past). null: no Osaka scheduled. Without eth_config: `KNOWN_L1_OSAKA`, else null.
 */
export async function l1OsakaTime(l1: RpcTransport, chainId: bigint): Promise<number | null> {
  let cfg: { current?: EthConfigFork | null; next?: EthConfigFork | null; last?: EthConfigFork | null };
  try {
    cfg = await l1.call("eth_config");
  } catch {
    return KNOWN_L1_OSAKA.get(chainId) ?? null;
  }
  for (const f of [cfg.current, cfg.next, cfg.last]) {
    if (f?.precompiles !== undefined && "P256VERIFY" in f.precompiles) return f.activationTime ?? 0;
  }
  return null;
}

export class TxSendError extends Error {
  override readonly name = "TxSendError";
}

interface ReceiptJson {
  status: string;
  blockNumber: string;
  blockHash: string;
}

/** Waits `ms` (a positive duration; beyond Node's longest timer, that timer). */
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, timerDelay(ms)));
const q = (n: bigint | number): string => `0x${n.toString(16)}`;

export class TxSender {
  readonly address: Uint8Array;
  private nonce: bigint | null = null;
  /** `opts.cellProofTime`, or the L1's Osaka time once read (undefined: not read yet). */
  private cellProofTime: number | null | undefined;

  constructor(
    private readonly l1: RpcTransport,
    private readonly opts: TxSenderOptions,
  ) {
    this.address = privateKeyToAddress(opts.privateKey);
    this.cellProofTime = opts.cellProofTime;
  }

  /** Forget the nonce (after a failure: it is read again from the pending state). */
  resetNonce(): void {
    this.nonce = null;
  }

  private async nextNonce(): Promise<bigint> {
    if (this.nonce === null) {
      this.nonce = BigInt(await this.l1.call<string>("eth_getTransactionCount", [bytesToHex(this.address), "pending"]));
    }
    return this.nonce;
  }

  private async fees(attempt: number): Promise<{ tip: bigint; maxFee: bigint; blobFee: bigint; headTime: number }> {
    const block = await this.l1.call<{ baseFeePerGas?: string; timestamp?: string }>("eth_getBlockByNumber", [
      "latest",
      false,
    ]);
    const base = BigInt(block.baseFeePerGas ?? "0x0");
    let tip = BigInt(await this.l1.call<string>("eth_maxPriorityFeePerGas"));
    if (tip < 1_000_000n) tip = 1_000_000n;
    let blobFee = 1n;
    try {
      blobFee = BigInt(await this.l1.call<string>("eth_blobBaseFee"));
    } catch {
      // pre-Cancun L1: no blob fee
    }
    const bump = (v: bigint): bigint => {
      let out = v;
      for (let i = 0; i < attempt; i++) out = (out * BigInt(100 + this.opts.feeBumpPercent)) / 100n + 1n;
      return out;
    };
    const headTime = Number(BigInt(block.timestamp ?? "0x0"));
    return { tip: bump(tip), maxFee: bump(2n * base + tip), blobFee: bump(2n * blobFee), headTime };
  }

  /** Whether a blob tx sent now carries cell proofs: the latest L1 block is at the cell proof time. */
  private async useCellProofs(headTime: number): Promise<boolean> {
    if (this.cellProofTime === undefined) this.cellProofTime = await l1OsakaTime(this.l1, this.opts.chainId);
    return this.cellProofTime !== null && headTime >= this.cellProofTime;
  }

  /** Sends `data` as calldata to `to` and waits for it; returns the L1 block it landed in. */
  sendCalldata(to: Uint8Array, data: Uint8Array): Promise<{ blockNumber: number; hash: string }> {
    return this.send(async (nonce, attempt) => {
      const f = await this.fees(attempt);
      const gas = BigInt(
        await this.l1.call<string>("eth_estimateGas", [
          { from: bytesToHex(this.address), to: bytesToHex(to), data: bytesToHex(data) },
        ]),
      );
      const tx: FeeMarketTx = {
        type: TxType.FeeMarket,
        chainId: this.opts.chainId,
        nonce,
        maxPriorityFeePerGas: f.tip,
        maxFeePerGas: f.maxFee,
        gasLimit: (gas * 12n) / 10n,
        to,
        value: 0n,
        data,
        accessList: [],
        yParity: 0,
        r: 0n,
        s: 0n,
      };
      return encodeTx(signTx(tx, this.opts.privateKey));
    });
  }

  /**
   * Sends each payload as one blob of a type-3 tx to `to` and waits for it. Each attempt picks the
   * wrapper version for the L1 head it prices from; each form's proofs are computed once.
   */
  sendBlobs(to: Uint8Array, payloads: readonly Uint8Array[]): Promise<{ blockNumber: number; hash: string }> {
    const kzg = loadKzg();
    const blobs = payloads.map((p) => encodeBlob(p));
    const commitments = blobs.map((b) => kzg.blobToKzgCommitment(b));
    const hashes = commitments.map((c) => kzgToVersionedHash(c));
    let blobProofs: Uint8Array[] | null = null;
    let cellProofs: Uint8Array[] | null = null;
    return this.send(async (nonce, attempt) => {
      const f = await this.fees(attempt);
      const cells = await this.useCellProofs(f.headTime);
      let proofs: Uint8Array[];
      if (cells) {
        cellProofs ??= blobs.flatMap((b) => computeCellProofs(b));
        proofs = cellProofs;
      } else {
        blobProofs ??= blobs.map((b, i) => kzg.computeBlobKzgProof(b, commitments[i]!));
        proofs = blobProofs;
      }
      const tx: BlobTx = {
        type: TxType.Blob,
        chainId: this.opts.chainId,
        nonce,
        maxPriorityFeePerGas: f.tip,
        maxFeePerGas: f.maxFee,
        gasLimit: 21_000n,
        to,
        value: 0n,
        data: new Uint8Array(0),
        accessList: [],
        maxFeePerBlobGas: f.blobFee,
        blobVersionedHashes: hashes,
        yParity: 0,
        r: 0n,
        s: 0n,
      };
      return encodeBlobTxNetwork({
        tx: signTx(tx, this.opts.privateKey),
        wrapperVersion: cells ? 1 : 0,
        blobs,
        commitments,
        proofs,
      });
    });
  }

  private async send(
    build: (nonce: bigint, attempt: number) => Promise<Uint8Array>,
  ): Promise<{ blockNumber: number; hash: string }> {
    const nonce = await this.nextNonce();
    const sent: string[] = [];
    for (let attempt = 0; attempt < this.opts.maxAttempts; attempt++) {
      const raw = await build(nonce, attempt);
      try {
        sent.push(await this.l1.call<string>("eth_sendRawTransaction", [bytesToHex(raw)]));
      } catch (e) {
        const msg = (e as Error).message;
        // An earlier attempt was mined meanwhile: its receipt decides.
        if (!/nonce too low|already known/i.test(msg) || sent.length === 0) {
          this.resetNonce();
          throw new TxSendError(`L1 refused the batcher tx (nonce ${nonce}): ${msg}`);
        }
      }
      const deadline = Date.now() + this.opts.resubmissionTimeoutMs;
      while (Date.now() < deadline) {
        for (const h of sent) {
          const r = await this.l1.call<ReceiptJson | null>("eth_getTransactionReceipt", [h]);
          if (r === null) continue;
          if (r.status !== "0x1") {
            this.resetNonce();
            throw new TxSendError(`batcher tx ${h} reverted`);
          }
          this.nonce = nonce + 1n;
          await this.confirm(Number(BigInt(r.blockNumber)), hexToBytes(r.blockHash));
          return { blockNumber: Number(BigInt(r.blockNumber)), hash: h };
        }
        await sleep(this.opts.pollMs);
      }
    }
    this.resetNonce();
    throw new TxSendError(`batcher tx with nonce ${nonce} not mined after ${this.opts.maxAttempts} attempts`);
  }

  /** Waits until `numConfirmations` blocks (the inclusion block counts) are on the canonical chain. */
  private async confirm(blockNumber: number, blockHash: Uint8Array): Promise<void> {
    for (;;) {
      const head = Number(BigInt(await this.l1.call<string>("eth_blockNumber")));
      if (head - blockNumber + 1 >= this.opts.numConfirmations) {
        const b = await this.l1.call<{ hash: string } | null>("eth_getBlockByNumber", [q(blockNumber), false]);
        if (b === null || b.hash !== bytesToHex(blockHash))
          throw new TxSendError(`batcher tx reorged out of block ${blockNumber}`);
        return;
      }
      await sleep(this.opts.pollMs);
    }
  }
}
