/**
 * The Engine API's logic, independent of the transport (execution-apis src/engine, Paris through
 * Osaka, with the OP Stack extensions of op-stack.md §3.9): payload validation through
 * Blockchain.insertBlockSliced (in slices, reads answered meanwhile), forkchoice through
 * Blockchain.setHead, payload building through Blockchain.buildBlock (methods.ts queues forkchoice
 * and testing_buildBlockV1 behind any import with Blockchain.exclusive), blobs bundles and
 * engine_getBlobs from a dev L1's blob sidecar store. Each method version serves its forks'
 * payloads only (forkWindows.ts). Results are plain JSON values; failures throw EngineError with
 * the spec's codes.
 */

import type { BlockBody } from "../block/block.js";
import { encodeBlock } from "../block/block.js";
import type { Header } from "../block/header.js";
import { encodeHeader, headerHash } from "../block/header.js";
import { encodeHoloceneExtraData, encodeJovianExtraData } from "../block/opExtraData.js";
import type { Withdrawal } from "../block/withdrawal.js";
import type { Blockchain, BuildRequest, TxSource } from "../chain/blockchain.js";
import { calcGasLimit, expectedBaseFee } from "../chain/validateHeader.js";
import { keccak256 } from "../crypto/keccak.js";
import type { Downloader } from "../devp2p/sync/downloader.js";
import { equalBytes } from "../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { rulesAt } from "../spec/chainConfig.js";
import { Fork, OpFork } from "../spec/forks.js";
import { decodeTx } from "../tx/envelope.js";
import { type SenderSource, startSharedRecovery } from "../tx/sharedRecovery.js";
import { TxType } from "../tx/tx.js";
import type { BlobSidecarStore } from "../txpool/blobSidecars.js";
import { MinerSettings } from "../txpool/minerSettings.js";
import type { TaskPool } from "../util/taskPool.js";
import { turnTrace } from "../util/turnTrace.js";
import {
  forkchoiceWindowError,
  getPayloadWindowError,
  newPayloadWindowError,
  payloadIdVersionOk,
  type WindowError,
} from "./forkWindows.js";
import { blockToPayload, PayloadError, type PayloadJson, payloadToBlock } from "./payload.js";

export const ENGINE_ERRORS = {
  INVALID_PARAMS: -32602,
  UNKNOWN_PAYLOAD: -38001,
  INVALID_FORKCHOICE_STATE: -38002,
  INVALID_PAYLOAD_ATTRIBUTES: -38003,
  TOO_LARGE_REQUEST: -38004,
  UNSUPPORTED_FORK: -38005,
} as const;

export class EngineError extends Error {
  override readonly name = "EngineError";
  constructor(
    readonly code: number,
    message: string,
    /** geth's `data` member (`{err}` of EngineAPIError.With), when there is one. */
    readonly data?: unknown,
  ) {
    super(message);
  }

  static of(w: WindowError): EngineError {
    return new EngineError(w.code, w.message, w.data);
  }
}

/**
 * The most versioned hashes engine_getBlobs takes: cancun.md asks for at least 128, geth refuses more
 * (`TooLargeRequest.With("requested blob count too large: %v")`).
 */
const MAX_BLOB_HASHES = 128;

export interface PayloadStatus {
  status: "VALID" | "INVALID" | "SYNCING" | "ACCEPTED";
  latestValidHash: string | null;
  validationError: string | null;
}

interface BuiltPayload {
  readonly hash: Uint8Array;
  readonly version: number;
  readonly value: bigint;
}

/** Pool txs for a payload: the txpool plugs its price-and-nonce iterator in here. */
export type PoolSource = (baseFee: bigint | null) => TxSource;

const CAPABILITIES = [
  "engine_exchangeCapabilities",
  "engine_forkchoiceUpdatedV1",
  "engine_forkchoiceUpdatedV2",
  "engine_forkchoiceUpdatedV3",
  "engine_newPayloadV1",
  "engine_newPayloadV2",
  "engine_newPayloadV3",
  "engine_newPayloadV4",
  "engine_getPayloadV1",
  "engine_getPayloadV2",
  "engine_getPayloadV3",
  "engine_getPayloadV4",
  "engine_getPayloadV5",
  "engine_getPayloadBodiesByHashV1",
  "engine_getPayloadBodiesByRangeV1",
  "engine_getBlobsV1",
  "engine_getBlobsV2",
  "engine_getBlobsV3",
];

