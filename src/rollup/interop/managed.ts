/**
 * Managed mode (op-node rollup/interop/managed/system.go and api.go; specs/interop/managed-mode.md):
 * what an op-supervisor that dialled the interop RPC (`--interop.rpc.addr`) uses to drive the node.
 *
 * Node → supervisor: `ManagedEvent`s (`reset`, `unsafeBlock`, `derivationUpdate`,
 * `derivationOriginUpdate`, `exhaustL1`), pulled one at a time with `interop_pullEvent` (-39001 "out
 * of events" when none is queued) or pushed over the `interop_subscribe ["events"]` subscription as
 * `{"data": event}` (op-service rpc.Stream: at most 100 queued, oldest dropped; one subscriber; a
 * pull closes the subscription with `{"data": null, "close": true}`). The events are derived from the
 * node's own sync status, which the shell hands to `observe` on every head poll: each new unsafe
 * block (gaps filled block by block, up to `MAX_UNSAFE_FILL`), each move of the derived (local-safe)
 * head or of the L1 block derivation is at, and derivation reaching the end of the L1 data it has —
 * the L1 head, or the last L1 block the supervisor provided. Blocks before the Interop fork are not
 * reported (op-node ignores pre-Interop updates).
 *
 * Supervisor → node: `interop_updateCrossUnsafe`, `interop_updateCrossSafe`,
 * `interop_updateFinalized` check the block against the execution client (and the L1 block against
 * L1) and set the node's cross-unsafe, cross-safe and finalized heads, which `optimism_syncStatus`
 * then reports (`cross_unsafe_l2`, `safe_l2`, `finalized_l2`; the derived head stays as
 * `local_safe_l2`), never above the local heads. With derivation running, cross-safe and finalized
 * also go to the engine's forkchoice (op-node's PromoteSafeEvent / PromoteFinalizedEvent; `promote*`
 * deps, engine/engineController.ts), where derivation moves only the local-safe head of Interop
 * blocks; a promotion above the local-safe head applies as derivation catches up.
 * `interop_reset` checks its targets against the canonical chain (-39001 block not found, -39002
 * conflicting block with the canonical ref as data), sets the cross heads, and forces the engine's
 * unsafe, local-safe, (cross-)safe and finalized heads to the targets before derivation restarts
 * from the cross-safe one.
 * `interop_provideL1` checks the block against L1 and that it extends the previous one.
 * `interop_invalidateBlock` rebuilds the block on its parent with its deposits and the optimistic
 * block deposit (interop/replacement.ts), makes the replacement the unsafe head (a reorg of the
 * invalidated block and its descendants) and reports a `replaceBlock` event; it is done before the
 * call returns (op-node returns first). Only unsafe blocks can be replaced: Opal's derivation does
 * not yet hold back local-safe blocks for the supervisor.
 */
import { bytesToHex, hexToBytes } from "../../primitives/hex.js";
import type { JsonObject } from "../../primitives/json.js";
import { RpcError } from "../../rpc/errors.js";
import { hash, jsonKind, type ParamDecoder, ParamError } from "../../rpc/params.js";
import { type AnyMethod, type AnySubscription, defineMethod, defineSubscription } from "../../rpc/registry.js";
import type { Subscription } from "../../rpc/subscriptions.js";
import type { Logger } from "../../util/log.js";
import type { L2Source } from "../api/l2Source.js";
import { isForkActive, type RollupConfig } from "../config/rollupConfig.js";
import type { PayloadAttributes } from "../derive/attributes.js";
import type { EngineClient } from "../engine/engineClient.js";
import {
  type BlockId,
  type L1BlockRef,
  type L2BlockRef,
  l1RefJson,
  l2RefJson,
  type SyncStatus,
  ZERO_L1_REF,
} from "../refs.js";
import type { RpcTransport } from "../transport/rpcTransport.js";
import { attributesToReplaceInvalidBlock } from "./replacement.js";

