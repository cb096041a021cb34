/**
 * Alt-DA challenge tracking (specs experimental/alt-da.md "Derivation"; op-node op-alt-da/dastate.go
 * and damgr.go). Three layers, bottom up: `AltDaState` (dastate.go), the contract codecs and
 * `applyChallengeEvents` (damgr.go loadChallengeEvents / fetchChallengeLogs / DecodeResolvedInput),
 * and `AltDaManager` (damgr.go: origins, GetInput's decision by challenge status, reset, finality).
 *
 * Commitments read by derivation are tracked in L1 inclusion order with
 * `challengeWindowEnd = inclusion + challenge_window`. A `ChallengeStatusChanged` event of the
 * DataAvailabilityChallenge contract at L1 block B creates an Active challenge keyed by
 * (commitment, commitment inclusion block) with `resolveWindowEnd = B + resolve_window`; a Resolved
 * event marks it resolved and, for keccak commitments, carries the input decoded from the `resolve`
 * calldata of the emitting transaction. As the L1 origin advances:
 *
 * - `expireChallenges(n)`: challenges whose resolve window ended (`resolveWindowEnd ≤ n`) leave the
 *   active queue; still Active ones become Expired. A commitment whose challenge is Expired is then
 *   skipped by derivation (op-node ErrExpiredChallenge).
 * - `expireCommitments(n)`: commitments whose window ended (challenge window, or the resolve window
 *   when challenged) leave the active queue; if one of them was challenged and not resolved, the
 *   return value says a derivation reset is required (op-node ErrReorgRequired): the input was
 *   already used and must now be dropped.
 * - `prune(n)` (at L1 finalization) drops expired entries whose window ended at or before n and
 *   records the last pruned commitment's block, the alt-DA finalized head.
 * - `clearCommitments()` on a reset the state itself asked for (keeps challenges); `reset()` on an
 *   L1 reorg.
 *
 * Faithful to op-node in its quirks: re-challenging the same (commitment, block) replaces the map
 * entry while the older challenge stays queued, and pruning that older one deletes the map entry
 * by key (the contract forbids a second challenge of a live one, so this cannot happen on chain).
 */
import type { ReceiptLog } from "../../block/log.js";
import { concatBytes, equalBytes } from "../../primitives/bytes.js";
import { bytesToHexRaw, hexToBytes } from "../../primitives/hex.js";
import { bytesToBigint, MAX_U64 } from "../../primitives/u256.js";
import type { AltDaConfig } from "../config/rollupConfig.js";
import { criticalError, resetError, temporaryError } from "../derive/errors.js";
import type { BlockId, L1BlockRef } from "../refs.js";
import { ZERO_L1_REF } from "../refs.js";
import {
  ALT_DA_MAX_INPUT_SIZE,
  type AltDaCommitment,
  commitmentToString,
  decodeCommitment,
  encodeCommitment,
  verifyCommitment,
} from "./commitment.js";
import { DaNotFoundError } from "./daClient.js";

/** The contract's `ChallengeStatus` enum. */
export const ChallengeStatus = {
  Uninitialized: 0,
  Active: 1,
  Resolved: 2,
  Expired: 3,
} as const;
export type ChallengeStatus = (typeof ChallengeStatus)[keyof typeof ChallengeStatus];

/** keccak256("ChallengeStatusChanged(uint256,bytes,uint8)"), topic 0 of the event. */
export const CHALLENGE_STATUS_EVENT_TOPIC: Uint8Array = hexToBytes(
  "c5d8c630ba2fdacb1db24c4599df78c7fb8cf97b5aecde34939597f6697bb1ad",
);
/** Selector of `resolve(uint256 challengedBlockNumber, bytes challengedCommitment, bytes resolveData)`. */
export const RESOLVE_SELECTOR: Uint8Array = Uint8Array.of(0x7a, 0xe9, 0x29, 0xd9);

export interface DaChallenge {
  readonly commitment: AltDaCommitment;
  /** The L1 block the challenged commitment was included in (from the event's indexed topic). */
  readonly commInclusionBlockNumber: number;
  /** Challenge event block + resolve_window. */
  readonly resolveWindowEnd: number;
  /** The input from the resolve calldata (keccak commitments), else null. */
  readonly input: Uint8Array | null;
  readonly status: ChallengeStatus;
}