const ZERO32 = new Uint8Array(32);

/** geth miner.DefaultConfig.GasCeil (1.16). */
export const DEFAULT_GAS_CEIL = 60_000_000n;

export class EngineApi {
  private readonly payloads = new Map<string, BuiltPayload>();
  /** Listeners told about head changes (subscriptions, the txpool). */
  onHead: ((change: ReturnType<Blockchain["setHead"]>) => void) | null = null;

  /**
   * geth's miner.Config: the gas ceiling L1 payloads move towards (--miner.gaslimit,
   * miner_setGasLimit; OP attributes carry their own) and L1 payloads' extraData (miner_setExtra).
   */
  readonly miner: MinerSettings;

  /** Recovers the senders of an incoming payload off the main thread (null: on it). */
  private readonly recoveryPool: TaskPool | null;

  /** The blob sidecars of the pool's blob txs (a dev L1 with a beacon API); null: no blobs. */
  private readonly blobs: BlobSidecarStore | null;

  /**
   * The execution-layer sync (devp2p/sync/downloader.ts) a payload or forkchoice to a block the
   * node lacks starts; null: such calls only answer SYNCING. Set with `attachSync`.
   */
  private sync: Downloader | null = null;

  constructor(
    readonly chain: Blockchain,
    private readonly pool: PoolSource | null = null,
    opts: {
      readonly gasCeil?: bigint;
      /** The node's miner settings (its `gasCeil` wins over `opts.gasCeil`). */
      readonly miner?: MinerSettings;
      readonly recoveryPool?: TaskPool | null;
      readonly blobs?: BlobSidecarStore | null;
    } = {},
  ) {
    this.miner = opts.miner ?? new MinerSettings({ gasCeil: opts.gasCeil ?? DEFAULT_GAS_CEIL });
    this.recoveryPool = opts.recoveryPool ?? null;
    this.blobs = opts.blobs ?? null;
  }

  /**
   * Hands blocks the node lacks to `d` (geth's beacon sync behind eth/catalyst): newPayload with an
   * unknown parent keeps the header and extends a running sync, forkchoice to an unknown head starts
   * one; the head changes the sync makes reach `onHead` as forkchoice's do.
   */
  attachSync(d: Downloader): void {
    this.sync = d;
    d.onHead = (change) => this.onHead?.(change);
  }

  /** The gas limit L1 payloads move towards. */
  get gasCeil(): bigint {
    return this.miner.gasCeil;
  }

  get isOp(): boolean {
    return this.chain.config.optimism !== null;
  }

  exchangeCapabilities(_theirs: readonly string[]): string[] {
    return CAPABILITIES;
  }

  /** The rules of block `number` at `timestamp` (the fork the method windows compare). */
  forkAt(timestamp: number, number: number): { fork: Fork; op: OpFork | null } {
    const r = rulesAt(this.chain.config, number, timestamp);
    return { fork: r.fork, op: this.isOp ? r.op : null };
  }

  /**
   * The senders of `raw` txs as a source the import asks tx by tx, recovered on the sigRecover pool
   * from the raw bytes alongside execution (tx/sharedRecovery.ts); the import decodes the txs once,
   * and reports any that does not decode.
   */
  private recoverSenders(raw: readonly Uint8Array[]): SenderSource | null {
    return raw.length === 0 ? null : startSharedRecovery(raw, this.recoveryPool);
  }

