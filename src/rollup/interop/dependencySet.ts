/**
 * The interop dependency set of `--interop.dependency-set` (op-supervisor
 * supervisor/backend/depset/static.go `StaticConfigDependencySet`; specs/interop/dependency-set.md):
 * the chains whose initiating messages this chain may execute, each with its chain index (the short
 * identifier op-supervisor stores), its activation time (the first timestamp at which it may execute
 * messages) and its history minimum time (the oldest initiating message it makes available).
 *
 * ```json
 * {
 *   "dependencies": {
 *     "900": { "chainIndex": "900", "activationTime": 0, "historyMinTime": 0 },
 *     "901": { "chainIndex": 901, "activationTime": 1700000000, "historyMinTime": 0 }
 *   },
 *   "overrideMessageExpiryWindow": 3600
 * }
 * ```
 *
 * - Keys are chain ids: decimal, or `0x` hex (op-service `eth.ChainID.UnmarshalText` over uint256),
 *   up to 2^256-1 (dependency-set.md: chain ids are uint256).
 * - `chainIndex` is a uint32; Go writes it as a decimal string (`types.ChainIndex` is a
 *   TextMarshaler); a plain JSON integer is accepted as well. Two chains may not share an index.
 * - `activationTime`, `historyMinTime`: uint64 JSON integers, default 0 when left out.
 * - `overrideMessageExpiryWindow` (later op-supervisor versions): seconds, 0 or absent = the
 *   protocol's message expiry window (specs/interop/messaging.md: 7 days).
 *
 * Stricter than Go's `encoding/json`, which ignores unknown keys: an unknown key is refused with
 * its name, so a misspelt field cannot silently become 0.
 */
import { readFileSync } from "node:fs";
import { MAX_U64, MAX_U256 } from "../../primitives/u256.js";

/** specs/interop/messaging.md `EXPIRY_WINDOW` (op-node params.MessageExpiryTimeSecondsInterop): 7 days. */
export const MESSAGE_EXPIRY_WINDOW_SECONDS = 604_800;

const MAX_UINT32 = 0xffff_ffff;

export interface DependencyEntry {
  readonly chainId: bigint;
  readonly chainIndex: number;
  /** Unix seconds; a bigint because the file may hold any uint64. */
  readonly activationTime: bigint;
  readonly historyMinTime: bigint;
}

/** A malformed dependency-set file: `field` names the JSON path of the offending value. */
export class DependencySetError extends Error {
  override readonly name = "DependencySetError";
  constructor(
    /** The JSON path of the offending value ("" for the file as a whole). */
    readonly field: string,
    /** What is wrong with it. */
    readonly reason: string,
    /** The file, when read from one. */
    readonly path: string | null = null,
  ) {
    super([path ?? "", field, reason].filter((s) => s !== "").join(": "));
  }
}

export class DependencySet {
  private readonly byId: ReadonlyMap<bigint, DependencyEntry>;
  private readonly byIndex: ReadonlyMap<number, bigint>;

  constructor(
    entries: readonly DependencyEntry[],
    /** 0 = the protocol's window. */
    readonly overrideMessageExpiryWindow = 0n,
  ) {
    const byId = new Map<bigint, DependencyEntry>();
    const byIndex = new Map<number, bigint>();
    for (const e of entries) {
      if (byId.has(e.chainId)) throw new DependencySetError(`dependencies.${e.chainId}`, "duplicate chain id");
      const other = byIndex.get(e.chainIndex);
      if (other !== undefined) {
        throw new DependencySetError(
          `dependencies.${e.chainId}.chainIndex`,
          `chain ${e.chainId} cannot have the same index (${e.chainIndex}) as chain ${other}`,
        );
      }
      byId.set(e.chainId, Object.freeze({ ...e }));
      byIndex.set(e.chainIndex, e.chainId);
    }
    this.byId = byId;
    this.byIndex = byIndex;
  }