/** op-service rpc.OutOfEventsErrCode. */
export const OUT_OF_EVENTS_ERR_CODE = -39001;
/** op-node managed mode: a reset target that the chain does not have. */
export const BLOCK_NOT_FOUND_ERR_CODE = -39001;
/** op-node managed mode: a reset target whose hash is not the canonical block at its number. */
export const CONFLICTING_BLOCK_ERR_CODE = -39002;
/** op-node managed mode: anchorPoint on a chain where Interop is not active at genesis. */
export const INTEROP_INACTIVE_ERR_CODE = -39003;
const INTERNAL_ERROR_CODE = -32603;

/** op-node NewStream(log, 100). */
export const EVENT_QUEUE_SIZE = 100;
/** Unsafe blocks read back one by one when the head jumped; a longer jump reports only the head. */
export const MAX_UNSAFE_FILL = 64;

/** One `ManagedEvent` (op-supervisor types.ManagedEvent): exactly the fields that are set. */
export interface ManagedEvent {
  readonly reset?: string;
  readonly unsafeBlock?: JsonObject;
  readonly derivationUpdate?: JsonObject;
  readonly exhaustL1?: JsonObject;
  readonly replaceBlock?: JsonObject;
  readonly derivationOriginUpdate?: JsonObject;
}

/** What managed mode reads L1 with (rollup/l1Client.ts fits). */
export interface ManagedL1 {
  l1BlockRefByHash(hash: Uint8Array): Promise<L1BlockRef>;
}

export interface ManagedModeDeps {
  readonly cfg: RollupConfig;
  /** L2 blocks by number, output roots. */
  readonly l2: L2Source;
  /** L2 blocks by hash. */
  readonly engine: EngineClient;
  /** The execution client's endpoint (eth_getBlockReceipts). */
  readonly l2Rpc: RpcTransport;
  /** The L1 client; null when the node runs without `--l1`. */
  readonly l1: () => ManagedL1 | null;
  /**
   * op-node's ForceResetEvent: sets the engine's unsafe, local-safe, safe and finalized heads to
   * these blocks and restarts derivation from them; rejects when derivation does not run.
   */
  readonly forceReset: (h: {
    unsafe: L2BlockRef;
    localSafe: L2BlockRef;
    safe: L2BlockRef;
    finalized: L2BlockRef;
  }) => Promise<void>;
  /**
   * op-node's PromoteSafeEvent / PromoteFinalizedEvent: the supervisor's cross-safe (derived from
   * `source`) and finalized blocks for the engine's forkchoice; resolve without effect when
   * derivation does not run (the heads are then only kept and reported).
   */
  readonly promoteCrossSafe: (ref: L2BlockRef, source: L1BlockRef) => Promise<void>;
  readonly promoteFinalized: (ref: L2BlockRef) => Promise<void>;
  /**
   * Builds `attrs` on `parent` and makes the result the unsafe head in place of `invalidated`;
   * throws when that cannot be done (no derivation, the block is safe, the engine refused).
   */
  readonly replaceBlock: (invalidated: L2BlockRef, parent: L2BlockRef, attrs: PayloadAttributes) => Promise<L2BlockRef>;
  readonly log: Logger;
}

/**
 * op-service rpc.Stream: events queue up for `pull` until a subscriber takes over; then they are
 * pushed and nothing is queued.
 */
export class EventStream {
  private queue: ManagedEvent[] = [];
  private sub: Subscription | null = null;
  /** Events dropped because the queue was full. */
  dropped = 0;

  constructor(private readonly maxQueue = EVENT_QUEUE_SIZE) {}

  get queued(): number {
    return this.queue.length;
  }

  get subscribed(): boolean {
    return this.sub !== null && !this.sub.cancelled;
  }