  /**
   * engine_newPayloadV1–V4. The block is executed and stored while the sigRecover pool recovers the
   * txs' senders ahead of execution (the executing thread recovers any it reaches first).
   */
  async newPayload(
    version: number,
    payload: PayloadJson,
    versionedHashes: readonly string[] | null,
    beaconRoot: string | null,
    requests: readonly string[] | null,
  ): Promise<PayloadStatus> {
    const t0 = turnTrace?.mark() ?? null;
    let decoded: ReturnType<typeof payloadToBlock>;
    try {
      decoded = payloadToBlock(
        payload,
        version,
        beaconRoot === null ? null : hexToBytes(beaconRoot),
        requests === null ? null : requests.map((r) => hexToBytes(r)),
        this.isOp,
      );
    } catch (e) {
      if (e instanceof PayloadError)
        throw new EngineError(ENGINE_ERRORS.INVALID_PARAMS, `invalid params: ${e.message}`);
      throw e;
    }
    const { header, body } = decoded;
    // A consensus client is driving: the downloader stops following peers' heads.
    this.sync?.consensusSpeaks();
    const windowError = newPayloadWindowError(version, this.forkAt(header.timestamp, header.number).fork);
    if (windowError !== null) throw EngineError.of(windowError);
    const hash = headerHash(header);
    if (!equalBytes(hash, decoded.blockHash)) {
      return {
        status: "INVALID",
        latestValidHash: null,
        validationError: `blockhash mismatch, want ${bytesToHex(hash)}, got ${bytesToHex(decoded.blockHash)}`,
      };
    }
    if (version >= 3) {
      // The blob txs' versioned hashes, in order, must equal the given list (OP: none).
      const got: string[] = [];
      for (const raw of body.transactions) {
        if (raw.length === 0 || raw[0] !== TxType.Blob) continue; // only a blob tx's envelope starts 0x03
        try {
          const tx = decodeTx(raw);
          if (tx.type === TxType.Blob) for (const h of tx.blobVersionedHashes) got.push(bytesToHex(h));
        } catch {
          // an undecodable tx makes the block INVALID below
        }
      }
      const given = (versionedHashes ?? []).map((h) => h.toLowerCase());
      if (got.length !== given.length || got.some((h, i) => h !== given[i])) {
        return { status: "INVALID", latestValidHash: null, validationError: "invalid blob versioned hashes" };
      }
    }
    const senders = this.recoverSenders(body.transactions);
    if (t0 !== null) turnTrace?.record("engine: newPayload before the import", t0);
    // In slices, queued behind the chain mutations before it: reads are answered meanwhile (issue 25).
    // The block as decoded here (its tx root computed from its txs, its hash checked above).
    const r = await this.chain.insertBlockSliced(encodeBlock({ header, body }), {
      decoded: { header, body, hash },
      ...(senders === null ? {} : { senders }),
    });
    switch (r.status) {
      case "VALID":
      case "KNOWN":
        return { status: "VALID", latestValidHash: bytesToHex(hash), validationError: null };
      case "UNKNOWN_PARENT": {
        // SPEC: geth delayPayloadImport: a payload on a chain a sync found invalid is INVALID; else
        // its header is kept for a later forkchoice (and extends a running sync) and the answer is SYNCING.
        const bad = this.sync?.invalidTarget(header.parentHash) ?? null;
        if (bad !== null) {
          return {
            status: "INVALID",
            latestValidHash: bad.latestValidHash === null ? null : bytesToHex(bad.latestValidHash),
            validationError: bad.error,
          };
        }
        this.sync?.extend(encodeHeader(header));
        return { status: "SYNCING", latestValidHash: null, validationError: null };
      }
      case "INVALID": {
        const parentValid = this.chain.isExecuted(header.parentHash);
        return {
          status: "INVALID",
          latestValidHash: parentValid ? bytesToHex(header.parentHash) : null,
          validationError: r.error,
        };
      }
    }
  }

