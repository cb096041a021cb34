/**
 * The `eth` Status handshake's content: our Status built from the chain (network id, genesis, the
 * EIP-2124 fork id with the OP forks of src/spec/forkId.ts, eth/69's block range), and the checks of
 * the peer's Status with geth's error texts (eth/protocols/eth/handshake.go readStatus68/69, core/forkid
 * `newFilter`).
 */

import type { Header } from "../../block/header.js";
import type { ChainStore } from "../../chain/chainStore.js";
import { equalBytes } from "../../primitives/bytes.js";
import { crc32 } from "../../primitives/crc32.js";
import { bytesToHexRaw } from "../../primitives/hex.js";
import type { ChainConfig } from "../../spec/chainConfig.js";
import { type ForkId, type ForkPoints, forkIdAt, forkIdGenesisHash, forkPoints } from "../../spec/forkId.js";
import { ETH68, EthMsg, type EthVersion, type Status } from "./messages.js";

/** What a Status is built from; `Blockchain` satisfies it. */
export interface StatusChain {
  readonly config: ChainConfig;
  readonly store: ChainStore;
  readonly head: Header;
  readonly headBlockHash: Uint8Array;
}

/** The chain's first block as the handshake sees it. */
export interface ChainGenesis {
  /** The hash peers expect in Status and checksum in the fork id (OP Mainnet: the legacy block 0). */
  readonly hash: Uint8Array;
  readonly number: number;
  readonly timestamp: number;
}

/** Finds the first stored canonical block: block 0, or the Bedrock block of a chain started there. */
export function chainGenesis(chain: Pick<StatusChain, "config" | "store">): ChainGenesis {
  let number = 0;
  let hash = chain.store.canonicalHash(0);
  if (hash === null && chain.config.bedrockBlock !== null) {
    number = chain.config.bedrockBlock;
    hash = chain.store.canonicalHash(number);
  }
  if (hash === null) throw new Error("chain has no genesis block in its canonical index");
  const header = chain.store.header(hash);
  if (header === null) throw new Error("chain is missing its genesis header");
  return { hash: forkIdGenesisHash(chain.config, number, hash), number, timestamp: header.timestamp };
}

/** Why a peer's Status was refused; `message` is geth's text (the disconnect detail). */
export type StatusErrorCode =
  | "NETWORK_ID_MISMATCH"
  | "PROTOCOL_VERSION_MISMATCH"
  | "GENESIS_MISMATCH"
  | "FORK_ID_REJECTED"
  | "INVALID_BLOCK_RANGE";

export interface StatusError {
  readonly code: StatusErrorCode;
  readonly message: string;
}

/** core/forkid errors. */
export const FORKID_REMOTE_STALE = "remote needs update";
export const FORKID_LOCAL_INCOMPATIBLE = "local incompatible or needs update";

// SPEC: geth core/forkid timestampThreshold: a FORK_NEXT above it is a timestamp (EIP-6122).
const TIMESTAMP_THRESHOLD = 1438269973;

/**
 * geth `forkid.newFilter`: checks a remote fork id against our fork points and head. Returns null
 * (compatible) or the core/forkid error text. Rules 1–4 of EIP-2124, with time forks (EIP-6122).
 */
export class ForkFilter {
  private readonly forks: number[];
  private readonly blockForks: number;
  private readonly sums: Uint8Array[];

  constructor(genesisHash: Uint8Array, points: ForkPoints) {
    this.forks = [...points.blocks, ...points.times];
    const sums: Uint8Array[] = [be32(crc32(genesisHash))];
    let crc = crc32(genesisHash);
    const u64 = new Uint8Array(8);
    const view = new DataView(u64.buffer);
    for (const f of this.forks) {
      view.setUint32(0, Math.floor(f / 0x1_0000_0000));
      view.setUint32(4, f >>> 0);
      crc = crc32(u64, crc);
      sums.push(be32(crc));
    }
    this.sums = sums;
    // Sentinels: the last fork is never passed; in purely block-based schedules the sentinel stays a block.
    this.forks.push(Number.POSITIVE_INFINITY);
    this.blockForks = points.times.length === 0 ? points.blocks.length + 1 : points.blocks.length;
  }