  send(ev: ManagedEvent): void {
    const s = this.sub;
    if (s !== null && !s.cancelled) {
      s.notify({ data: ev });
      return;
    }
    this.sub = null;
    this.queue.push(ev);
    const over = this.queue.length - this.maxQueue;
    if (over > 0) {
      this.queue.splice(0, over);
      this.dropped += over;
    }
  }

  /** The oldest queued event; closes any subscription first (pulling and pushing exclude each other). */
  pull(): ManagedEvent {
    this.closeSub();
    const ev = this.queue.shift();
    if (ev === undefined) throw new RpcError(OUT_OF_EVENTS_ERR_CODE, "out of events");
    return ev;
  }

  /** A new subscriber gets every later event; what was queued is dropped. */
  subscribe(sub: Subscription): void {
    this.closeSub();
    this.sub = sub;
    this.queue = [];
    sub.onCancel(() => {
      if (this.sub === sub) this.sub = null;
    });
  }

  private closeSub(): void {
    const s = this.sub;
    if (s === null) return;
    this.sub = null;
    if (!s.cancelled) s.notify({ data: null, close: true });
  }
}

/** eth.BlockRef's JSON of an L2 block (no L1 origin). */
function blockRefJson(r: L1BlockRef): JsonObject {
  return l1RefJson(r);
}

function sameBlock(a: BlockId, b: BlockId): boolean {
  return a.number === b.number && bytesToHex(a.hash) === bytesToHex(b.hash);
}

function isZero(r: BlockId): boolean {
  return r.number === 0 && r.hash.every((b) => b === 0);
}

/** The lower of two refs by number (the first when equal). */
function atMost<T extends BlockId>(a: T, cap: T): T {
  return a.number <= cap.number ? a : cap;
}

export class ManagedMode {
  readonly events = new EventStream();
  private crossUnsafe: L2BlockRef | null = null;
  private crossSafe: { derived: L2BlockRef; source: L1BlockRef } | null = null;
  private finalized: L2BlockRef | null = null;
  private providedL1: L1BlockRef | null = null;
  // What `observe` saw last.
  private lastUnsafe: L2BlockRef | null = null;
  private lastSafe: L2BlockRef | null = null;
  private lastCurrentL1: L1BlockRef | null = null;
  private lastResets = 0;
  private exhaustedAt = "";
  private observing: Promise<void> = Promise.resolve();

  constructor(private readonly d: ManagedModeDeps) {}

  /** The heads the supervisor set (null = not set yet). */
  get heads(): {
    crossUnsafe: L2BlockRef | null;
    crossSafe: { derived: L2BlockRef; source: L1BlockRef } | null;
    finalized: L2BlockRef | null;
    providedL1: L1BlockRef | null;
  } {
    return {
      crossUnsafe: this.crossUnsafe,
      crossSafe: this.crossSafe,
      finalized: this.finalized,
      providedL1: this.providedL1,
    };
  }

  private interopAt(timestamp: number): boolean {
    return isForkActive(this.d.cfg, "interop", timestamp);
  }

  /**
   * The sync status with the supervisor's heads: cross-unsafe at most the unsafe head, cross-safe
   * (reported as `safe_l2`) at most the derived head, which becomes `local_safe_l2`, and finalized
   * at most the cross-safe head. Heads the supervisor has not set stay as the node has them. A
   * status that has its local-safe head (derivation in managed mode) has the engine's safe and
   * finalized heads, which are the supervisor's already.
   */
  overlay(s: SyncStatus): SyncStatus {
    const crossUnsafe = this.crossUnsafe === null ? s.unsafeL2 : atMost(this.crossUnsafe, s.unsafeL2);
    if (s.localSafeL2 !== undefined) return { ...s, crossUnsafeL2: crossUnsafe };
    const crossSafe = this.crossSafe === null ? s.safeL2 : atMost(this.crossSafe.derived, s.safeL2);
    const finalized = this.finalized === null ? s.finalizedL2 : atMost(this.finalized, crossSafe);
    return { ...s, crossUnsafeL2: crossUnsafe, localSafeL2: s.safeL2, safeL2: crossSafe, finalizedL2: finalized };
  }