  /** engine_forkchoiceUpdatedV1–V3 (OP attributes included). */
  forkchoiceUpdated(
    version: number,
    state: { headBlockHash: string; safeBlockHash: string; finalizedBlockHash: string },
    attrs: PayloadJson | null,
  ): { payloadStatus: PayloadStatus; payloadId: string | null } {
    const head = hexToBytes(state.headBlockHash);
    const chain = this.chain;
    this.sync?.consensusSpeaks();
    if (chain.isInvalid(head)) {
      return {
        payloadStatus: {
          status: "INVALID",
          latestValidHash: null,
          validationError: "links to a previously rejected block",
        },
        payloadId: null,
      };
    }
    const header = chain.store.header(head);
    if (header === null || !chain.isExecuted(head)) {
      // SPEC: geth forkchoiceUpdated with an unknown head: BeaconSync towards it, answer SYNCING with
      // no payload id (attributes are ignored until the head is there).
      const sync = this.sync;
      if (sync !== null) {
        const bad = sync.invalidTarget(head);
        if (bad !== null) {
          return {
            payloadStatus: {
              status: "INVALID",
              latestValidHash: bad.latestValidHash === null ? null : bytesToHex(bad.latestValidHash),
              validationError: bad.error,
            },
            payloadId: null,
          };
        }
        sync.sync(head, hexToBytes(state.safeBlockHash), hexToBytes(state.finalizedBlockHash));
      }
      return { payloadStatus: { status: "SYNCING", latestValidHash: null, validationError: null }, payloadId: null };
    }
    const checkKnown = (h: string): Uint8Array | null => {
      const b = hexToBytes(h);
      if (equalBytes(b, ZERO32)) return null;
      if (chain.store.header(b) === null)
        throw new EngineError(ENGINE_ERRORS.INVALID_FORKCHOICE_STATE, "Invalid forkchoice state");
      return b;
    };
    const safe = checkKnown(state.safeBlockHash);
    const finalized = checkKnown(state.finalizedBlockHash);
    // A head the node has: a sync towards another target is over (geth: forkchoice to a known block).
    const target = this.sync?.target ?? null;
    if (target !== null && !equalBytes(target, head)) this.sync?.abandon();
    // Head and labels in one synced write: the forkchoice answered VALID survives power loss
    // (docs/design/storage.md "Durability").
    const change = chain.applyForkchoice(head, safe, finalized);
    if (change !== null) this.onHead?.(change);
    const status: PayloadStatus = { status: "VALID", latestValidHash: bytesToHex(head), validationError: null };
    if (attrs === null) return { payloadStatus: status, payloadId: null };
    const id = this.startPayload(version, head, header.timestamp, attrs);
    return { payloadStatus: status, payloadId: id };
  }

  private startPayload(version: number, parent: Uint8Array, parentTime: number, a: PayloadJson): string {
    const { request, noTxPool } = this.attributesRequest(version, parent, parentTime, a);
    const id = payloadId(parent, a, version);
    if (this.payloads.has(id)) return id;
    const pool = noTxPool || this.pool === null ? null : this.pool(null);
    const built = this.chain.buildBlock({ ...request, pool });
    if ("error" in built) {
      const m = built.forcedIndex === undefined ? built.error : `transaction ${built.forcedIndex}: ${built.error}`;
      throw new EngineError(ENGINE_ERRORS.INVALID_PAYLOAD_ATTRIBUTES, `Invalid payload attributes: ${m}`);
    }
    this.payloads.set(id, { hash: built.hash, version, value: built.fees });
    return id;
  }

  /**
   * testing_buildBlockV1 (execution-apis src/testing): a block on `parent` from V3 payload
   * attributes with exactly `txs` (null: from the pool, as geth) and `extraData` when given; the
   * block is stored but the canonical chain and head are untouched. Returns the getPayloadV5-shaped
   * envelope (SPEC: execution-apis src/testing/testing_buildBlockV1.yaml: `blobsBundle` is a
   * BlobsBundleV2). A tx that does not apply fails the call with geth's message (code -32000).
   */
  buildForTesting(
    parent: Uint8Array,
    a: PayloadJson,
    txs: readonly Uint8Array[] | null,
    extraData: Uint8Array | null,
  ): unknown {
    const parentHeader = this.chain.store.header(parent);
    if (parentHeader === null) throw new EngineError(-32000, "parent block not found");
    const { request } = this.attributesRequest(3, parent, parentHeader.timestamp, a);
    const { op } = this.forkAt(request.timestamp, parentHeader.number + 1);
    const baseFee = expectedBaseFee(parentHeader, this.chain.config, op);
    const built = this.chain.buildBlock({
      ...request,
      extraData: extraData ?? request.extraData,
      forced: txs ?? request.forced,
      pool: txs !== null || this.pool === null ? null : this.pool(baseFee),
    });
    if ("error" in built) throw new EngineError(-32000, built.error);
    return this.envelope(built.header, built.body, built.hash, 4, built.fees, 5);
  }

