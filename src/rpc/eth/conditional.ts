/**
 * eth_sendRawTransactionConditional (ERC-4337 bundlers' conditional txs) as op-geth serves it
 * (internal/sequencerapi/api.go, enabled by `--rollup.sequencertxconditionalenabled`; without the
 * flag the method is not registered, so it is an unknown method, -32601). In op-geth's order: the
 * conditional's cost (at most 1000 lookups, else -32005), its sanity (-32003), the head's header and
 * state, then the head's parent's state ("to remove the MEV incentive"), each failure -32003 with
 * op-geth's text; then the cost is taken from a token bucket (`--rollup.sequencertxconditionalcostratelimit`
 * per second, burst 3 × 1000), and the tx goes to the sequencer (`--rollup.sequencerhttp`) or into the
 * pool with its conditional attached, which the builder checks again at the tx's turn in a block.
 */
import { keccak256 } from "../../crypto/keccak.js";
import { bytesKey } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import type { JsonValue } from "../../primitives/json.js";
import { KvStateReader } from "../../state/kvStateReader.js";
import type { KvReader } from "../../storage/kv.js";
import { EMPTY_TRIE_ROOT } from "../../trie/node.js";
import {
  type ConditionalState,
  checkConditionalHeader,
  checkConditionalState,
  conditionalCost,
  type KnownAccount,
  TX_CONDITIONAL_COST_EXCEEDED_CODE,
  TX_CONDITIONAL_MAX_COST,
  TX_CONDITIONAL_REJECTED_CODE,
  type TxConditional,
  validateConditional,
} from "../../txpool/txConditional.js";
import { RpcError } from "../errors.js";
import { qty } from "../format.js";
import { address, bigQuantity, hash, jsonKind, type ParamDecoder, ParamError, uint64 } from "../params.js";
import type { EthBackend } from "./backend.js";

/** op-geth's default `--rollup.sequencertxconditionalcostratelimit`: lookups per second. */
export const DEFAULT_TX_CONDITIONAL_COST_RATE_LIMIT = 5000;

/** op-geth GetSendRawTxConditionalAPI: "a manual bump to the burst to allow conditional txs to queue". */
const COST_BURST = 3 * TX_CONDITIONAL_MAX_COST;

/**
 * golang.org/x/time/rate's Limiter as `WaitN` uses it: `rate` tokens a second up to `burst`, full
 * at the start. A rate of 0 (or below) never refills: the burst is spent once.
 */
export class CostRateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly rate: number,
    private burst: number = COST_BURST,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /**
   * Reserves `n` tokens: the milliseconds to wait before acting on them (0: at once), or null when
   * they can never be had (more than the burst; a spent burst at rate 0), which `WaitN` reports as
   * an error.
   */
  reserve(n: number): number | null {
    if (!(this.rate > 0)) {
      if (this.burst < n) return null;
      this.burst -= n;
      return 0;
    }
    if (n > this.burst) return null;
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.rate);
    this.last = t;
    this.tokens -= n;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.rate) * 1000);
  }
}

// ---- decoding ------------------------------------------------------------------------------------

/** encoding/json's error for a conditional's field, as `addErrorContext` words it. */
function fieldError(field: string, e: unknown): never {
  if (e instanceof ParamError) {
    throw new ParamError(
      e.message.replace("into Go value of type", `into Go struct field TransactionConditional.${field} of type`),
    );
  }
  throw e;
}

function knownAccountOf(addr: Uint8Array, v: unknown): KnownAccount {
  // KnownAccount.UnmarshalJSON: a hash is the storage root; failing that, an object of slot values.
  if (typeof v === "string") {
    try {
      return { address: addr, storageRoot: hash.decode(v), slots: [] };
    } catch {
      throw new ParamError("json: cannot unmarshal string into Go value of type map[common.Hash]common.Hash");
    }
  }
  if (v === null) return { address: addr, storageRoot: null, slots: [] };
  if (typeof v !== "object" || Array.isArray(v)) {
    throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type map[common.Hash]common.Hash`);
  }
  const slots = new Map<string, { key: Uint8Array; value: Uint8Array }>();
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) {
    const key = hash.decode(k);
    slots.set(bytesKey(key), { key, value: hash.decode(val) });
  }
  return { address: addr, storageRoot: null, slots: [...slots.values()] };
}

/**
 * `types.TransactionConditional` from JSON (gencodec's decoder: field names matched case-insensitively,
 * unknown ones ignored, `null` an empty conditional).
 */
export const txConditional: ParamDecoder<TxConditional> = {
  optional: false,
  decode(v: unknown): TxConditional {
    const out = {
      knownAccounts: [] as KnownAccount[],
      blockNumberMin: null as bigint | null,
      blockNumberMax: null as bigint | null,
      timestampMin: null as bigint | null,
      timestampMax: null as bigint | null,
    };
    if (v === null) return out;
    if (typeof v !== "object" || Array.isArray(v)) {
      throw new ParamError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type types.TransactionConditional`);
    }
    for (const [key, val] of Object.entries(v as Record<string, unknown>)) {
      switch (key.toLowerCase()) {
        case "knownaccounts": {
          if (val === null) break;
          if (typeof val !== "object" || Array.isArray(val)) {
            fieldError(
              "knownAccounts",
              new ParamError("json: cannot unmarshal non-object into Go value of type types.KnownAccounts"),
            );
          }
          const byAddr = new Map<string, KnownAccount>();
          for (const [a, acct] of Object.entries(val as Record<string, unknown>)) {
            let addr: Uint8Array;
            try {
              addr = address.decode(a);
            } catch (e) {
              fieldError("knownAccounts", e);
            }
            byAddr.set(bytesKey(addr), knownAccountOf(addr, acct));
          }
          out.knownAccounts = [...byAddr.values()];
          break;
        }
        case "blocknumbermin":
          out.blockNumberMin = decodeField("blockNumberMin", val, bigQuantity);
          break;
        case "blocknumbermax":
          out.blockNumberMax = decodeField("blockNumberMax", val, bigQuantity);
          break;
        case "timestampmin":
          out.timestampMin = decodeField("timestampMin", val, uint64);
          break;
        case "timestampmax":
          out.timestampMax = decodeField("timestampMax", val, uint64);
          break;
      }
    }
    return out;
  },
};