export interface DaTrackedCommitment {
  readonly commitment: AltDaCommitment;
  readonly inclusionBlock: L1BlockRef;
  /** inclusion + challenge_window. */
  readonly challengeWindowEnd: number;
}

interface MutableChallenge {
  commitment: AltDaCommitment;
  commInclusionBlockNumber: number;
  resolveWindowEnd: number;
  input: Uint8Array | null;
  status: ChallengeStatus;
}

function challengeKey(c: AltDaCommitment, commBlockNumber: number): string {
  return `${commBlockNumber}:${bytesToHexRaw(encodeCommitment(c))}`;
}

export class AltDaState {
  private readonly challengeWindow: number;
  private readonly resolveWindow: number;
  private commitments: DaTrackedCommitment[] = [];
  private expiredCommitments: DaTrackedCommitment[] = [];
  private challenges: MutableChallenge[] = [];
  private expiredChallenges: MutableChallenge[] = [];
  private readonly challengesByKey = new Map<string, MutableChallenge>();
  private lastPruned: L1BlockRef = ZERO_L1_REF;

  constructor(cfg: Pick<AltDaConfig, "daChallengeWindow" | "daResolveWindow">) {
    this.challengeWindow = cfg.daChallengeWindow;
    this.resolveWindow = cfg.daResolveWindow;
  }

  /** The inclusion block of the last commitment pruned: the alt-DA finalized head (zero ref before any). */
  get lastPrunedCommitment(): L1BlockRef {
    return this.lastPruned;
  }

  /** Records a commitment derivation read from `inclusionBlock`. */
  trackCommitment(commitment: AltDaCommitment, inclusionBlock: L1BlockRef): void {
    this.commitments.push({
      commitment,
      inclusionBlock,
      challengeWindowEnd: inclusionBlock.number + this.challengeWindow,
    });
  }

  /** An Active challenge event at `eventBlock` against `commitment` included at `commBlockNumber`. */
  createChallenge(commitment: AltDaCommitment, eventBlock: BlockId, commBlockNumber: number): void {
    const c: MutableChallenge = {
      commitment,
      commInclusionBlockNumber: commBlockNumber,
      resolveWindowEnd: eventBlock.number + this.resolveWindow,
      input: null,
      status: ChallengeStatus.Active,
    };
    this.challenges.push(c);
    this.challengesByKey.set(challengeKey(commitment, commBlockNumber), c);
  }

  /** Marks the challenge resolved with its input (null for generic); false when it was not tracked. */
  resolveChallenge(commitment: AltDaCommitment, commBlockNumber: number, input: Uint8Array | null): boolean {
    const c = this.challengesByKey.get(challengeKey(commitment, commBlockNumber));
    if (c === undefined) return false;
    c.input = input;
    c.status = ChallengeStatus.Resolved;
    return true;
  }

  getChallenge(commitment: AltDaCommitment, commBlockNumber: number): DaChallenge | undefined {
    return this.challengesByKey.get(challengeKey(commitment, commBlockNumber));
  }

  /** The challenge's status, Uninitialized when there is none. */
  getChallengeStatus(commitment: AltDaCommitment, commBlockNumber: number): ChallengeStatus {
    return this.getChallenge(commitment, commBlockNumber)?.status ?? ChallengeStatus.Uninitialized;
  }

  /** True iff no commitment or challenge, active or expired, is tracked. */
  noCommitments(): boolean {
    return (
      this.challenges.length === 0 &&
      this.expiredChallenges.length === 0 &&
      this.commitments.length === 0 &&
      this.expiredCommitments.length === 0
    );
  }

  /** Tracked commitments whose windows are still open, in inclusion order. */
  activeCommitments(): readonly DaTrackedCommitment[] {
    return this.commitments;
  }

  /** Challenges still within their resolve window, in event order. */
  activeChallenges(): readonly DaChallenge[] {
    return this.challenges;
  }

  private commitmentExpiry(c: DaTrackedCommitment): number {
    const ch = this.challengesByKey.get(challengeKey(c.commitment, c.inclusionBlock.number));
    return ch === undefined ? c.challengeWindowEnd : ch.resolveWindowEnd;
  }