  /** Payload attributes → a build request (no pool yet), with the per-fork checks of forkchoiceUpdated. */
  private attributesRequest(
    version: number,
    parent: Uint8Array,
    parentTime: number,
    a: PayloadJson,
  ): { request: BuildRequest; noTxPool: boolean } {
    const bad = (m: string): never => {
      throw new EngineError(ENGINE_ERRORS.INVALID_PAYLOAD_ATTRIBUTES, `Invalid payload attributes: ${m}`);
    };
    const q = (k: string): bigint => {
      const v = a[k];
      if (typeof v !== "string" || !/^0x[0-9a-fA-F]+$/.test(v)) return bad(`${k}`);
      return BigInt(v);
    };
    const d = (k: string, size?: number): Uint8Array => {
      const v = a[k];
      if (typeof v !== "string" || !/^0x([0-9a-fA-F]{2})*$/.test(v)) return bad(k);
      const b = hexToBytes(v);
      if (size !== undefined && b.length !== size) bad(k);
      return b;
    };
    const timestamp = Number(q("timestamp"));
    if (timestamp <= parentTime) bad("timestamp must be after the parent's");
    const parentHeader = this.chain.store.header(parent);
    const number = (parentHeader?.number ?? 0) + 1;
    const { fork, op } = this.forkAt(timestamp, number);
    const windowError = forkchoiceWindowError(version, fork);
    if (windowError !== null) throw EngineError.of(windowError);
    let withdrawals: Withdrawal[] | null = null;
    if (fork >= Fork.Shanghai) {
      if (!Array.isArray(a.withdrawals)) bad("withdrawals required from Shanghai");
      withdrawals = (a.withdrawals as PayloadJson[]).map((w) => ({
        index: BigInt(w.index as string),
        validatorIndex: BigInt(w.validatorIndex as string),
        address: hexToBytes(w.address as string),
        amount: BigInt(w.amount as string),
      }));
    }
    const beaconRoot = fork >= Fork.Cancun ? d("parentBeaconBlockRoot", 32) : null;
    let gasLimit = calcGasLimit(parentHeader?.gasLimit ?? this.gasCeil, this.gasCeil);
    // op-geth prepareWork: the miner's extraData on L1 only ("Optimism chains have their own ExtraData handling rules").
    let extraData: Uint8Array = op === null ? this.miner.extraData : new Uint8Array(0);
    let forced: Uint8Array[] = [];
    let noTxPool = false;
    if (op !== null) {
      if (a.gasLimit === undefined || a.gasLimit === null) bad("gasLimit is required on OP chains");
      gasLimit = q("gasLimit");
      forced = Array.isArray(a.transactions) ? (a.transactions as string[]).map((t) => hexToBytes(t)) : [];
      noTxPool = a.noTxPool === true;
      const cfg = this.chain.config.optimism;
      if (op >= OpFork.Holocene && cfg !== null) {
        const p =
          a.eip1559Params === undefined || a.eip1559Params === null
            ? bad("eip1559Params required from Holocene")
            : d("eip1559Params", 8);
        const dv = new DataView(p.buffer, p.byteOffset, 8);
        let denominator = dv.getUint32(0);
        let elasticity = dv.getUint32(4);
        if (denominator === 0 && elasticity === 0) {
          denominator = cfg.eip1559DenominatorCanyon ?? cfg.eip1559Denominator;
          elasticity = cfg.eip1559Elasticity;
        }
        if (op >= OpFork.Jovian) {
          const minBaseFee =
            a.minBaseFee === undefined || a.minBaseFee === null
              ? bad("minBaseFee required from Jovian")
              : q("minBaseFee");
          extraData = encodeJovianExtraData(denominator, elasticity, minBaseFee);
        } else {
          extraData = encodeHoloceneExtraData(denominator, elasticity);
        }
      } else if (a.eip1559Params !== undefined && a.eip1559Params !== null) {
        bad("eip1559Params before Holocene");
      }
    }
    const request: BuildRequest = {
      parentHash: parent,
      timestamp,
      feeRecipient: d("suggestedFeeRecipient", 20),
      prevRandao: d("prevRandao", 32),
      gasLimit,
      extraData,
      withdrawals,
      parentBeaconBlockRoot: beaconRoot,
      forced,
      pool: null,
    };
    return { request, noTxPool };
  }