  /** The chain ids, ascending (op-supervisor `Chains()`). */
  chains(): bigint[] {
    return [...this.byId.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  hasChain(chainId: bigint): boolean {
    return this.byId.has(chainId);
  }

  entry(chainId: bigint): DependencyEntry | null {
    return this.byId.get(chainId) ?? null;
  }

  /** May `chainId` execute messages in a block at `timestamp`? False for chains outside the set. */
  canExecuteAt(chainId: bigint, timestamp: bigint | number): boolean {
    const e = this.byId.get(chainId);
    return e !== undefined && BigInt(timestamp) >= e.activationTime;
  }

  /** Is an initiating message of `chainId` at `timestamp` available to others? */
  canInitiateAt(chainId: bigint, timestamp: bigint | number): boolean {
    const e = this.byId.get(chainId);
    return e !== undefined && BigInt(timestamp) >= e.historyMinTime;
  }

  chainIndexOf(chainId: bigint): number | null {
    return this.byId.get(chainId)?.chainIndex ?? null;
  }

  chainIdOfIndex(index: number): bigint | null {
    return this.byIndex.get(index) ?? null;
  }

  /** Seconds an initiating message stays executable. */
  messageExpiryWindow(): bigint {
    return this.overrideMessageExpiryWindow === 0n
      ? BigInt(MESSAGE_EXPIRY_WINDOW_SECONDS)
      : this.overrideMessageExpiryWindow;
  }

  /** The file's JSON shape, as op-supervisor writes it (chain index as a decimal string). */
  toJson(): Record<string, unknown> {
    const deps: Record<string, unknown> = {};
    for (const id of this.chains()) {
      const e = this.byId.get(id)!;
      deps[id.toString()] = {
        chainIndex: String(e.chainIndex),
        activationTime: jsonUint(e.activationTime),
        historyMinTime: jsonUint(e.historyMinTime),
      };
    }
    const out: Record<string, unknown> = { dependencies: deps };
    if (this.overrideMessageExpiryWindow !== 0n) {
      out.overrideMessageExpiryWindow = jsonUint(this.overrideMessageExpiryWindow);
    }
    return out;
  }
}

/** A uint64 as a JSON number when exact, else its decimal text (JSON.stringify cannot hold it). */
function jsonUint(v: bigint): number | string {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  return typeof v;
}

/** A chain id key: decimal without leading zeros, or 0x hex, within uint256. */
export function parseChainIdText(text: string, field: string): bigint {
  let v: bigint;
  if (/^0[xX][0-9a-fA-F]+$/.test(text)) {
    if (text.length > 3 && text[2] === "0")
      throw new DependencySetError(field, "hex chain id with leading zero digits");
    v = BigInt(text);
  } else if (/^(0|[1-9][0-9]*)$/.test(text)) {
    v = BigInt(text);
  } else {
    throw new DependencySetError(field, `chain id ${JSON.stringify(text)} is not a decimal or 0x-hex number`);
  }
  if (v > MAX_U256) throw new DependencySetError(field, "chain id exceeds 256 bits");
  if (v === 0n) throw new DependencySetError(field, "chain id 0 is not a valid chain");
  return v;
}

/** A uint64 JSON integer (JSON numbers above 2^53 lose precision, so they are refused as inexact). */
function uint64Field(v: unknown, field: string): bigint {
  if (typeof v !== "number") throw new DependencySetError(field, `expected an unsigned integer, got ${kindOf(v)}`);
  if (!Number.isInteger(v) || v < 0) throw new DependencySetError(field, `expected an unsigned integer, got ${v}`);
  if (!Number.isSafeInteger(v)) throw new DependencySetError(field, `${v} is not exact in JSON (above 2^53-1)`);
  const b = BigInt(v);
  if (b > MAX_U64) throw new DependencySetError(field, "exceeds uint64");
  return b;
}

function chainIndexField(v: unknown, field: string): number {
  let n: number;
  if (typeof v === "string") {
    if (!/^[0-9]+$/.test(v))
      throw new DependencySetError(field, `chain index ${JSON.stringify(v)} is not a decimal number`);
    n = Number(v);
  } else if (typeof v === "number") {
    if (!Number.isInteger(v) || v < 0) throw new DependencySetError(field, `expected an unsigned integer, got ${v}`);
    n = v;
  } else {
    throw new DependencySetError(field, `expected a uint32 (decimal string or integer), got ${kindOf(v)}`);
  }
  if (n > MAX_UINT32) throw new DependencySetError(field, `chain index ${v} exceeds uint32`);
  return n;
}

const ENTRY_KEYS = new Set(["chainIndex", "activationTime", "historyMinTime"]);
const TOP_KEYS = new Set(["dependencies", "overrideMessageExpiryWindow"]);

/** Validates a parsed dependency-set JSON value. */
export function parseDependencySet(json: unknown): DependencySet {
  if (!isObject(json)) throw new DependencySetError("", `expected a JSON object, got ${kindOf(json)}`);
  for (const k of Object.keys(json)) {
    if (!TOP_KEYS.has(k)) throw new DependencySetError(k, "unknown field");
  }
  if (!Object.hasOwn(json, "dependencies")) throw new DependencySetError("dependencies", "missing");
  const deps = json.dependencies;
  if (!isObject(deps)) throw new DependencySetError("dependencies", `expected an object, got ${kindOf(deps)}`);
  const entries: DependencyEntry[] = [];
  const seen = new Map<bigint, string>();
  for (const [key, raw] of Object.entries(deps)) {
    const field = `dependencies.${key}`;
    const chainId = parseChainIdText(key, field);
    const prev = seen.get(chainId);
    if (prev !== undefined)
      throw new DependencySetError(field, `chain id ${chainId} is also given as ${JSON.stringify(prev)}`);
    seen.set(chainId, key);
    if (!isObject(raw)) throw new DependencySetError(field, `expected an object, got ${kindOf(raw)}`);
    for (const k of Object.keys(raw)) {
      if (!ENTRY_KEYS.has(k)) throw new DependencySetError(`${field}.${k}`, "unknown field");
    }
    if (!Object.hasOwn(raw, "chainIndex")) throw new DependencySetError(`${field}.chainIndex`, "missing");
    entries.push({
      chainId,
      chainIndex: chainIndexField(raw.chainIndex, `${field}.chainIndex`),
      activationTime: Object.hasOwn(raw, "activationTime")
        ? uint64Field(raw.activationTime, `${field}.activationTime`)
        : 0n,
      historyMinTime: Object.hasOwn(raw, "historyMinTime")
        ? uint64Field(raw.historyMinTime, `${field}.historyMinTime`)
        : 0n,
    });
  }
  const expiry = Object.hasOwn(json, "overrideMessageExpiryWindow")
    ? uint64Field(json.overrideMessageExpiryWindow, "overrideMessageExpiryWindow")
    : 0n;
  return new DependencySet(entries, expiry);
}

/** Reads and validates the file at `path`; errors name the file and the field. */
export function loadDependencySet(path: string): DependencySet {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new DependencySetError("", code === "ENOENT" ? "no such file" : (code ?? (e as Error).message), path);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new DependencySetError("", `not JSON (${(e as Error).message})`, path);
  }
  try {
    return parseDependencySet(json);
  } catch (e) {
    if (e instanceof DependencySetError) throw new DependencySetError(e.field, e.reason, path);
    throw e;
  }
}
