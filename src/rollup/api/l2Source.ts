/**
 * What the rollup node reads from its execution client over the engine endpoint (`--l2`): L2 block
 * references (the L1 origin and sequence number come from the block's L1-attributes deposit; the
 * genesis block, which has none, takes the rollup config's L1 genesis) and output roots.
 *
 * Output root v0 (specs/protocol/proposals.md; op-stack.md §1.3):
 * keccak256(bytes32(0) ‖ stateRoot ‖ messagePasserStorageRoot ‖ blockHash), the message passer's
 * (0x4200…0016) storage root taken from eth_getProof at the block.
 */
import { headerHash } from "../../block/header.js";
import { keccak256 } from "../../crypto/keccak.js";
import { PayloadError, type PayloadJson, payloadToBlock } from "../../engine/payload.js";
import { concatBytes, equalBytes } from "../../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import { parseL1BlockInfo } from "../../tx/l1BlockInfo.js";
import { isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { BlockId, L2BlockRef } from "../refs.js";
import type { RpcTransport } from "../transport/rpcTransport.js";

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
  withdrawalsRoot?: string | null;
  transactions: { input?: string; type?: string }[];
}

/** bytes32(0): output root version 0. */
const OUTPUT_VERSION_V0 = new Uint8Array(32);

export function outputRootV0(stateRoot: Uint8Array, passerStorageRoot: Uint8Array, blockHash: Uint8Array): Uint8Array {
  return keccak256(concatBytes(OUTPUT_VERSION_V0, stateRoot, passerStorageRoot, blockHash));
}

/** An `ExecutionPayloadEnvelope` of admin_postUnsafePayload / gossip: the payload and the V3+ beacon root. */
export interface PayloadEnvelopeJson {
  readonly executionPayload: PayloadJson;
  readonly parentBeaconBlockRoot?: string | null;
}

/** The Engine API version of a payload at `timestamp`: V4 from Isthmus, V3 Ecotone, V2 Canyon, else V1. */
export function payloadVersionAt(cfg: RollupConfig, timestamp: number): number {
  if (isForkActive(cfg, "isthmus", timestamp)) return 4;
  if (isForkActive(cfg, "ecotone", timestamp)) return 3;
  if (isForkActive(cfg, "canyon", timestamp)) return 2;
  return 1;
}

/**
 * Checks that an envelope's payload hashes to its `blockHash` (op-node recomputes it before it trusts
 * a payload from the admin API or gossip). Returns the payload version to use, or throws
 * L2SourceError naming the problem.
 */
export function checkPayloadEnvelope(
  cfg: RollupConfig,
  env: unknown,
): { version: number; envelope: PayloadEnvelopeJson } {
  if (env === null || typeof env !== "object" || Array.isArray(env))
    throw new L2SourceError("envelope: want an object");
  const e = env as PayloadEnvelopeJson;
  const p = e.executionPayload;
  if (p === null || typeof p !== "object") throw new L2SourceError("envelope: missing executionPayload");
  const ts =
    typeof p.timestamp === "string" && /^0x[0-9a-fA-F]+$/.test(p.timestamp) ? Number(BigInt(p.timestamp)) : null;
  if (ts === null) throw new L2SourceError("executionPayload.timestamp: want a quantity");
  const version = payloadVersionAt(cfg, ts);
  const root = e.parentBeaconBlockRoot;
  if (version >= 3 && (typeof root !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(root))) {
    throw new L2SourceError("parentBeaconBlockRoot: required from Ecotone");
  }
  let decoded: ReturnType<typeof payloadToBlock>;
  try {
    decoded = payloadToBlock(
      p,
      version,
      version >= 3 ? hexToBytes(root as string) : null,
      version >= 4 ? [] : null,
      true,
    );
  } catch (err) {
    if (err instanceof PayloadError) throw new L2SourceError(`invalid payload: ${err.message}`);
    throw err;
  }
  const actual = headerHash(decoded.header);
  if (!equalBytes(actual, decoded.blockHash)) {
    throw new L2SourceError(
      `payload has bad block hash: claimed ${bytesToHex(decoded.blockHash)}, actual ${bytesToHex(actual)}`,
    );
  }
  return { version, envelope: e };
}

export class L2Source {
  constructor(
    private readonly client: RpcTransport,
    private readonly genesis: L2Genesis,
    /**
     * The rollup config and `--fetch-withdrawal-root-from-state`: from Isthmus the header's
     * withdrawalsRoot is the message passer's storage root, read from there unless the flag asks for
     * the state (eth_getProof, the pre-Isthmus way). Without a config the state is always used.
     */
    private readonly output: { cfg: RollupConfig; fromState: boolean } | null = null,
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

  /**
   * Inserts a checked envelope as the new unsafe head (engine_newPayload, then
   * engine_forkchoiceUpdated with the given safe and finalized blocks); throws L2SourceError when
   * the engine refuses the payload.
   */
  async insertUnsafePayload(
    version: number,
    env: PayloadEnvelopeJson,
    safe: Uint8Array,
    finalized: Uint8Array,
  ): Promise<void> {
    const p = env.executionPayload;
    const params: unknown[] = [p];
    if (version >= 3) params.push([], env.parentBeaconBlockRoot);
    if (version >= 4) params.push([]);
    const status = await this.client.call<{ status: string; validationError?: string | null }>(
      `engine_newPayloadV${version}`,
      params,
    );
    if (status.status !== "VALID") {
      throw new L2SourceError(
        `engine refused the payload: ${status.status}${status.validationError ? ` (${status.validationError})` : ""}`,
      );
    }
    const fcu = await this.client.call<{ payloadStatus: { status: string; validationError?: string | null } }>(
      `engine_forkchoiceUpdatedV${Math.min(version, 3)}`,
      [
        { headBlockHash: p.blockHash, safeBlockHash: bytesToHex(safe), finalizedBlockHash: bytesToHex(finalized) },
        null,
      ],
    );
    if (fcu.payloadStatus.status !== "VALID") {
      throw new L2SourceError(`engine refused the forkchoice update: ${fcu.payloadStatus.status}`);
    }
  }

  /** optimism_outputAtBlock's output: the v0 output root of block `number`. */
  async outputAtBlock(number: number): Promise<OutputV0> {
    const b = await this.client.call<BlockJson | null>("eth_getBlockByNumber", [`0x${number.toString(16)}`, true]);
    if (b === null) throw new L2SourceError(`failed to get L2 block ref with sync status: block ${number} not found`);
    const ref = this.refOf(b);
    const stateRoot = hexToBytes(b.stateRoot);
    let passerRoot: Uint8Array;
    const o = this.output;
    if (o !== null && !o.fromState && isForkActive(o.cfg, "isthmus", ref.timestamp) && b.withdrawalsRoot) {
      passerRoot = hexToBytes(b.withdrawalsRoot);
    } else {
      const proof = await this.client.call<{ storageHash: string }>("eth_getProof", [
        L2_TO_L1_MESSAGE_PASSER,
        [],
        bytesToHex(ref.hash),
      ]);
      passerRoot = hexToBytes(proof.storageHash);
    }
    return {
      version: OUTPUT_VERSION_V0,
      outputRoot: outputRootV0(stateRoot, passerRoot, ref.hash),
      blockRef: ref,
      withdrawalStorageRoot: passerRoot,
      stateRoot,
    };
  }
}