  /**
   * engine_getPayloadV1–V5, in geth's order: the id's version byte (the forkchoiceUpdated version that
   * started the build) must suit the method, the payload must be known, and its fork must be the
   * method's (forkWindows.ts); each refusal a bare -38005, unknown ids -38001.
   */
  getPayload(version: number, id: string): unknown {
    const idVersion = Number.parseInt(id.slice(2, 4), 16);
    if (!payloadIdVersionOk(version, idVersion))
      throw new EngineError(ENGINE_ERRORS.UNSUPPORTED_FORK, "Unsupported fork");
    const p = this.payloads.get(id.toLowerCase());
    if (p === undefined) throw new EngineError(ENGINE_ERRORS.UNKNOWN_PAYLOAD, "Unknown payload");
    const header = this.chain.store.header(p.hash);
    const body = this.chain.store.body(p.hash);
    if (header === null || body === null) throw new EngineError(ENGINE_ERRORS.UNKNOWN_PAYLOAD, "Unknown payload");
    const { fork } = this.forkAt(header.timestamp, header.number);
    const windowError = getPayloadWindowError(version, fork, this.isOp);
    if (windowError !== null) throw EngineError.of(windowError);
    const want = fork >= Fork.Prague ? 4 : fork >= Fork.Cancun ? 3 : fork >= Fork.Shanghai ? 2 : 1;
    return this.envelope(header, body, p.hash, Math.min(version, want), p.value, version);
  }

  /**
   * The getPayload answer: the bare payload for V1, else the envelope of `version`'s shape. V3–V5
   * carry the blobs bundle of the block's blob txs, in block order: BlobsBundleV1 (a blob proof per
   * blob) up to V4, BlobsBundleV2 (CELLS_PER_EXT_BLOB cell proofs per blob, SPEC: osaka.md) from V5.
   * On OP chains (no blob txs) V5 answers V4's envelope, as op-reth maps ExecutionPayloadEnvelopeV5
   * to OpExecutionPayloadEnvelopeV4 (rollup/engine/engineClient.ts `getPayloadVersionAt`).
   */
  private envelope(
    header: Header,
    body: BlockBody,
    hash: Uint8Array,
    payloadVersion: number,
    value: bigint,
    version = payloadVersion,
  ): unknown {
    const executionPayload = blockToPayload(header, body, hash, payloadVersion, this.isOp);
    if (version === 1) return executionPayload;
    const out: Record<string, unknown> = { executionPayload, blockValue: `0x${value.toString(16)}` };
    if (version >= 3) {
      out.blobsBundle = this.blobsBundle(body, version >= 5 && !this.isOp);
      out.shouldOverrideBuilder = false;
      if (this.isOp) out.parentBeaconBlockRoot = bytesToHex(header.parentBeaconBlockRoot ?? ZERO32);
    }
    if (version >= 4) out.executionRequests = [];
    return out;
  }

  /**
   * The blobs, commitments and proofs of `body`'s blob txs from the sidecar store: blob proofs, or
   * with `cells` every blob's cell proofs (a proof form the sidecar did not arrive in is computed, as
   * geth's blob pool converts a version-0 sidecar at the Osaka transition, blobpool.go
   * `convertLegacySidecar`). An engine without a sidecar store (no `--dev.beacon`: its pool takes no
   * blob txs) answers an empty bundle; a blob whose sidecar the store lacks fails the call.
   */
  private blobsBundle(body: BlockBody, cells: boolean): { commitments: string[]; proofs: string[]; blobs: string[] } {
    const out = { commitments: [] as string[], proofs: [] as string[], blobs: [] as string[] };
    if (this.blobs === null) return out;
    for (const raw of body.transactions) {
      if (raw[0] !== TxType.Blob) continue;
      const tx = decodeTx(raw);
      if (tx.type !== TxType.Blob) continue;
      for (const h of tx.blobVersionedHashes) {
        const s = cells ? this.blobs.withCellProofs(h) : this.blobs.withBlobProof(h);
        if (s === null) throw new EngineError(-32000, `blob sidecar of ${bytesToHex(h)} not found`);
        out.blobs.push(bytesToHex(s.blob));
        out.commitments.push(bytesToHex(s.commitment));
        if ("proof" in s) out.proofs.push(bytesToHex(s.proof));
        else for (const p of s.proofs) out.proofs.push(bytesToHex(p));
      }
    }
    return out;
  }

  /** The head's L1 fork: what engine_getBlobs checks (geth reads its current header's time). */
  private headFork(): Fork {
    const h = this.chain.head;
    return this.forkAt(h.timestamp, h.number).fork;
  }

