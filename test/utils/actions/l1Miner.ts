/**
 * The action tests' L1 (op-e2e actions `L1Miner`): an in-process opal-exec L1 chain whose blocks the
 * test builds one at a time with the transactions it chooses, 12 s apart, on the head or on any
 * earlier block (an L1 reorg), with safe and finalized heads the test moves. The portal and the
 * system config are tiny log emitters: a call's calldata gives the topics and the data of the event
 * they emit, so a test writes `TransactionDeposited` and `ConfigUpdate` logs byte for byte.
 */
import { keccak256 } from "../../../src/crypto/keccak.js";
import { computeCellProofs, loadKzg } from "../../../src/crypto/kzg.js";
import {
  type DevAccount,
  devAccounts,
  type L1DevGenesisOptions,
  l1DevGenesis,
} from "../../../src/node/exec/devGenesis.js";
import { concatBytes } from "../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import type { L1BlockRef } from "../../../src/rollup/refs.js";
import { rulesAt } from "../../../src/spec/chainConfig.js";
import { Fork } from "../../../src/spec/forks.js";
import { kzgToVersionedHash } from "../../../src/tx/blobNetwork.js";
import { decodeTx, encodeTx } from "../../../src/tx/envelope.js";
import { signTx } from "../../../src/tx/signer.js";
import { type BlobTx, type FeeMarketTx, TxType } from "../../../src/tx/tx.js";
import { InProcessExec } from "../inProcessExec.js";

/** LOG4 emitter: calldata = topic0‖topic1‖topic2‖topic3‖data. */
const LOG4_EMITTER = hexToBytes("0x608036038060806000376060356040356020356000358460" + "00a400");
/** LOG3 emitter: calldata = topic0‖topic1‖topic2‖data. */
const LOG3_EMITTER = hexToBytes("0x60603603806060600037604035602035600035836000a300");

export const L1_BLOCK_TIME = 12;
export const PORTAL = hexToBytes("0x00000000000000000000000000000000000a11ce");
export const SYSTEM_CONFIG = hexToBytes("0x0000000000000000000000000000000000005c0f");
export const BATCH_INBOX = hexToBytes("0xff00000000000000000000000000000000000901");

const ZERO32 = new Uint8Array(32);

export class L1Miner {
  readonly exec: InProcessExec;
  readonly accounts: DevAccount[];
  private readonly nonces = new Map<string, bigint>();
  private safe: Uint8Array;
  private finalized: Uint8Array;

  /**
   * `extraAlloc`: more genesis accounts (address → geth alloc entry), e.g. contracts with storage;
   * `genesis`: options of the dev L1 genesis (Osaka at genesis unless told otherwise).
   */
  constructor(extraAlloc: Record<string, unknown> = {}, timestamp = 100, genesis: L1DevGenesisOptions = {}) {
    this.accounts = devAccounts();
    const g = l1DevGenesis(30_000_000n, this.accounts, genesis);
    const alloc = g.alloc as Record<string, unknown>;
    alloc[bytesToHex(PORTAL)] = { balance: "0x0", code: bytesToHex(LOG4_EMITTER) };
    alloc[bytesToHex(SYSTEM_CONFIG)] = { balance: "0x0", code: bytesToHex(LOG3_EMITTER) };
    for (const [addr, entry] of Object.entries(extraAlloc)) {
      alloc[addr] = { ...(alloc[addr] as Record<string, unknown> | undefined), ...(entry as Record<string, unknown>) };
    }
    g.timestamp = `0x${timestamp.toString(16)}`;
    this.exec = InProcessExec.create(g);
    this.safe = this.exec.chain.headBlockHash;
    this.finalized = this.safe;
  }

  get chainId(): bigint {
    return this.exec.chain.config.chainId;
  }

  /** The reference of the head, or of block `n` on the canonical chain. */
  headRef(): L1BlockRef {
    return this.refOf(this.exec.chain.head.number);
  }

  refOf(n: number): L1BlockRef {
    const h = this.exec.chain.store.canonicalHash(n);
    if (h === null) throw new Error(`no L1 block ${n}`);
    return this.refByHash(h);
  }

  refByHash(hash: Uint8Array): L1BlockRef {
    const header = this.exec.chain.store.header(hash);
    if (header === null) throw new Error(`no L1 block ${bytesToHex(hash)}`);
    return { hash, number: header.number, parentHash: header.parentHash, timestamp: header.timestamp };
  }

  /** A signed EIP-1559 tx from dev account `from` (nonces tracked per sender; reset with `resetNonce`). */
  tx(from: DevAccount, to: Uint8Array, data: Uint8Array, gas = 1_000_000n): Uint8Array {
    const key = bytesToHex(from.address);
    const nonce = this.nonces.get(key) ?? 0n;
    this.nonces.set(key, nonce + 1n);
    const unsigned: FeeMarketTx = {
      type: TxType.FeeMarket,
      chainId: this.chainId,
      nonce,
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerGas: 100_000_000_000n,
      gasLimit: gas,
      to,
      value: 0n,
      data,
      accessList: [],
      yParity: 0,
      r: 0n,
      s: 0n,
    };
    return encodeTx(signTx(unsigned, from.privateKey));
  }