  /**
   * Moves commitments whose window ended at or before `originNumber` to the expired queue, in
   * inclusion order, stopping at the first still open. Returns true when one of them carried a
   * challenge that was not resolved: derivation must reset (op-node ErrReorgRequired).
   */
  expireCommitments(originNumber: number): boolean {
    let reorg = false;
    while (this.commitments.length > 0) {
      const c = this.commitments[0];
      if (this.commitmentExpiry(c) > originNumber) return reorg;
      this.expiredCommitments.push(c);
      this.commitments.shift();
      const ch = this.challengesByKey.get(challengeKey(c.commitment, c.inclusionBlock.number));
      if (ch !== undefined && ch.status !== ChallengeStatus.Resolved) reorg = true;
    }
    return reorg;
  }

  /**
   * Moves challenges whose resolve window ended at or before `originNumber` to the expired queue, in
   * event order; an Active one becomes Expired. Call for every L1 block: no event marks expiry.
   */
  expireChallenges(originNumber: number): void {
    while (this.challenges.length > 0) {
      const c = this.challenges[0];
      if (c.resolveWindowEnd > originNumber) return;
      this.expiredChallenges.push(c);
      this.challenges.shift();
      if (c.status === ChallengeStatus.Active) c.status = ChallengeStatus.Expired;
    }
  }

  /** Drops expired commitments, then expired challenges, whose window ended at or before `originNumber`. */
  prune(originNumber: number): void {
    while (this.expiredCommitments.length > 0) {
      const c = this.expiredCommitments[0];
      if (this.commitmentExpiry(c) > originNumber) break;
      this.expiredCommitments.shift();
      this.lastPruned = c.inclusionBlock;
    }
    while (this.expiredChallenges.length > 0) {
      const c = this.expiredChallenges[0];
      if (c.resolveWindowEnd > originNumber) break;
      this.expiredChallenges.shift();
      this.challengesByKey.delete(challengeKey(c.commitment, c.commInclusionBlockNumber));
    }
  }

  /** Forgets the commitments but keeps the challenges: the reset after an expired challenge. */
  clearCommitments(): void {
    this.commitments = [];
    this.expiredCommitments = [];
  }

  /** Forgets everything: an L1 reorg. The last pruned commitment is kept, as in op-node. */
  reset(): void {
    this.commitments = [];
    this.expiredCommitments = [];
    this.challenges = [];
    this.expiredChallenges = [];
    this.challengesByKey.clear();
  }
}

// ---- contract events and calldata ----

/** Why a challenge log or resolve calldata did not decode. */
export class ChallengeDecodeError extends Error {
  override readonly name = "ChallengeDecodeError";
}

export interface ChallengeStatusEvent {
  /** The raw `status` field (0..255); only Active (1) and Resolved (2) change the state. */
  readonly status: number;
  readonly commitment: AltDaCommitment;
  /** The challenged commitment's L1 inclusion block (indexed topic 1). */
  readonly commBlockNumber: number;
}

function wordToBigint(b: Uint8Array, pos: number): bigint {
  return bytesToBigint(b.subarray(pos, pos + 32));
}

/** The ABI `bytes` whose head word sits at `head` in `data` (go-ethereum's bounds checks). */
function abiBytes(data: Uint8Array, head: number): Uint8Array {
  if (head + 32 > data.length) throw new ChallengeDecodeError("ABI data too short for a bytes head");
  const offsetEnd = wordToBigint(data, head) + 32n;
  if (offsetEnd > BigInt(data.length)) throw new ChallengeDecodeError("ABI bytes offset out of range");
  const start = Number(offsetEnd);
  const length = wordToBigint(data, start - 32);
  if (offsetEnd + length > BigInt(data.length)) throw new ChallengeDecodeError("ABI bytes length out of range");
  return data.slice(start, start + Number(length));
}