  check(id: ForkId, headNumber: number, headTime: number): string | null {
    const { forks, sums } = this;
    for (let i = 0; i < forks.length; i++) {
      const head = i < this.blockForks ? headNumber : headTime;
      if (head >= forks[i]) continue;
      // Rule 1: same fork state.
      if (equalBytes(sums[i], id.hash)) {
        // 1a: a fork the remote announces is already passed here.
        if (id.next > 0 && (head >= id.next || (id.next > TIMESTAMP_THRESHOLD && headTime >= id.next))) {
          return FORKID_LOCAL_INCOMPATIBLE;
        }
        return null;
      }
      // Rule 2: remote is a subset (syncing); its next fork must be our following one.
      for (let j = 0; j < i; j++) {
        if (equalBytes(sums[j], id.hash)) return forks[j] !== id.next ? FORKID_REMOTE_STALE : null;
      }
      // Rule 3: remote is a superset (we are syncing).
      for (let j = i + 1; j < sums.length; j++) if (equalBytes(sums[j], id.hash)) return null;
      // Rule 4.
      return FORKID_LOCAL_INCOMPATIBLE;
    }
    return null; // unreachable: the sentinel is never passed (geth: "Impossible fork ID validation")
  }
}

function be32(crc: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, crc >>> 0);
  return out;
}

/** Our side of the handshake for one chain: builds Status messages and checks the peer's. */
export class StatusProvider {
  readonly genesis: ChainGenesis;
  readonly networkId: bigint;
  private readonly points: ForkPoints;
  private readonly filter: ForkFilter;

  /** `networkId`: op-geth's `--networkid`, defaulting to the chain id. */
  constructor(
    private readonly chain: StatusChain,
    opts: { readonly networkId?: bigint } = {},
  ) {
    this.genesis = chainGenesis(chain);
    this.networkId = opts.networkId ?? chain.config.chainId;
    this.points = forkPoints(chain.config, this.genesis.timestamp);
    this.filter = new ForkFilter(this.genesis.hash, this.points);
  }

  forkId(): ForkId {
    const h = this.chain.head;
    return forkIdAt(this.genesis.hash, this.points, h.number, h.timestamp);
  }

  /** Our Status for `version`. eth/69's range: every block from genesis is served (no pruning here). */
  status(version: EthVersion): Status {
    const head = this.chain.head;
    const headHash = this.chain.headBlockHash;
    if (version === ETH68) {
      return {
        code: EthMsg.Status,
        form: ETH68,
        version,
        networkId: this.networkId,
        td: this.chain.store.totalDifficulty(headHash) ?? 0n,
        head: headHash,
        genesis: this.genesis.hash,
        forkId: this.forkId(),
      };
    }
    return {
      code: EthMsg.Status,
      form: version,
      version,
      networkId: this.networkId,
      genesis: this.genesis.hash,
      forkId: this.forkId(),
      earliest: this.genesis.number,
      latest: head.number,
      latestHash: headHash,
    };
  }

  /** geth readStatus68/69: network id, version, genesis, fork id, then (69) the block range. */
  validate(version: EthVersion, s: Status): StatusError | null {
    if (s.networkId !== this.networkId) {
      return { code: "NETWORK_ID_MISMATCH", message: `network ID mismatch: ${s.networkId} (!= ${this.networkId})` };
    }
    if (s.version !== version) {
      return {
        code: "PROTOCOL_VERSION_MISMATCH",
        message: `protocol version mismatch: ${s.version} (!= ${version})`,
      };
    }
    if (!equalBytes(s.genesis, this.genesis.hash)) {
      return {
        code: "GENESIS_MISMATCH",
        message: `genesis mismatch: ${bytesToHexRaw(s.genesis)} (!= ${bytesToHexRaw(this.genesis.hash)})`,
      };
    }
    const head = this.chain.head;
    const fork = this.filter.check(s.forkId, head.number, head.timestamp);
    if (fork !== null) return { code: "FORK_ID_REJECTED", message: `fork ID rejected: ${fork}` };
    if (s.form !== ETH68) {
      const bad = validateBlockRange(s.earliest, s.latest, s.latestHash);
      if (bad !== null) return { code: "INVALID_BLOCK_RANGE", message: `invalid block range in status: ${bad}` };
    }
    return null;
  }
}

/** geth BlockRangeUpdatePacket.Validate. */
export function validateBlockRange(earliest: number, latest: number, latestHash: Uint8Array): string | null {
  if (earliest > latest) return "earliest > latest";
  if (latestHash.every((b) => b === 0)) return "zero latest hash";
  return null;
}