  /**
   * engine_getBlobsV1 (cancun.md): each hash's blob and blob proof, null where unknown or kept with
   * cell proofs; -38005 once the head is Osaka (osaka.md "Cancun API"; geth's text), -38004 above
   * 128 hashes.
   */
  getBlobsV1(hashes: readonly Uint8Array[]): ({ blob: string; proof: string } | null)[] {
    const fork = this.headFork();
    if (fork !== Fork.Cancun && fork !== Fork.Prague) {
      throw new EngineError(ENGINE_ERRORS.UNSUPPORTED_FORK, "Unsupported fork", {
        err: "engine_getBlobsV1 is only available at Cancun/Prague fork",
      });
    }
    this.checkBlobCount(hashes.length);
    return hashes.map((h) => {
      const s = this.blobs?.get(h) ?? null;
      if (s === null || s.version !== 0) return null;
      return { blob: bytesToHex(s.blob), proof: bytesToHex(s.proofs[0]!) };
    });
  }

  /**
   * engine_getBlobsV2 (osaka.md): every hash's blob with its CELLS_PER_EXT_BLOB cell proofs, or null
   * for the whole answer when any blob is unknown or kept with a blob proof only; null too before
   * Osaka (geth v1.17.5: `LatestFork(head) < Osaka` → nil). `partial` is engine_getBlobsV3: null
   * only at the missing positions.
   */
  getBlobsV2(hashes: readonly Uint8Array[], partial = false): ({ blob: string; proofs: string[] } | null)[] | null {
    if (this.headFork() < Fork.Osaka) return null;
    this.checkBlobCount(hashes.length);
    const out: ({ blob: string; proofs: string[] } | null)[] = [];
    for (const h of hashes) {
      const s = this.blobs?.get(h) ?? null;
      if (s === null || s.version !== 1) {
        if (!partial) return null;
        out.push(null);
        continue;
      }
      out.push({ blob: bytesToHex(s.blob), proofs: s.proofs.map((p) => bytesToHex(p)) });
    }
    return out;
  }

  private checkBlobCount(n: number): void {
    if (n > MAX_BLOB_HASHES) {
      throw new EngineError(ENGINE_ERRORS.TOO_LARGE_REQUEST, "Too large request", {
        err: `requested blob count too large: ${n}`,
      });
    }
  }

  /** engine_getPayloadBodiesByHashV1. */
  getPayloadBodiesByHash(hashes: readonly string[]): unknown[] {
    if (hashes.length > 1024) throw new EngineError(ENGINE_ERRORS.TOO_LARGE_REQUEST, "Too large request");
    return hashes.map((h) => this.bodyJson(hexToBytes(h)));
  }

  /** engine_getPayloadBodiesByRangeV1. */
  getPayloadBodiesByRange(start: bigint, count: bigint): unknown[] {
    if (start < 1n || count < 1n) throw new EngineError(ENGINE_ERRORS.INVALID_PARAMS, "invalid params");
    if (count > 1024n) throw new EngineError(ENGINE_ERRORS.TOO_LARGE_REQUEST, "Too large request");
    const out: unknown[] = [];
    const head = BigInt(this.chain.head.number);
    for (let n = start; n < start + count && n <= head; n++) {
      const h = this.chain.store.canonicalHash(Number(n));
      out.push(h === null ? null : this.bodyJson(h));
    }
    return out;
  }

  private bodyJson(hash: Uint8Array): unknown {
    const body = this.chain.store.body(hash);
    if (body === null) return null;
    return {
      transactions: body.transactions.map((t) => bytesToHex(t)),
      withdrawals:
        body.withdrawals === null
          ? null
          : body.withdrawals.map((w) => ({
              index: `0x${w.index.toString(16)}`,
              validatorIndex: `0x${w.validatorIndex.toString(16)}`,
              address: bytesToHex(w.address),
              amount: `0x${w.amount.toString(16)}`,
            })),
    };
  }
}

/** An 8-byte payload id: a version byte and 7 bytes of the hash of the build inputs (as geth). */
export function payloadId(parent: Uint8Array, attrs: PayloadJson, version: number): string {
  const h = keccak256(new TextEncoder().encode(`${bytesToHex(parent)}|${JSON.stringify(attrs)}`));
  const id = new Uint8Array(8);
  id[0] = version;
  id.set(h.subarray(0, 7), 1);
  return bytesToHex(id);
}