/**
 * Decodes `ChallengeStatusChanged(uint256 indexed challengedBlockNumber, bytes challengedCommitment,
 * uint8 status)` (op-node DecodeChallengeStatusEvent + decodeChallengeStatus). The caller has matched
 * the address and topic 0. Throws ChallengeDecodeError, or AltDaCommitmentError for a bad commitment.
 * A block number above 2^64−1 is rejected as op-node does; one above 2^53 stays tracked but lossy
 * (it can never match a real commitment).
 */
export function decodeChallengeStatusLog(topics: readonly Uint8Array[], data: Uint8Array): ChallengeStatusEvent {
  if (topics.length !== 2 || topics[1].length !== 32)
    throw new ChallengeDecodeError(`${topics.length} topics, want 2 (signature, challengedBlockNumber)`);
  if (data.length < 64) throw new ChallengeDecodeError(`event data of ${data.length} bytes, want at least 64`);
  const raw = abiBytes(data, 0);
  const status = wordToBigint(data, 32);
  if (status > 255n) throw new ChallengeDecodeError("status does not fit uint8");
  const bn = wordToBigint(topics[1], 0);
  if (bn > MAX_U64) throw new ChallengeDecodeError("challenged block number is not a uint64");
  return { status: Number(status), commitment: decodeCommitment(raw), commBlockNumber: Number(bn) };
}

/**
 * The `resolveData` argument of `resolve(uint256, bytes, bytes)` calldata (op-node DecodeResolvedInput:
 * the selector is skipped, not checked). Throws ChallengeDecodeError when it does not decode or is empty.
 */
export function decodeResolvedInput(calldata: Uint8Array): Uint8Array {
  if (calldata.length < 4) throw new ChallengeDecodeError("resolve calldata shorter than a selector");
  const args = calldata.subarray(4);
  if (args.length === 0) throw new ChallengeDecodeError("resolve calldata without arguments");
  if (args.length < 96) throw new ChallengeDecodeError("resolve calldata too short");
  abiBytes(args, 32);
  const rd = abiBytes(args, 64);
  if (rd.length === 0) throw new ChallengeDecodeError("invalid resolve data");
  return rd;
}

/** `resolve(challengedBlockNumber, challengedCommitment, resolveData)` calldata (tests, tooling). */
export function encodeResolveCalldata(
  commBlockNumber: number,
  commitment: Uint8Array,
  resolveData: Uint8Array,
): Uint8Array {
  const word = (n: number): Uint8Array => {
    const w = new Uint8Array(32);
    let v = BigInt(n);
    for (let i = 31; i >= 0 && v > 0n; i--) {
      w[i] = Number(v & 0xffn);
      v >>= 8n;
    }
    return w;
  };
  const tail = (b: Uint8Array): Uint8Array => {
    const padded = new Uint8Array(Math.ceil(b.length / 32) * 32);
    padded.set(b);
    return concatBytes(word(b.length), padded);
  };
  const t1 = tail(commitment);
  return concatBytes(RESOLVE_SELECTOR, word(commBlockNumber), word(96), word(96 + t1.length), t1, tail(resolveData));
}

/** A receipt as the challenge scan needs it (block/receipt.ts `Receipt` fits); status 1 = success. */
export interface DaReceipt {
  readonly status: number;
  readonly logs: readonly ReceiptLog[];
}

/** A transaction's calldata (tx/tx.ts `Tx` fits). */
export interface DaTx {
  readonly data: Uint8Array;
}

/** What one challenge log did to the state; for logs and tests. */
export type ChallengeEventOutcome =
  | { readonly kind: "active"; readonly commitment: AltDaCommitment; readonly commBlockNumber: number }
  | { readonly kind: "resolved"; readonly commitment: AltDaCommitment; readonly commBlockNumber: number }
  | { readonly kind: "skipped"; readonly reason: string };

/**
 * Applies the `ChallengeStatusChanged` logs of L1 block `block` to the state (op-node
 * fetchChallengeLogs + loadChallengeEvents): nothing for generic commitments (no contract); else the
 * successful receipts' logs from `cfg.daChallengeAddress` with topic 0 = the event, in order. Active →
 * createChallenge; Resolved → for keccak the input is decoded from the `resolve` calldata of the
 * emitting transaction and verified, then resolveChallenge; other statuses and anything that fails to
 * decode or match are skipped, never fatal. `receipts[i]` belongs to `txs[i]` (the block's
 * transactions, only read for Resolved events; L1Client checks receipts against the receipts root,
 * which stands in for op-node's per-log TxIndex / TxHash cross-check against a faulty RPC). Unlike
 * op-node, which skips a resolve when it cannot fetch the block's transactions, the caller fetches
 * them first and retries on failure.
 */