  /**
   * Turns a new sync status into events. `resets` is the driver's pipeline reset count (0 without
   * derivation). Calls are serialised; a failed block read skips the fill and reports the head.
   */
  observe(s: SyncStatus, resets: number): Promise<void> {
    // A failed call (reported to its caller) does not stop the ones after it.
    this.observing = this.observing.catch(() => undefined).then(() => this.observeNow(s, resets));
    return this.observing;
  }

  private async observeNow(s: SyncStatus, resets: number): Promise<void> {
    if (resets > this.lastResets) {
      this.lastResets = resets;
      this.events.send({ reset: `derivation pipeline reset (${resets})` });
    }
    await this.observeUnsafe(s.unsafeL2);
    const derivationRuns = !isZero(s.currentL1);
    if (!derivationRuns) return;
    const safe = s.localSafeL2 ?? s.safeL2;
    const l1 = s.currentL1;
    const safeMoved = this.lastSafe === null || !sameBlock(this.lastSafe, safe);
    const l1Moved = this.lastCurrentL1 === null || !sameBlock(this.lastCurrentL1, l1);
    this.lastSafe = safe;
    this.lastCurrentL1 = l1;
    if ((safeMoved || l1Moved) && this.interopAt(safe.timestamp)) {
      const pair = { source: blockRefJson(l1), derived: blockRefJson(safe) };
      this.events.send(
        l1Moved ? { derivationUpdate: pair, derivationOriginUpdate: blockRefJson(l1) } : { derivationUpdate: pair },
      );
    }
    // Derivation used up the L1 it has: the L1 head, or what the supervisor provided last.
    const end = this.providedL1 ?? s.headL1;
    const exhausted = !isZero(s.headL1) && l1.number >= end.number;
    const key = bytesToHex(l1.hash);
    if (exhausted && key !== this.exhaustedAt) {
      this.exhaustedAt = key;
      this.events.send({ exhaustL1: { source: blockRefJson(l1), derived: blockRefJson(safe) } });
    }
  }

  private async observeUnsafe(head: L2BlockRef): Promise<void> {
    const last = this.lastUnsafe;
    if (isZero(head) || (last !== null && sameBlock(last, head))) return;
    this.lastUnsafe = head;
    const refs: L2BlockRef[] = [];
    if (last !== null && head.number > last.number && head.number - last.number <= MAX_UNSAFE_FILL) {
      try {
        for (let n = last.number + 1; n < head.number; n++) {
          const r = await this.d.l2.blockRef(n);
          if (r === null) break;
          refs.push(r);
        }
        // Only a continuous chain from the last head is reported block by block.
        const chain = [...refs, head];
        let parent: BlockId = last;
        for (const r of chain) {
          if (bytesToHex(r.parentHash) !== bytesToHex(parent.hash)) {
            refs.length = 0;
            break;
          }
          parent = r;
        }
      } catch (e) {
        this.d.log.debug("Interop: could not read the unsafe blocks between two heads", { err: (e as Error).message });
        refs.length = 0;
      }
    }
    for (const r of [...refs, head]) {
      if (this.interopAt(r.timestamp)) this.events.send({ unsafeBlock: blockRefJson(r) });
    }
  }

  private async l2ByHash(id: BlockId): Promise<L2BlockRef> {
    const r = await this.d.engine.blockRef(id.hash);
    if (r === null) throw RpcError.server(`failed to get L2BlockRef: block ${bytesToHex(id.hash)} not found`);
    return r;
  }

