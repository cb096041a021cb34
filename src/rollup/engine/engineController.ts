/**
 * The engine controller (op-node rollup/engine/engine_controller.go and the attributes handler):
 * owns the four L2 heads — unsafe (latest), pending safe, safe (derived from L1), finalized (derived
 * from finalized L1) — and moves them only through the engine:
 *
 * - unsafe payloads (gossip, admin_postUnsafePayload, the sequencer) must extend the unsafe head:
 *   newPayload, then forkchoiceUpdated keeping safe and finalized;
 * - derived attributes either *consolidate* with the unsafe block already at that height (equal in
 *   every compared field: the block becomes pending safe with no new execution) or are *built*:
 *   forkchoiceUpdated with attributes → getPayload → newPayload → forkchoiceUpdated, which reorgs
 *   the unsafe chain when it differed;
 * - the safe head moves to pending safe when the attributes conclude a batch (the last block of a
 *   span), so a half-applied span batch is never reported safe;
 * - finality: each time derivation finishes an L1 block, the safe head reached is recorded against
 *   it; when L1 finalizes a block, the newest safe head derived from at most that block is finalized
 *   (op-node finality/finalizer.go).
 *
 * Invalid derived attributes: before Holocene they are dropped; from Holocene the block is rebuilt
 * with its deposits only (steady block derivation), and the caller flushes the rest of the channel;
 * a deposit-only block the engine refuses is a critical error.
 *
 * Managed mode (interop under an op-supervisor; op-node engine controller `LocalSafeUpdateEvent`,
 * `PromoteSafe`, `promoteFinalized`): a concluding derived block from Interop on becomes the *local*
 * safe head only; the safe (cross-safe) and finalized heads sent to the engine are the ones the
 * supervisor promotes (`promoteCrossSafe`, `promoteFinalized`), applied once the block is canonical
 * on the engine and, capped, never above the local-safe (finalized: safe) head — a higher promotion
 * waits and applies as derivation catches up. Pre-Interop blocks are still safe at once, and L1
 * finality still finalizes them only (op-node's finalizer stops recording at Interop). Outside
 * managed mode the local-safe head is the safe head.
 */
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { type Logger, SILENT_LOGGER } from "../../util/log.js";
import { isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { AttributesWithParent, PayloadAttributes } from "../derive/attributes.js";
import { criticalError, resetError, temporaryError } from "../derive/errors.js";
import type { L1BlockRef, L2BlockRef } from "../refs.js";
import { RpcCallError } from "../transport/rpcClient.js";
import { attributesMismatch } from "./consolidate.js";
import { type EngineClient, type PayloadEnvelope, type PayloadStatus, payloadRef } from "./engineClient.js";

const DEPOSIT_TX_TYPE = 0x7e;
/** Engine API error codes (execution-apis common.md). */
const INVALID_FORKCHOICE_STATE = -38002;
const INVALID_PAYLOAD_ATTRIBUTES = -38003;

/** What processing one set of derived attributes did. */
export type AttributesOutcome =
  | { readonly kind: "consolidated"; readonly ref: L2BlockRef }
  | { readonly kind: "built"; readonly ref: L2BlockRef; readonly reorged: boolean }
  | { readonly kind: "depositsOnly"; readonly ref: L2BlockRef }
  | { readonly kind: "dropped"; readonly reason: string }
  | { readonly kind: "stale"; readonly reason: string };

export interface Heads {
  readonly unsafe: L2BlockRef;
  readonly pendingSafe: L2BlockRef;
  /** The newest concluded derived block; the safe head too, except under a supervisor (managed mode). */
  readonly localSafe: L2BlockRef;
  readonly safe: L2BlockRef;
  readonly finalized: L2BlockRef;
}

export interface EngineControllerOptions {
  /** Managed mode (see the file comment): the supervisor, not derivation, moves safe and finalized. */
  readonly managed?: boolean;
}

/** The engine refused a payload (INVALID / INVALID_BLOCK_HASH). */
export class PayloadRejectedError extends Error {
  override readonly name = "PayloadRejectedError";
  constructor(
    readonly status: PayloadStatus,
    message: string,
  ) {
    super(message);
  }
}

function isDepositTx(tx: Uint8Array): boolean {
  return tx.length > 0 && tx[0] === DEPOSIT_TX_TYPE;
}

export class EngineController {
  private heads: Heads;
  /** Safe heads by the L1 block they were derived from, oldest first (finality candidates). */
  private finalityData: { l1: L1BlockRef; l2: L2BlockRef }[] = [];
  private static readonly FINALITY_LOOKBACK = 4 * 32 + 1;
  /** Called whenever the safe head moves, with the L1 block it was derived from. */
  onSafe: ((safe: L2BlockRef, derivedFrom: L1BlockRef) => void) | null = null;
  readonly managed: boolean;
  /** Managed mode: the supervisor's cross-safe and finalized blocks not applied yet (null = none). */
  private crossSafeTarget: { ref: L2BlockRef; source: L1BlockRef } | null = null;
  private finalizedTarget: L2BlockRef | null = null;

  constructor(
    private readonly cfg: RollupConfig,
    readonly engine: EngineClient,
    private readonly log: Logger = SILENT_LOGGER,
    opts: EngineControllerOptions = {},
  ) {
    this.managed = opts.managed === true;
    const g = cfg.genesis;
    const genesis: L2BlockRef = {
      hash: g.l2.hash,
      number: g.l2.number,
      parentHash: new Uint8Array(32),
      timestamp: g.l2Time,
      l1origin: g.l1,
      sequenceNumber: 0,
    };
    this.heads = { unsafe: genesis, pendingSafe: genesis, localSafe: genesis, safe: genesis, finalized: genesis };
  }

  get state(): Heads {
    return this.heads;
  }

  /**
   * Sets all heads (after a pipeline reset found them) and tells the engine; the local-safe head is
   * the safe head unless given. Supervisor promotions not applied yet stay pending.
   */
  async reset(h: {
    unsafe: L2BlockRef;
    localSafe?: L2BlockRef;
    safe: L2BlockRef;
    finalized: L2BlockRef;
  }): Promise<void> {
    const localSafe = h.localSafe ?? h.safe;
    this.heads = { unsafe: h.unsafe, pendingSafe: localSafe, localSafe, safe: h.safe, finalized: h.finalized };
    this.finalityData = this.finalityData.filter((f) => f.l2.number <= h.safe.number);
    await this.forkchoice();
  }

  /**
   * Managed mode, the supervisor's reset (op-node `forceReset`): the heads become `h` and pending
   * promotions are dropped, since the supervisor set safe and finalized itself.
   */
  async forceReset(h: {
    unsafe: L2BlockRef;
    localSafe: L2BlockRef;
    safe: L2BlockRef;
    finalized: L2BlockRef;
  }): Promise<void> {
    this.crossSafeTarget = null;
    this.finalizedTarget = null;
    await this.reset(h);
  }

  /** Sends the current heads to the engine; a refusal is a reset (the engine lost our chain). */
  async forkchoice(): Promise<void> {
    const h = this.heads;
    const r = await this.engine.forkchoiceUpdate(
      { head: h.unsafe.hash, safe: h.safe.hash, finalized: h.finalized.hash },
      null,
    );
    if (r.status.status === "INVALID" || r.status.status === "INVALID_BLOCK_HASH") {
      throw resetError(`engine refused the forkchoice update: ${r.status.validationError ?? r.status.status}`);
    }
  }

  /**
   * Inserts a payload as the new unsafe head. It must extend the current unsafe head; returns false
   * (and changes nothing) when it does not.
   */
  async insertUnsafePayload(env: PayloadEnvelope): Promise<boolean> {
    if (this.elSyncing) return this.insertElSync(env);
    const parent = (env.executionPayload as { parentHash?: string }).parentHash;
    if (parent !== bytesToHex(this.heads.unsafe.hash)) return false;
    const status = await this.engine.newPayload(env);
    if (status.status === "INVALID" || status.status === "INVALID_BLOCK_HASH") {
      throw new PayloadRejectedError(
        status,
        `engine refused payload ${bytesToHex(env.blockHash)}: ${status.validationError ?? status.status}`,
      );
    }
    const h = this.heads;
    const r = await this.engine.forkchoiceUpdate(
      { head: env.blockHash, safe: h.safe.hash, finalized: h.finalized.hash },
      null,
    );
    if (r.status.status !== "VALID") {
      throw new PayloadRejectedError(
        r.status,
        `engine refused forkchoice to ${bytesToHex(env.blockHash)}: ${r.status.status}`,
      );
    }
    const ref = await this.engine.blockRef(env.blockHash);
    if (ref === null) throw temporaryError(`engine lost block ${bytesToHex(env.blockHash)}`);
    this.heads = { ...this.heads, unsafe: ref };
    return true;
  }

  /**
   * `--syncmode execution-layer` (op-node engine controller, EL sync): the engine syncs itself to
   * the newest unsafe payload it is given — newPayload answers SYNCING/ACCEPTED while it downloads —
   * and once a forkchoice update to such a payload answers VALID, that block becomes the unsafe,
   * safe and finalized head at once and derivation continues from there (`onElSyncDone`).
   */
  elSyncing = false;
  onElSyncDone: ((ref: L2BlockRef) => void) | null = null;

  private async insertElSync(env: PayloadEnvelope): Promise<boolean> {
    const status = await this.engine.newPayload(env);
    if (status.status === "INVALID" || status.status === "INVALID_BLOCK_HASH") {
      throw new PayloadRejectedError(status, `engine refused payload ${bytesToHex(env.blockHash)} during EL sync`);
    }
    const zero = new Uint8Array(32);
    const r = await this.engine.forkchoiceUpdate({ head: env.blockHash, safe: zero, finalized: zero }, null);
    if (r.status.status === "INVALID" || r.status.status === "INVALID_BLOCK_HASH") {
      throw new PayloadRejectedError(
        r.status,
        `engine refused forkchoice to ${bytesToHex(env.blockHash)} during EL sync`,
      );
    }
    if (r.status.status !== "VALID") return true;
    const ref = await this.engine.blockRef(env.blockHash);
    if (ref === null) throw temporaryError(`engine lost block ${bytesToHex(env.blockHash)}`);
    this.elSyncing = false;
    this.heads = { unsafe: ref, pendingSafe: ref, localSafe: ref, safe: ref, finalized: ref };
    await this.forkchoice();
    this.log.info("finished EL sync", { number: ref.number, hash: bytesToHex(ref.hash) });
    this.onElSyncDone?.(ref);
    return true;
  }

  /** Derived attributes: consolidate with the unsafe chain or build; see the file comment. */
  async processAttributes(a: AttributesWithParent): Promise<AttributesOutcome> {
    const h = this.heads;
    if (a.parent.number !== h.pendingSafe.number || !equalBytes(a.parent.hash, h.pendingSafe.hash)) {
      return {
        kind: "stale",
        reason: `attributes build on ${a.parent.number} but the pending safe head is ${h.pendingSafe.number}`,
      };
    }
    let reorg = false;
    if (h.pendingSafe.number < h.unsafe.number) {
      const block = await this.engine.block(h.pendingSafe.number + 1);
      if (block !== null) {
        const why = attributesMismatch(this.cfg, a.attributes, a.parent.hash, block);
        if (why === null) {
          this.promote(block.ref, a.isLastInSpan, a.derivedFrom);
          await this.applyPromotions();
          await this.forkchoice();
          return { kind: "consolidated", ref: block.ref };
        }
        this.log.warn("L2 reorg: existing unsafe block does not match derived attributes from L1", {
          number: block.ref.number,
          reason: why,
        });
        reorg = true;
      }
    }
    const built = await this.build(a.parent, a.attributes);
    if (built.ok) {
      this.heads = { ...this.heads, unsafe: built.ref };
      this.promote(built.ref, a.isLastInSpan, a.derivedFrom);
      await this.applyPromotions();
      await this.forkchoice();
      return { kind: "built", ref: built.ref, reorged: reorg };
    }
    if (!isForkActive(this.cfg, "holocene", a.attributes.timestamp)) {
      this.log.warn("dropping invalid derived attributes", { reason: built.reason });
      return { kind: "dropped", reason: built.reason };
    }
    const depositsOnly: PayloadAttributes = {
      ...a.attributes,
      transactions: a.attributes.transactions.filter(isDepositTx),
      noTxPool: true,
    };
    this.log.warn("Holocene: invalid derived payload, building a deposit-only block", { reason: built.reason });
    const retry = await this.build(a.parent, depositsOnly);
    if (!retry.ok) throw criticalError(`deposit-only block was refused by the engine: ${retry.reason}`);
    this.heads = { ...this.heads, unsafe: retry.ref };
    this.promote(retry.ref, true, a.derivedFrom);
    await this.applyPromotions();
    await this.forkchoice();
    return { kind: "depositsOnly", ref: retry.ref };
  }

  /**
   * Builds a block from attributes on `parent` without moving safe: forkchoiceUpdated with
   * attributes, getPayload, newPayload. Also the sequencer's path (issue 7). Returns the envelope too.
   */
  async build(
    parent: L2BlockRef,
    attrs: PayloadAttributes,
  ): Promise<{ ok: true; ref: L2BlockRef; envelope: PayloadEnvelope } | { ok: false; reason: string }> {
    const h = this.heads;
    let start: Awaited<ReturnType<EngineClient["forkchoiceUpdate"]>>;
    try {
      start = await this.engine.forkchoiceUpdate(
        { head: parent.hash, safe: h.safe.hash, finalized: h.finalized.hash },
        attrs,
      );
    } catch (e) {
      // op-node startPayload: invalid attributes are the batch's fault (drop or deposit-only); an
      // invalid forkchoice state means our heads are wrong (reset); anything else is retried.
      if (e instanceof RpcCallError && e.code === INVALID_PAYLOAD_ATTRIBUTES) return { ok: false, reason: e.message };
      if (e instanceof RpcCallError && e.code === INVALID_FORKCHOICE_STATE) {
        throw resetError(`engine rejected the forkchoice state: ${e.message}`);
      }
      throw e;
    }
    if (start.status.status === "INVALID" || start.status.status === "INVALID_BLOCK_HASH") {
      return { ok: false, reason: start.status.validationError ?? start.status.status };
    }
    if (start.status.status !== "VALID" || start.payloadId === null) {
      throw temporaryError(`engine not ready to build on ${parent.number}: ${start.status.status}`);
    }
    const env = await this.engine.getPayload(start.payloadId, attrs.timestamp);
    const status = await this.engine.newPayload(env);
    if (status.status === "INVALID" || status.status === "INVALID_BLOCK_HASH") {
      return { ok: false, reason: status.validationError ?? status.status };
    }
    if (status.status !== "VALID") throw temporaryError(`engine answered ${status.status} to a built payload`);
    // op-node PayloadToBlockRef: the ref comes from the payload the engine built and took, not from
    // reading the block back (PERF: one eth_getBlockByHash a derived block less for both processes).
    return { ok: true, ref: payloadRef(this.cfg, env), envelope: env };
  }

  /**
   * Sequencing: builds a block from `attrs` on the unsafe head and makes it the new unsafe head
   * (safe and finalized stay). Throws PayloadRejectedError when the engine refuses the attributes.
   */
  async buildUnsafe(attrs: PayloadAttributes): Promise<{ ref: L2BlockRef; envelope: PayloadEnvelope }> {
    const built = await this.build(this.heads.unsafe, attrs);
    if (!built.ok) {
      throw new PayloadRejectedError(
        { status: "INVALID", latestValidHash: null, validationError: built.reason },
        `engine refused to build on ${this.heads.unsafe.number}: ${built.reason}`,
      );
    }
    this.heads = { ...this.heads, unsafe: built.ref };
    await this.forkchoice();
    return { ref: built.ref, envelope: built.envelope };
  }

  /** The sequencer built and inserted `ref` on the unsafe head: make it the unsafe head. */
  async adoptUnsafe(ref: L2BlockRef): Promise<void> {
    this.heads = { ...this.heads, unsafe: ref };
    await this.forkchoice();
  }

  private promote(ref: L2BlockRef, concluding: boolean, derivedFrom: L1BlockRef): void {
    // SPEC: interop managed mode — local-safe Interop blocks wait for the supervisor's cross-safe.
    const safeNow = concluding && !(this.managed && isForkActive(this.cfg, "interop", ref.timestamp));
    this.heads = {
      ...this.heads,
      pendingSafe: ref,
      ...(concluding ? { localSafe: ref } : {}),
      ...(safeNow ? { safe: ref } : {}),
    };
    if (this.heads.unsafe.number < ref.number) this.heads = { ...this.heads, unsafe: ref };
    if (safeNow) this.onSafe?.(ref, derivedFrom);
  }

  /**
   * Managed mode: the supervisor promoted `ref` (derived from `source`) to cross-safe. Applied now
   * when possible (see `applyPromotions`), then sent to the engine; true when a head moved.
   */
  async promoteCrossSafe(ref: L2BlockRef, source: L1BlockRef): Promise<boolean> {
    if (!this.managed) throw new Error("cross-safe promotions need managed mode");
    this.crossSafeTarget = { ref, source };
    return this.promoted();
  }

  /** Managed mode: the supervisor finalized `ref`; like `promoteCrossSafe`, capped at the safe head. */
  async promoteFinalized(ref: L2BlockRef): Promise<boolean> {
    if (!this.managed) throw new Error("finality promotions need managed mode");
    this.finalizedTarget = ref;
    return this.promoted();
  }

  private async promoted(): Promise<boolean> {
    const before = this.heads;
    await this.applyPromotions();
    if (this.heads.safe === before.safe && this.heads.finalized === before.finalized) return false;
    await this.forkchoice();
    return true;
  }

  /**
   * Moves safe to the supervisor's cross-safe block, or to the local-safe head while that block is
   * above it (the canonical ancestors of a cross-safe block are cross-safe), and finalized likewise
   * under safe. Only forward; a target that is no longer the canonical block at its number on the
   * engine (an L2 reorg since) is dropped, and one at or below the head it moves is done.
   */
  private async applyPromotions(): Promise<void> {
    const cross = this.crossSafeTarget;
    if (cross !== null) {
      const h = this.heads;
      if (cross.ref.number <= h.safe.number) this.crossSafeTarget = null;
      else if (h.localSafe.number > h.safe.number) {
        if (!(await this.canonical(cross.ref))) this.crossSafeTarget = null;
        else {
          const to = cross.ref.number <= h.localSafe.number ? cross.ref : h.localSafe;
          this.heads = { ...this.heads, safe: to };
          if (to === cross.ref) this.crossSafeTarget = null;
          this.onSafe?.(to, cross.source);
        }
      }
    }
    const fin = this.finalizedTarget;
    if (fin !== null) {
      const h = this.heads;
      if (fin.number <= h.finalized.number) this.finalizedTarget = null;
      else if (h.safe.number > h.finalized.number) {
        if (!(await this.canonical(fin))) this.finalizedTarget = null;
        else {
          const to = fin.number <= h.safe.number ? fin : h.safe;
          this.heads = { ...this.heads, finalized: to };
          if (to === fin) this.finalizedTarget = null;
        }
      }
    }
  }

  private async canonical(ref: L2BlockRef): Promise<boolean> {
    const onEngine = await this.engine.blockRef(ref.number);
    if (onEngine !== null && equalBytes(onEngine.hash, ref.hash)) return true;
    this.log.warn("dropping a supervisor promotion of a block that is no longer canonical", {
      number: ref.number,
      hash: bytesToHex(ref.hash),
    });
    return false;
  }

  /** Derivation finished L1 block `l1`: the current safe head is a finality candidate for it. */
  recordDerivedFrom(l1: L1BlockRef): void {
    const last = this.finalityData.at(-1);
    const safe = this.heads.safe;
    // SPEC: in managed mode the supervisor finalizes Interop blocks (op-node finalizer onDerivedSafeBlock).
    if (this.managed && isForkActive(this.cfg, "interop", safe.timestamp)) return;
    if (last !== undefined && last.l1.number === l1.number) {
      last.l2 = safe;
      last.l1 = l1;
      return;
    }
    if (last !== undefined && last.l1.number > l1.number) {
      this.finalityData = this.finalityData.filter((f) => f.l1.number < l1.number);
    }
    this.finalityData.push({ l1, l2: safe });
    if (this.finalityData.length > EngineController.FINALITY_LOOKBACK) this.finalityData.shift();
  }

  /**
   * L1 finalized `l1Finalized`: finalize the newest safe head derived from L1 at or below it.
   * `canonical(n)` returns the canonical L1 hash at n so a reorged-out record is never used.
   */
  async finalize(l1Finalized: L1BlockRef, canonical: (n: number) => Promise<Uint8Array>): Promise<boolean> {
    let pick: L2BlockRef | null = null;
    for (const f of this.finalityData) {
      if (f.l1.number > l1Finalized.number) break;
      if (f.l2.number > (pick?.number ?? this.heads.finalized.number)) {
        if (!equalBytes(await canonical(f.l1.number), f.l1.hash)) continue;
        pick = f.l2;
      }
    }
    if (pick === null) return false;
    this.heads = { ...this.heads, finalized: pick };
    await this.forkchoice();
    return true;
  }
}