export function applyChallengeEvents(
  state: AltDaState,
  cfg: Pick<AltDaConfig, "daChallengeAddress" | "commitmentType">,
  block: BlockId,
  receipts: readonly DaReceipt[],
  txs: readonly DaTx[],
): ChallengeEventOutcome[] {
  const out: ChallengeEventOutcome[] = [];
  if (cfg.commitmentType === "GenericCommitment") return out;
  for (let i = 0; i < receipts.length; i++) {
    const rec = receipts[i];
    if (rec.status !== 1) continue;
    for (const log of rec.logs) {
      if (isChallengeLog(log, cfg.daChallengeAddress)) out.push(applyOne(state, cfg, block, log, txs[i]));
    }
  }
  return out;
}

function isChallengeLog(log: ReceiptLog, address: Uint8Array): boolean {
  return (
    equalBytes(log.address, address) && log.topics.length > 0 && equalBytes(log.topics[0], CHALLENGE_STATUS_EVENT_TOPIC)
  );
}

/** True when a successful receipt holds a log `applyChallengeEvents` would read (then fetch the txs). */
export function hasChallengeLogs(
  cfg: Pick<AltDaConfig, "daChallengeAddress" | "commitmentType">,
  receipts: readonly DaReceipt[],
): boolean {
  if (cfg.commitmentType === "GenericCommitment") return false;
  for (const rec of receipts) {
    if (rec.status === 1 && rec.logs.some((l) => isChallengeLog(l, cfg.daChallengeAddress))) return true;
  }
  return false;
}

function applyOne(
  state: AltDaState,
  cfg: Pick<AltDaConfig, "commitmentType">,
  block: BlockId,
  log: ReceiptLog,
  tx: DaTx | undefined,
): ChallengeEventOutcome {
  let ev: ChallengeStatusEvent;
  try {
    ev = decodeChallengeStatusLog(log.topics, log.data);
  } catch (e) {
    return { kind: "skipped", reason: `failed to decode challenge event: ${(e as Error).message}` };
  }
  const { commitment, commBlockNumber } = ev;
  if (ev.status === ChallengeStatus.Active) {
    state.createChallenge(commitment, block, commBlockNumber);
    return { kind: "active", commitment, commBlockNumber };
  }
  if (ev.status !== ChallengeStatus.Resolved) {
    return { kind: "skipped", reason: `unknown challenge status ${ev.status}` };
  }
  if (tx === undefined) return { kind: "skipped", reason: "tx/receipt mismatch" };
  let input: Uint8Array | null = null;
  if (cfg.commitmentType === "KeccakCommitment") {
    try {
      input = decodeResolvedInput(tx.data);
      verifyCommitment(commitment, input);
    } catch (e) {
      return { kind: "skipped", reason: `bad resolved input: ${(e as Error).message}` };
    }
  }
  if (!state.resolveChallenge(commitment, commBlockNumber, input)) {
    return { kind: "skipped", reason: "challenge was not tracked" };
  }
  return { kind: "resolved", commitment, commBlockNumber };
}

// ---- the DA manager: origins, input resolution, finality (op-alt-da damgr.go) ----

/** The L1 reads the manager needs (a confirmation-depth-aware view of L1, as the pipeline's). */
export interface AltDaL1Source {
  /** The block's receipts in transaction order. */
  fetchReceipts(blockHash: Uint8Array): Promise<readonly DaReceipt[]>;
  /** The block's transactions. */
  txsByHash(blockHash: Uint8Array): Promise<readonly DaTx[]>;
  l1BlockRefByNumber(n: number): Promise<L1BlockRef>;
}

/** The DA storage (DaClient fits): resolves with the input or throws, DaNotFoundError on 404. */
export interface AltDaStorage {
  getInput(c: AltDaCommitment, signal?: AbortSignal): Promise<Uint8Array>;
}