  private async l1ByHash(id: BlockId, what: string): Promise<L1BlockRef> {
    const l1 = this.d.l1();
    if (l1 === null) throw RpcError.server(`failed to get ${what}: no L1 source (--l1) configured`);
    try {
      return await l1.l1BlockRefByHash(id.hash);
    } catch (e) {
      throw RpcError.server(`failed to get ${what}: ${(e as Error).message}`);
    }
  }

  async updateCrossUnsafe(id: BlockId): Promise<null> {
    const ref = await this.l2ByHash(id);
    this.crossUnsafe = ref;
    this.d.log.debug("Supervisor promoted cross-unsafe", { number: ref.number, hash: bytesToHex(ref.hash) });
    return null;
  }

  async updateCrossSafe(derived: BlockId, derivedFrom: BlockId): Promise<null> {
    const l2 = await this.l2ByHash(derived);
    const l1 = await this.l1ByHash(derivedFrom, "L1BlockRef");
    this.crossSafe = { derived: l2, source: l1 };
    this.d.log.info("Supervisor promoted cross-safe", { number: l2.number, hash: bytesToHex(l2.hash), l1: l1.number });
    try {
      await this.d.promoteCrossSafe(l2, l1);
    } catch (e) {
      throw RpcError.server(`failed to promote cross-safe: ${(e as Error).message}`);
    }
    return null;
  }

  async updateFinalized(id: BlockId): Promise<null> {
    const ref = await this.l2ByHash(id);
    this.finalized = ref;
    this.d.log.info("Supervisor finalized", { number: ref.number, hash: bytesToHex(ref.hash) });
    try {
      await this.d.promoteFinalized(ref);
    } catch (e) {
      throw RpcError.server(`failed to promote finalized: ${(e as Error).message}`);
    }
    return null;
  }

  /** The L1 and L2 genesis blocks (the anchor the supervisor starts this chain from). */
  async anchorPoint(): Promise<JsonObject> {
    const cfg = this.d.cfg;
    if (!this.interopAt(cfg.genesis.l2Time))
      throw new RpcError(INTEROP_INACTIVE_ERR_CODE, "Interop inactive at genesis");
    const l1 = await this.l1ByHash(cfg.genesis.l1, "L1 block ref");
    const l2 = await this.d.engine.blockRef(cfg.genesis.l2.hash);
    if (l2 === null) throw RpcError.server("failed to fetch L2 block ref: genesis block not found");
    return { source: blockRefJson(l1), derived: blockRefJson(l2) };
  }

  /**
   * interop_reset: every target must be the canonical block at its number; then the heads are set
   * and derivation restarts from the execution client's chain.
   */
  async reset(t: {
    localUnsafe: BlockId;
    crossUnsafe: BlockId;
    localSafe: BlockId;
    crossSafe: BlockId;
    finalized: BlockId;
  }): Promise<null> {
    const verify = async (id: BlockId, name: string): Promise<L2BlockRef> => {
      let r: L2BlockRef | null;
      try {
        r = await this.d.l2.blockRef(id.number);
      } catch {
        throw new RpcError(INTERNAL_ERROR_CODE, "failed to find block reference", name);
      }
      if (r === null) throw new RpcError(BLOCK_NOT_FOUND_ERR_CODE, `${name} reset target not found`);
      if (bytesToHex(r.hash) !== bytesToHex(id.hash)) {
        throw new RpcError(CONFLICTING_BLOCK_ERR_CODE, "conflicting block", l2RefJson(r));
      }
      return r;
    };
    const localUnsafe = await verify(t.localUnsafe, "unsafe");
    const crossUnsafe = await verify(t.crossUnsafe, "cross-unsafe");
    const localSafe = await verify(t.localSafe, "safe");
    const crossSafe = await verify(t.crossSafe, "cross-safe");
    const finalized = await verify(t.finalized, "finalized");
    this.d.log.info("Supervisor reset", {
      unsafe: t.localUnsafe.number,
      crossSafe: crossSafe.number,
      finalized: finalized.number,
    });
    this.crossUnsafe = crossUnsafe;
    this.crossSafe = { derived: crossSafe, source: this.crossSafe?.source ?? ZERO_L1_REF };
    this.finalized = finalized;
    this.providedL1 = null;
    try {
      await this.d.forceReset({ unsafe: localUnsafe, localSafe, safe: crossSafe, finalized });
    } catch (e) {
      throw RpcError.server(`failed to reset: ${(e as Error).message}`);
    }
    return null;
  }

