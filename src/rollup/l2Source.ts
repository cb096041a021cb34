/**
 * What the rollup node reads from its execution client over the engine endpoint (`--l2`): L2 block
 * references (the L1 origin and sequence number come from the block's L1-attributes deposit; the
 * genesis block, which has none, takes the rollup config's L1 genesis) and output roots.
 *
 * Output root v0 (specs/protocol/proposals.md; op-stack.md §1.3):
 * keccak256(bytes32(0) ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash), the message passer's
 * (0x4200…0016) storage root taken from eth_getProof at the block.
 */
import { keccak256 } from "../crypto/keccak.js";
import { parseL1BlockInfo } from "../executor/op/l1BlockInfo.js";
import { concatBytes } from "../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import type { BlockId, L2BlockRef } from "./refs.js";
import type { RpcClient } from "./rpcClient.js";

export const L2_TO_L1_MESSAGE_PASSER = "0x4200000000000000000000000000000000000016";

/** An L2 block the node could not interpret (missing, or without a valid L1-attributes deposit). */
export class L2SourceError extends Error {
  override readonly name = "L2SourceError";
}

export interface L2Genesis {
  /** The L1 block the rollup's genesis is anchored to. */
  readonly l1: BlockId;
  /** The L2 genesis block. */
  readonly l2: BlockId;
}

export interface OutputV0 {
  readonly version: Uint8Array;
  readonly outputRoot: Uint8Array;
  readonly blockRef: L2BlockRef;
  readonly withdrawalStorageRoot: Uint8Array;
  readonly stateRoot: Uint8Array;
}

interface BlockJson {
  hash: string;
  number: string;
  parentHash: string;
  timestamp: string;
  stateRoot: string;
  transactions: { input?: string; type?: string }[];
}

/** bytes32(0): output root version 0. */
const OUTPUT_VERSION_V0 = new Uint8Array(32);

export function outputRootV0(stateRoot: Uint8Array, passerStorageRoot: Uint8Array, blockHash: Uint8Array): Uint8Array {
  return keccak256(concatBytes(OUTPUT_VERSION_V0, stateRoot, passerStorageRoot, blockHash));
}

export class L2Source {
  constructor(
    private readonly client: RpcClient,
    private readonly genesis: L2Genesis,
  ) {}

  /** The reference of the block at `tag` (latest, safe, finalized) or number; null when absent. */
  async blockRef(at: "latest" | "safe" | "finalized" | number): Promise<L2BlockRef | null> {
    const sel = typeof at === "number" ? `0x${at.toString(16)}` : at;
    const b = await this.client.call<BlockJson | null>("eth_getBlockByNumber", [sel, true]);
    return b === null ? null : this.refOf(b);
  }

  private refOf(b: BlockJson): L2BlockRef {
    const number = Number(BigInt(b.number));
    const base = {
      hash: hexToBytes(b.hash),
      number,
      parentHash: hexToBytes(b.parentHash),
      timestamp: Number(BigInt(b.timestamp)),
    };
    if (number === this.genesis.l2.number) return { ...base, l1origin: this.genesis.l1, sequenceNumber: 0 };
    const first = b.transactions[0];
    const info = first?.input === undefined || first.type !== "0x7e" ? null : parseL1BlockInfo(hexToBytes(first.input));
    if (info === null)
      throw new L2SourceError(`L2 block ${number} (${b.hash}) does not start with an L1-attributes deposit`);
    return {
      ...base,
      l1origin: { hash: info.hash, number: Number(info.number) },
      sequenceNumber: Number(info.sequenceNumber),
    };
  }

  /** optimism_outputAtBlock's output: the v0 output root of block `number`. */
  async outputAtBlock(number: number): Promise<OutputV0> {
    const b = await this.client.call<BlockJson | null>("eth_getBlockByNumber", [`0x${number.toString(16)}`, true]);
    if (b === null) throw new L2SourceError(`failed to get L2 block ref with sync status: block ${number} not found`);
    const ref = this.refOf(b);
    const proof = await this.client.call<{ storageHash: string }>("eth_getProof", [
      L2_TO_L1_MESSAGE_PASSER,
      [],
      bytesToHex(ref.hash),
    ]);
    const stateRoot = hexToBytes(b.stateRoot);
    const passerRoot = hexToBytes(proof.storageHash);
    return {
      version: OUTPUT_VERSION_V0,
      outputRoot: outputRootV0(stateRoot, passerRoot, ref.hash),
      blockRef: ref,
      withdrawalStorageRoot: passerRoot,
      stateRoot,
    };
  }
}