/**
 * What derivation does with a commitment (op-node altda_data_source.go): use the data; skip the
 * input (type mismatch, expired challenge, keccak input over ALT_DA_MAX_INPUT_SIZE); or, pending a
 * challenge, return NOT_ENOUGH_DATA and ask again (the manager has looked one L1 block ahead).
 */
export type AltDaInput =
  | { readonly kind: "data"; readonly data: Uint8Array }
  | { readonly kind: "skip"; readonly reason: "type-mismatch" | "expired-challenge" | "too-large" }
  | { readonly kind: "pending" };

const ZERO_ID: BlockId = ZERO_L1_REF;

/**
 * op-alt-da's DA manager over AltDaState. Two origins: the challenge origin (the last L1 block whose
 * challenge events are applied; it may run ahead of the pipeline while an input is missing) and the
 * commitment origin (the last block commitments were expired at). Errors are DeriveErrors the data
 * source passes on: `reset` when an input already used lost its challenge, `critical` when data is
 * missing past the challenge window, `temporary` for L1 and DA-server failures.
 */
export class AltDaManager {
  readonly state: AltDaState;
  private challengeOrigin: BlockId = ZERO_ID;
  private commitmentOrigin: BlockId = ZERO_ID;
  private finalized: L1BlockRef = ZERO_L1_REF;
  private l1Finalized: L1BlockRef = ZERO_L1_REF;
  /** Set when expiry asked for a reset, so reset() keeps the challenges. */
  private resetting = false;
  /** Called by finalize() with the alt-DA finalized L1 head (op-node OnFinalizedHeadSignal). */
  onFinalizedHead: ((ref: L1BlockRef) => void) | null = null;

  constructor(
    readonly cfg: AltDaConfig,
    private readonly storage: AltDaStorage,
    private readonly l1: AltDaL1Source,
    state?: AltDaState,
  ) {
    this.state = state ?? new AltDaState(cfg);
  }

  get challengeOriginId(): BlockId {
    return this.challengeOrigin;
  }

  get commitmentOriginId(): BlockId {
    return this.commitmentOrigin;
  }

  /** The L1 block up to which commitments can no longer be invalidated. */
  get finalizedHead(): L1BlockRef {
    return this.finalized;
  }

  /**
   * Applies the challenge events of `block` and expires challenges at it; no-op unless above the
   * challenge origin. L1 failures propagate as thrown by the source.
   */
  async advanceChallengeOrigin(block: BlockId): Promise<ChallengeEventOutcome[]> {
    if (block.number <= this.challengeOrigin.number) return [];
    let out: ChallengeEventOutcome[] = [];
    if (this.cfg.commitmentType !== "GenericCommitment") {
      const receipts = await this.l1.fetchReceipts(block.hash);
      if (hasChallengeLogs(this.cfg, receipts)) {
        const txs = await this.l1.txsByHash(block.hash);
        out = applyChallengeEvents(this.state, this.cfg, block, receipts, txs);
      }
    }
    this.state.expireChallenges(block.number);
    this.challengeOrigin = { hash: block.hash, number: block.number };
    return out;
  }

  /** Expires commitments at `block`; throws a reset DeriveError when a used input lost its challenge. */
  advanceCommitmentOrigin(block: BlockId): void {
    if (block.number <= this.commitmentOrigin.number) return;
    if (this.state.expireCommitments(block.number)) {
      this.resetting = true;
      throw resetError("new expired challenge");
    }
    this.commitmentOrigin = { hash: block.hash, number: block.number };
  }

  /**
   * Called for every pipeline L1 origin before its commitments are read (op-node AdvanceL1Origin):
   * challenge events, then commitment expiry, then, with nothing tracked, the finalized head from
   * L1 finality minus the challenge window.
   */
  async advanceL1Origin(block: BlockId): Promise<void> {
    try {
      await this.advanceChallengeOrigin(block);
    } catch (e) {
      throw temporaryError(`failed to advance altDA challenge origin: ${(e as Error).message}`, e);
    }
    this.advanceCommitmentOrigin(block);
    if (this.state.noCommitments()) {
      try {
        await this.updateFinalizedFromL1();
      } catch (e) {
        throw temporaryError(`failed to advance altDA L1 origin: ${(e as Error).message}`, e);
      }
    }
  }