  /** The next L1 block for derivation: it must be on L1 and extend the previous one provided. */
  async provideL1(next: L1BlockRef): Promise<null> {
    const onL1 = await this.l1ByHash(next, "L1 block");
    if (onL1.number !== next.number || bytesToHex(onL1.parentHash) !== bytesToHex(next.parentHash)) {
      throw RpcError.server(
        `provided L1 block ${next.number} (${bytesToHex(next.hash)}) does not match L1: number ${onL1.number}, parent ${bytesToHex(onL1.parentHash)}`,
      );
    }
    const prev = this.providedL1;
    if (prev !== null && !sameBlock(prev, next) && bytesToHex(next.parentHash) !== bytesToHex(prev.hash)) {
      throw RpcError.server(
        `provided L1 block ${next.number} does not build on the last one provided, ${prev.number} (${bytesToHex(prev.hash)})`,
      );
    }
    this.providedL1 = onL1;
    this.d.log.info("Received next L1 block", { number: onL1.number, hash: bytesToHex(onL1.hash) });
    return null;
  }

  /** interop_invalidateBlock: replaces the block `seal` names (see the file comment). */
  async invalidateBlock(seal: { hash: Uint8Array; number: number; timestamp: number }): Promise<null> {
    this.d.log.info("Invalidating block", { number: seal.number, hash: bytesToHex(seal.hash) });
    const env = await this.d.engine.payloadByNumber(seal.number);
    if (env === null || bytesToHex(env.blockHash) !== bytesToHex(seal.hash)) {
      throw RpcError.server(`failed to get block: ${bytesToHex(seal.hash)} is not the canonical block ${seal.number}`);
    }
    const invalidated = await this.d.engine.blockRef(env.blockHash);
    const parentHash = env.executionPayload.parentHash;
    const parent = typeof parentHash === "string" ? await this.d.engine.blockRef(hexToBytes(parentHash)) : null;
    if (invalidated === null || parent === null) {
      throw RpcError.server("failed to get parent of invalidated block");
    }
    let attrs: PayloadAttributes;
    try {
      attrs = attributesToReplaceInvalidBlock(this.d.cfg, env);
    } catch (e) {
      throw RpcError.server((e as Error).message);
    }
    let replacement: L2BlockRef;
    try {
      replacement = await this.d.replaceBlock(invalidated, parent, attrs);
    } catch (e) {
      throw RpcError.server(`failed to replace block ${seal.number}: ${(e as Error).message}`);
    }
    this.d.log.info("Replaced block", { number: replacement.number, replacement: bytesToHex(replacement.hash) });
    // The replacement is the unsafe head now; `observe` must not read it as a new unsafe block.
    this.lastUnsafe = replacement;
    if (this.crossUnsafe !== null && this.crossUnsafe.number >= seal.number) this.crossUnsafe = parent;
    this.events.send({ replaceBlock: { replacement: blockRefJson(replacement), invalidated: bytesToHex(seal.hash) } });
    return null;
  }

  async fetchReceipts(blockHash: Uint8Array): Promise<unknown> {
    const r = await this.d.l2Rpc.call<unknown[] | null>("eth_getBlockReceipts", [bytesToHex(blockHash)]);
    if (r === null) throw RpcError.server("not found");
    return r;
  }

  async blockRefByNumber(n: number): Promise<JsonObject> {
    const r = await this.d.l2.blockRef(n);
    if (r === null) throw RpcError.server("not found");
    return blockRefJson(r);
  }