function decodeField(field: string, v: unknown, d: ParamDecoder<bigint>): bigint | null {
  if (v === null) return null;
  try {
    return d.decode(v);
  } catch (e) {
    return fieldError(field, e);
  }
}

/** The conditional as op-geth marshals it (what a forwarding node sends on to the sequencer). */
export function conditionalJson(c: TxConditional): JsonValue {
  const accounts: Record<string, JsonValue> = {};
  for (const a of c.knownAccounts) {
    if (a.storageRoot !== null) {
      accounts[bytesToHex(a.address)] = bytesToHex(a.storageRoot);
      continue;
    }
    const slots: Record<string, JsonValue> = {};
    for (const s of a.slots) slots[bytesToHex(s.key)] = bytesToHex(s.value);
    accounts[bytesToHex(a.address)] = slots;
  }
  const o: Record<string, JsonValue> = { knownAccounts: accounts };
  if (c.blockNumberMin !== null) o.blockNumberMin = qty(c.blockNumberMin);
  if (c.blockNumberMax !== null) o.blockNumberMax = qty(c.blockNumberMax);
  if (c.timestampMin !== null) o.timestampMin = qty(c.timestampMin);
  if (c.timestampMax !== null) o.timestampMax = qty(c.timestampMax);
  return o;
}

// ---- checks --------------------------------------------------------------------------------------

/** A block's state as a conditional reads it. */
export function conditionalStateOf(view: KvReader): ConditionalState {
  const r = new KvStateReader(view);
  return {
    storageRoot: (a) => r.account(keccak256(a))?.storageRoot ?? EMPTY_TRIE_ROOT,
    storage: (a, slot) => r.storage(keccak256(a), keccak256(slot)),
  };
}

const rejected = (message: string): RpcError => new RpcError(TX_CONDITIONAL_REJECTED_CODE, message);

/**
 * The checks before a conditional tx is taken, in op-geth's order, against the head block: the cost
 * bound, the sanity of the ranges, the head's header and state, the state of the head's parent.
 * Returns the cost the rate limiter charges.
 */
export function checkConditionalAtHead(be: EthBackend, c: TxConditional): number {
  const cost = conditionalCost(c);
  if (cost > TX_CONDITIONAL_MAX_COST) {
    throw new RpcError(
      TX_CONDITIONAL_COST_EXCEEDED_CODE,
      `conditional cost, ${cost}, exceeded max: ${TX_CONDITIONAL_MAX_COST}`,
    );
  }
  const invalid = validateConditional(c);
  if (invalid !== null) throw rejected(`failed conditional validation: ${invalid}`);
  const head = be.stateAt({ kind: "tag", tag: "latest" });
  const headerErr = checkConditionalHeader(c, head.header.number, head.header.timestamp);
  if (headerErr !== null) throw rejected(`failed header check: ${headerErr}`);
  const stateErr = checkConditionalState(c, conditionalStateOf(head.view));
  if (stateErr !== null) throw rejected(`failed state check: ${stateErr}`);
  const parentHash = head.header.parentHash;
  const parent = be.stateAt({ kind: "hash", hash: parentHash, requireCanonical: false });
  const parentErr = checkConditionalState(c, conditionalStateOf(parent.view));
  if (parentErr !== null) {
    throw rejected(`failed parent block ${bytesToHex(parentHash)} state check: ${parentErr}`);
  }
  return cost;
}

/** Waits out the rate limiter for `cost` (op-geth `costLimiter.WaitN`); -32005 when it never can. */
export async function waitForCost(limiter: CostRateLimiter, cost: number): Promise<void> {
  const wait = limiter.reserve(cost);
  if (wait === null) throw new RpcError(TX_CONDITIONAL_COST_EXCEEDED_CODE, `cost ${cost} rate limited`);
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}