  private async updateFinalizedFromL1(): Promise<void> {
    if (this.l1Finalized.number < this.cfg.daChallengeWindow) return;
    this.finalized = await this.l1.l1BlockRefByNumber(this.l1Finalized.number - this.cfg.daChallengeWindow);
  }

  /** Processes the next L1 block's challenge events while derivation waits for missing data. */
  async lookAhead(): Promise<void> {
    const next = await this.l1.l1BlockRefByNumber(this.challengeOrigin.number + 1);
    await this.advanceChallengeOrigin(next);
  }

  /**
   * The pipeline reset (op-node Reset): after an expiry-driven reset only the commitments are
   * dropped and the commitment origin moves to `base`, so the expired challenge makes re-derivation
   * skip the input; any other reset is an L1 reorg and clears everything.
   */
  reset(base: BlockId): void {
    const id = { hash: base.hash, number: base.number };
    if (this.resetting) {
      this.resetting = false;
      this.commitmentOrigin = id;
      this.state.clearCommitments();
    } else {
      this.challengeOrigin = id;
      this.commitmentOrigin = id;
      this.state.reset();
    }
  }

  /** L1 finality: prunes the state to it and signals the alt-DA finalized head. */
  finalize(l1Finalized: L1BlockRef): void {
    this.l1Finalized = l1Finalized;
    if (!this.state.noCommitments()) {
      this.state.prune(l1Finalized.number);
      this.finalized = this.state.lastPrunedCommitment;
    }
    this.onFinalizedHead?.(this.finalized);
  }

  /**
   * The input for commitment `c` read from L1 block `inclusion` (op-node GetInput plus the data
   * source's size rule). Tracks the commitment (again on every call, as op-node does), fetches it
   * from the DA server, and on a 404 decides by the challenge status: not challenged → pending
   * (looking ahead) until the challenge window is behind the challenge origin, then critical;
   * active → pending; resolved → the input from the resolve calldata (keccak) or critical (generic).
   */
  async getInput(c: AltDaCommitment, inclusion: L1BlockRef, signal?: AbortSignal): Promise<AltDaInput> {
    if (c.type !== this.cfg.commitmentType) return { kind: "skip", reason: "type-mismatch" };
    const status = this.state.getChallengeStatus(c, inclusion.number);
    if (status === ChallengeStatus.Expired) return { kind: "skip", reason: "expired-challenge" };
    this.state.trackCommitment(c, inclusion);
    let data: Uint8Array;
    try {
      data = await this.storage.getInput(c, signal);
    } catch (e) {
      if (!(e instanceof DaNotFoundError)) {
        throw temporaryError(
          `failed to fetch input data with comm ${commitmentToString(c)}: ${(e as Error).message}`,
          e,
        );
      }
      return this.notFound(c, inclusion, status);
    }
    return this.sized(c, data);
  }

  private async notFound(c: AltDaCommitment, inclusion: L1BlockRef, status: ChallengeStatus): Promise<AltDaInput> {
    if (status === ChallengeStatus.Resolved) {
      const input = this.state.getChallenge(c, inclusion.number)?.input ?? null;
      if (c.type === "GenericCommitment" || input === null) {
        throw criticalError(`data for comm ${commitmentToString(c)} not available: data missing past window`);
      }
      return this.sized(c, input);
    }
    if (
      status === ChallengeStatus.Uninitialized &&
      this.challengeOrigin.number > inclusion.number + this.cfg.daChallengeWindow
    ) {
      throw criticalError(`data for comm ${commitmentToString(c)} not available: data missing past window`);
    }
    try {
      await this.lookAhead();
    } catch (e) {
      throw temporaryError(`altDA look-ahead failed: ${(e as Error).message}`, e);
    }
    return { kind: "pending" };
  }

  private sized(c: AltDaCommitment, data: Uint8Array): AltDaInput {
    if (c.type === "KeccakCommitment" && data.length > ALT_DA_MAX_INPUT_SIZE)
      return { kind: "skip", reason: "too-large" };
    return { kind: "data", data };
  }
}