  chainId(): string {
    return this.d.cfg.l2ChainId.toString();
  }

  /** op-node rollup.Config.TargetBlockNumber. */
  targetBlockNumber(timestamp: number): number {
    const g = this.d.cfg.genesis;
    if (timestamp < g.l2Time) throw RpcError.server(`did not reach genesis time (${g.l2Time}) yet`);
    return g.l2.number + Math.floor((timestamp - g.l2Time) / this.d.cfg.blockTime);
  }

  async l2BlockRefByTimestamp(timestamp: number): Promise<L2BlockRef> {
    const r = await this.d.l2.blockRef(this.targetBlockNumber(timestamp));
    if (r === null) throw RpcError.server("not found");
    return r;
  }

  /** eth.OutputV0's JSON (Go field names: the struct has no json tags). */
  async outputV0AtTimestamp(timestamp: number): Promise<JsonObject> {
    const ref = await this.l2BlockRefByTimestamp(timestamp);
    const o = await this.d.l2.outputAtBlock(ref.number);
    if (bytesToHex(o.blockRef.hash) !== bytesToHex(ref.hash))
      throw RpcError.server("L2 chain changed while reading the output");
    return {
      StateRoot: bytesToHex(o.stateRoot),
      MessagePasserStorageRoot: bytesToHex(o.withdrawalStorageRoot),
      BlockHash: bytesToHex(o.blockRef.hash),
    };
  }
}

// ---- parameter decoders (Go encoding/json into op-service eth types) ----

/** A Go uint64 from a JSON number (as a `number`, exact up to 2^53-1). */
function goUint64(v: unknown, where: string): number {
  if (typeof v !== "number")
    throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go ${where} of type uint64`);
  if (!Number.isInteger(v) || v < 0)
    throw new ParamError(`json: cannot unmarshal number ${v} into Go ${where} of type uint64`);
  if (!Number.isSafeInteger(v)) throw new ParamError(`json: number ${v} into Go ${where} is beyond 2^53-1`);
  return v;
}

/** Go matches JSON keys to fields case-insensitively; the first match wins. */
function field(o: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(o, name)) return o[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k];
  return undefined;
}

function hashField(o: Record<string, unknown>, name: string): Uint8Array {
  const v = field(o, name);
  if (v === undefined || v === null) return new Uint8Array(32);
  return hash.decode(v);
}

function uintField(o: Record<string, unknown>, name: string, goType: string): number {
  const v = field(o, name);
  if (v === undefined || v === null) return 0;
  return goUint64(v, `struct field ${goType}.${name}`);
}

function objectParam(v: unknown, goType: string): Record<string, unknown> {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type ${goType}`);
  }
  return v as Record<string, unknown>;
}

/** A plain JSON uint64 argument (Go `uint64`, not hexutil). */
export const plainUint64: ParamDecoder<number> = { optional: false, decode: (v) => goUint64(v, "value") };

/** eth.BlockID: `{"hash", "number"}`. */
export const blockIdParam: ParamDecoder<BlockId> = {
  optional: false,
  decode: (v) => {
    const o = objectParam(v, "eth.BlockID");
    return { hash: hashField(o, "hash"), number: uintField(o, "number", "BlockID") };
  },
};

/** eth.BlockRef (L1BlockRef): `{"hash", "number", "parentHash", "timestamp"}`. */
export const blockRefParam: ParamDecoder<L1BlockRef> = {
  optional: false,
  decode: (v) => {
    const o = objectParam(v, "eth.L1BlockRef");
    return {
      hash: hashField(o, "hash"),
      number: uintField(o, "number", "L1BlockRef"),
      parentHash: hashField(o, "parentHash"),
      timestamp: uintField(o, "timestamp", "L1BlockRef"),
    };
  },
};