  /**
   * A signed blob tx from `from` to `to` carrying `blobs` (no calldata), whose sidecars the L1 keeps as
   * its tx pool would (the network form of the head's fork: cell proofs from Osaka), so the block that
   * includes it can be built: the engine's blobs bundle reads them (EngineApi `blobs`).
   */
  blobTxWithSidecars(from: DevAccount, to: Uint8Array, blobs: readonly Uint8Array[]): Uint8Array {
    const store = this.exec.blobSidecars;
    if (store === null) throw new Error("this L1 keeps no blob sidecars");
    const kzg = loadKzg();
    const commitments = blobs.map((b) => kzg.blobToKzgCommitment(b));
    const raw = this.blobTx(from, to, commitments.map(kzgToVersionedHash));
    const tx = decodeTx(raw) as BlobTx;
    const h = this.exec.chain.head;
    const osaka = rulesAt(this.exec.chain.config, h.number, h.timestamp).fork >= Fork.Osaka;
    store.add({
      tx,
      wrapperVersion: osaka ? 1 : 0,
      blobs,
      commitments,
      proofs: osaka
        ? blobs.flatMap((b) => computeCellProofs(b))
        : blobs.map((b, i) => kzg.computeBlobKzgProof(b, commitments[i]!)),
    });
    return raw;
  }

  /**
   * A signed blob tx from `from` to `to` carrying blobs with these versioned hashes (no calldata), and
   * no sidecars: only for an L1 whose engine keeps none (a block with it cannot be built otherwise).
   */
  blobTx(from: DevAccount, to: Uint8Array, versionedHashes: readonly Uint8Array[]): Uint8Array {
    const key = bytesToHex(from.address);
    const nonce = this.nonces.get(key) ?? 0n;
    this.nonces.set(key, nonce + 1n);
    const unsigned: BlobTx = {
      type: TxType.Blob,
      chainId: this.chainId,
      nonce,
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerGas: 100_000_000_000n,
      gasLimit: 100_000n,
      to,
      value: 0n,
      data: new Uint8Array(0),
      accessList: [],
      maxFeePerBlobGas: 1_000_000_000n,
      blobVersionedHashes: versionedHashes,
      yParity: 0,
      r: 0n,
      s: 0n,
    };
    return encodeTx(signTx(unsigned, from.privateKey));
  }

  /** Sets the next nonce of `from` (after a reorg dropped some of its txs). */
  setNonce(from: DevAccount, nonce: bigint): void {
    this.nonces.set(bytesToHex(from.address), nonce);
  }

  /** Builds a block with exactly `txs` on the head (or on `parent`) and makes it the head. */
  async mine(txs: readonly Uint8Array[] = [], parent?: Uint8Array): Promise<L1BlockRef> {
    const parentHash = parent ?? this.headRef().hash;
    const p = this.refByHash(parentHash);
    const timestamp = p.timestamp + L1_BLOCK_TIME;
    const rpc = this.exec.rpc;
    const env = await rpc.call<{ executionPayload: Record<string, unknown>; executionRequests?: string[] }>(
      "testing_buildBlockV1",
      [
        bytesToHex(parentHash),
        {
          timestamp: `0x${timestamp.toString(16)}`,
          prevRandao: bytesToHex(keccak256(concatBytes(parentHash, Uint8Array.of(1)))),
          suggestedFeeRecipient: `0x${"00".repeat(20)}`,
          withdrawals: [],
          parentBeaconBlockRoot: bytesToHex(keccak256(parentHash)),
        },
        txs.map(bytesToHex),
      ],
    );
    const payload = env.executionPayload;
    const blobHashes: string[] = [];
    for (const t of txs) {
      const tx = decodeTx(t);
      if (tx.type === TxType.Blob) for (const h of tx.blobVersionedHashes) blobHashes.push(bytesToHex(h));
    }
    const st = await rpc.call<{ status: string; validationError?: string }>("engine_newPayloadV4", [
      payload,
      blobHashes,
      bytesToHex(keccak256(parentHash)),
      env.executionRequests ?? [],
    ]);
    if (st.status !== "VALID") throw new Error(`L1 block refused: ${st.status} ${st.validationError ?? ""}`);
    const hash = hexToBytes(payload.blockHash as string);
    await this.forkchoice(hash);
    return this.refByHash(hash);
  }

  /** Moves the head (e.g. back onto a shorter fork) and keeps safe/finalized. */
  async forkchoice(head: Uint8Array): Promise<void> {
    const r = await this.exec.rpc.call<{ payloadStatus: { status: string } }>("engine_forkchoiceUpdatedV3", [
      {
        headBlockHash: bytesToHex(head),
        safeBlockHash: bytesToHex(this.safe),
        finalizedBlockHash: bytesToHex(this.finalized),
      },
      null,
    ]);
    if (r.payloadStatus.status !== "VALID") throw new Error(`L1 forkchoice refused: ${r.payloadStatus.status}`);
  }

  /** Marks canonical block `n` safe and finalized. */
  async finalize(n: number): Promise<void> {
    this.safe = this.refOf(n).hash;
    this.finalized = this.safe;
    await this.forkchoice(this.headRef().hash);
  }

  /** Calldata for the portal emitter: a TransactionDeposited log (version 0) with `opaque` data. */
  static depositCall(from: Uint8Array, to: Uint8Array, opaque: Uint8Array, topic0: Uint8Array): Uint8Array {
    const word = (a: Uint8Array): Uint8Array => concatBytes(new Uint8Array(32 - a.length), a);
    return concatBytes(topic0, word(from), word(to), ZERO32, abiBytes(opaque));
  }

  /** Calldata for the system-config emitter: a ConfigUpdate log (version 0) of `updateType`. */
  static configUpdateCall(updateType: number, payload: Uint8Array, topic0: Uint8Array): Uint8Array {
    const t = new Uint8Array(32);
    t[31] = updateType;
    return concatBytes(topic0, ZERO32, t, abiBytes(payload));
  }
}

/** ABI encoding of one `bytes` value: offset 0x20, length, data padded to 32. */
export function abiBytes(b: Uint8Array): Uint8Array {
  const out = new Uint8Array(64 + Math.ceil(b.length / 32) * 32);
  out[31] = 0x20;
  new DataView(out.buffer).setUint32(60, b.length);
  out.set(b, 64);
  return out;
}