/** supervisor types.BlockSeal: `{"Hash", "Number", "Timestamp"}` (Go field names, no json tags). */
export const blockSealParam: ParamDecoder<{ hash: Uint8Array; number: number; timestamp: number }> = {
  optional: false,
  decode: (v) => {
    const o = objectParam(v, "types.BlockSeal");
    return {
      hash: hashField(o, "Hash"),
      number: uintField(o, "Number", "BlockSeal"),
      timestamp: uintField(o, "Timestamp", "BlockSeal"),
    };
  },
};

const optionalBlockId: ParamDecoder<BlockId | undefined> = {
  optional: true,
  decode: (v) => (v === null || v === undefined ? undefined : blockIdParam.decode(v)),
};

/** The `interop_*` methods and the `events` subscription of managed mode. */
export function interopMethods(m: ManagedMode): (AnyMethod | AnySubscription)[] {
  return [
    defineMethod({ name: "interop_pullEvent", params: [], handler: () => m.events.pull() }),
    defineSubscription({
      namespace: "interop",
      name: "events",
      params: [],
      handler: (_p, sub) => m.events.subscribe(sub),
    }),
    defineMethod({
      name: "interop_updateCrossUnsafe",
      params: [blockIdParam],
      handler: ([id]) => m.updateCrossUnsafe(id),
    }),
    defineMethod({
      name: "interop_updateCrossSafe",
      params: [blockIdParam, blockIdParam],
      handler: ([derived, from]) => m.updateCrossSafe(derived, from),
    }),
    defineMethod({ name: "interop_updateFinalized", params: [blockIdParam], handler: ([id]) => m.updateFinalized(id) }),
    defineMethod({ name: "interop_anchorPoint", params: [], handler: () => m.anchorPoint() }),
    // Three targets (unsafe, safe, finalized: op-node of early 2025) or five (local/cross unsafe,
    // local/cross safe, finalized: managed-mode.md); with three, local and cross are the same block.
    defineMethod({
      name: "interop_reset",
      params: [blockIdParam, blockIdParam, blockIdParam, optionalBlockId, optionalBlockId],
      handler: ([a, b, c, d, e]) => {
        if (d === undefined && e === undefined) {
          return m.reset({ localUnsafe: a, crossUnsafe: a, localSafe: b, crossSafe: b, finalized: c });
        }
        if (d === undefined || e === undefined) {
          throw RpcError.invalidParams("expected 3 (unsafe, safe, finalized) or 5 reset targets");
        }
        return m.reset({ localUnsafe: a, crossUnsafe: b, localSafe: c, crossSafe: d, finalized: e });
      },
    }),
    defineMethod({ name: "interop_provideL1", params: [blockRefParam], handler: ([ref]) => m.provideL1(ref) }),
    defineMethod({
      name: "interop_invalidateBlock",
      params: [blockSealParam],
      handler: ([seal]) => m.invalidateBlock(seal),
    }),
    defineMethod({ name: "interop_fetchReceipts", params: [hash], handler: ([h]) => m.fetchReceipts(h) }),
    defineMethod({ name: "interop_blockRefByNumber", params: [plainUint64], handler: ([n]) => m.blockRefByNumber(n) }),
    defineMethod({ name: "interop_chainID", params: [], handler: () => m.chainId() }),
    defineMethod({
      name: "interop_outputV0AtTimestamp",
      params: [plainUint64],
      handler: ([t]) => m.outputV0AtTimestamp(t),
    }),
    // op-node answers the output at the timestamp until interop reorgs (block replacement) exist.
    defineMethod({
      name: "interop_pendingOutputV0AtTimestamp",
      params: [plainUint64],
      handler: ([t]) => m.outputV0AtTimestamp(t),
    }),
    defineMethod({
      name: "interop_l2BlockRefByTimestamp",
      params: [plainUint64],
      handler: async ([t]) => l2RefJson(await m.l2BlockRefByTimestamp(t)),
    }),
  ];
}
