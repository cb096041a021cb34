/**
 * Chain configuration: the `config` object of a geth / op-geth genesis file (go-ethereum
 * `params.ChainConfig` JSON names), parsed once into typed fields, and the per-block resolution of
 * the rules (`rulesAt`) and blob parameters (`blobParamsAt`, EIP-4844/7691/7892) it implies.
 * Unknown keys are ignored as geth ignores them; known keys with a bad value throw one
 * `ChainConfigError` naming the field.
 */
import { hexToBytes } from "../primitives/hex.js";
import type { JsonObject } from "../primitives/json.js";
import { Fork, type ForkRules, OpFork, opL1Fork } from "./forks.js";

/** Blob parameters of one fork (EIP-7840 `blobSchedule` entry). */
export interface BlobParams {
  /** Target blobs per block. */
  readonly target: number;
  /** Maximum blobs per block. */
  readonly max: number;
  /** Denominator of the blob base fee exponent (`BLOB_BASE_FEE_UPDATE_FRACTION`). */
  readonly baseFeeUpdateFraction: number;
}

/** `blobSchedule` entries by fork name; null where neither the config nor a default gives one. */
export interface BlobSchedule {
  readonly cancun: BlobParams | null;
  readonly prague: BlobParams | null;
  readonly osaka: BlobParams | null;
  readonly bpo1: BlobParams | null;
  readonly bpo2: BlobParams | null;
  readonly bpo3: BlobParams | null;
  readonly bpo4: BlobParams | null;
  readonly bpo5: BlobParams | null;
}

/** The `optimism` section of an op-geth chain config (EIP-1559 constants before Holocene). */
export interface OptimismConfig {
  readonly eip1559Elasticity: number;
  readonly eip1559Denominator: number;
  /** Denominator from Canyon on; required when `canyonTime` is set. */
  readonly eip1559DenominatorCanyon: number | null;
}

/** Fork activations are `null` when not scheduled. Block forks are block numbers, the rest timestamps. */
export interface ChainConfig {
  readonly chainId: bigint;
  readonly homesteadBlock: number | null;
  readonly eip150Block: number | null;
  readonly eip155Block: number | null;
  readonly eip158Block: number | null;
  readonly byzantiumBlock: number | null;
  readonly constantinopleBlock: number | null;
  /** When null, Petersburg activates with Constantinople (geth `IsPetersburg`). */
  readonly petersburgBlock: number | null;
  readonly istanbulBlock: number | null;
  readonly muirGlacierBlock: number | null;
  readonly berlinBlock: number | null;
  readonly londonBlock: number | null;
  readonly arrowGlacierBlock: number | null;
  readonly grayGlacierBlock: number | null;
  readonly mergeNetsplitBlock: number | null;
  readonly terminalTotalDifficulty: bigint | null;
  readonly terminalTotalDifficultyPassed: boolean;
  readonly shanghaiTime: number | null;
  readonly cancunTime: number | null;
  readonly pragueTime: number | null;
  readonly osakaTime: number | null;
  readonly bpo1Time: number | null;
  readonly bpo2Time: number | null;
  readonly bpo3Time: number | null;
  readonly bpo4Time: number | null;
  readonly bpo5Time: number | null;
  /** Defaults filled in for Cancun/Prague/Osaka on L1 chains; as given on OP chains (see `parseChainConfig`). */
  readonly blobSchedule: BlobSchedule;
  /** EIP-6110 deposit contract, 20 bytes. */
  readonly depositContractAddress: Uint8Array | null;
  readonly bedrockBlock: number | null;
  readonly regolithTime: number | null;
  readonly canyonTime: number | null;
  readonly deltaTime: number | null;
  readonly ecotoneTime: number | null;
  readonly fjordTime: number | null;
  readonly graniteTime: number | null;
  readonly holoceneTime: number | null;
  readonly isthmusTime: number | null;
  readonly jovianTime: number | null;
  /** Karst (op-geth / op-reth `karstTime`); brings Osaka's execution rules to L2 (`rulesAt`). */
  readonly karstTime: number | null;
  readonly interopTime: number | null;
  /** Present exactly on OP Stack chains (op-geth `IsOptimism()`). */
  readonly optimism: OptimismConfig | null;
}

/** A chain config field is missing a required value, has the wrong type, or breaks fork order. */
export class ChainConfigError extends Error {
  override readonly name = "ChainConfigError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`chain config ${field}: ${message}`);
  }
}

/** geth `params.DefaultCancunBlobConfig` (EIP-4844). */
export const DEFAULT_CANCUN_BLOB_PARAMS: BlobParams = Object.freeze({
  target: 3,
  max: 6,
  baseFeeUpdateFraction: 3338477,
});
/** geth `params.DefaultPragueBlobConfig` (EIP-7691). */
export const DEFAULT_PRAGUE_BLOB_PARAMS: BlobParams = Object.freeze({
  target: 6,
  max: 9,
  baseFeeUpdateFraction: 5007716,
});
/** geth `params.DefaultOsakaBlobConfig`: Osaka keeps Prague's numbers. */
export const DEFAULT_OSAKA_BLOB_PARAMS: BlobParams = DEFAULT_PRAGUE_BLOB_PARAMS;

// ---- field readers ----

function fail(field: string, msg: string): never {
  throw new ChainConfigError(field, msg);
}

/** A non-negative safe integer: JSON number, decimal string or 0x-hex string. Absent/null → null. */
function optUint(o: JsonObject, field: string): number | null {
  const v = o[field];
  if (v === undefined || v === null) return null;
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0) fail(field, `not a non-negative safe integer: ${v}`);
    return v;
  }
  if (typeof v === "string") {
    const b = parseBigString(v, field);
    if (b > BigInt(Number.MAX_SAFE_INTEGER)) fail(field, `above 2^53-1: ${v}`);
    return Number(b);
  }
  return fail(field, `expected a number, got ${typeof v}`);
}

function parseBigString(v: string, field: string): bigint {
  if (!/^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v)) fail(field, `not an unsigned integer: "${v}"`);
  return BigInt(v);
}

/** An unsigned big integer: safe JSON number, decimal or hex string. Absent/null → null. */
function optBig(o: JsonObject, field: string): bigint | null {
  const v = o[field];
  if (v === undefined || v === null) return null;
  if (typeof v === "number") {
    // A JSON number above 2^53-1 has already lost precision in JSON.parse; refuse rather than guess.
    if (!Number.isSafeInteger(v) || v < 0) fail(field, `not a non-negative safe integer (quote large values): ${v}`);
    return BigInt(v);
  }
  if (typeof v === "string") return parseBigString(v, field);
  return fail(field, `expected a number, got ${typeof v}`);
}

function optBool(o: JsonObject, field: string): boolean {
  const v = o[field];
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") fail(field, `expected a boolean, got ${typeof v}`);
  return v;
}

function optAddress(o: JsonObject, field: string): Uint8Array | null {
  const v = o[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== "string" || !/^0x[0-9a-fA-F]{40}$/.test(v)) fail(field, "expected a 0x-prefixed 20-byte address");
  return hexToBytes(v);
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function u32Positive(o: JsonObject, field: string, path: string): number {
  const n = optUint(o, field);
  if (n === null) fail(path, "missing");
  if (n === 0 || n > 0xffffffff) fail(path, `must be in [1, 2^32-1], got ${n}`);
  return n;
}

function readBlobParams(s: JsonObject, name: string): BlobParams | null {
  const v = s[name];
  if (v === undefined || v === null) return null;
  const path = `blobSchedule.${name}`;
  if (!isObject(v)) fail(path, "expected an object");
  const target = optUint(v, "target");
  const max = optUint(v, "max");
  const fraction = optUint(v, "baseFeeUpdateFraction");
  if (target === null) fail(`${path}.target`, "missing");
  if (max === null) fail(`${path}.max`, "missing");
  if (fraction === null || fraction === 0) fail(`${path}.baseFeeUpdateFraction`, "missing or zero");
  // SPEC: geth BlobConfig.validate: target ≤ max (the EIP-7918 scaling divides by max).
  if (max === 0 || target > max) fail(path, `need 0 < max and target ≤ max (target ${target}, max ${max})`);
  return Object.freeze({ target, max, baseFeeUpdateFraction: fraction });
}

function readOptimism(o: JsonObject): OptimismConfig | null {
  const v = o.optimism;
  if (v === undefined || v === null) return null;
  if (!isObject(v)) fail("optimism", "expected an object");
  const canyon = optUint(v, "eip1559DenominatorCanyon");
  if (canyon === 0) fail("optimism.eip1559DenominatorCanyon", "must be non-zero");
  return Object.freeze({
    eip1559Elasticity: u32Positive(v, "eip1559Elasticity", "optimism.eip1559Elasticity"),
    eip1559Denominator: u32Positive(v, "eip1559Denominator", "optimism.eip1559Denominator"),
    eip1559DenominatorCanyon: canyon,
  });
}

// SPEC: geth params.ChainConfig.CheckConfigForkOrder: each fork after the previous one; an unset
// non-optional fork forbids every later fork; time forks never precede block forks.
const BLOCK_ORDER: [keyof ChainConfig, boolean][] = [
  ["homesteadBlock", false],
  ["eip150Block", false],
  ["eip155Block", false],
  ["eip158Block", false],
  ["byzantiumBlock", false],
  ["constantinopleBlock", false],
  ["petersburgBlock", false],
  ["istanbulBlock", false],
  ["muirGlacierBlock", true],
  ["berlinBlock", false],
  ["londonBlock", false],
  ["arrowGlacierBlock", true],
  ["grayGlacierBlock", true],
  ["mergeNetsplitBlock", true],
];
const TIME_ORDER: [keyof ChainConfig, boolean][] = [
  ["shanghaiTime", false],
  ["cancunTime", true],
  ["pragueTime", true],
  ["osakaTime", true],
  ["bpo1Time", true],
  ["bpo2Time", true],
  ["bpo3Time", true],
  ["bpo4Time", true],
  ["bpo5Time", true],
];
const OP_TIME_ORDER: (keyof ChainConfig)[] = [
  "regolithTime",
  "canyonTime",
  "deltaTime",
  "ecotoneTime",
  "fjordTime",
  "graniteTime",
  "holoceneTime",
  "isthmusTime",
  "jovianTime",
  "karstTime",
  "interopTime",
];

function checkOrder(cfg: ChainConfig): void {
  let last: { name: string; at: number | null; time: boolean } | null = null;
  for (const [name, optional, time] of [
    ...BLOCK_ORDER.map(([n, o]) => [n, o, false] as const),
    ...TIME_ORDER.map(([n, o]) => [n, o, true] as const),
  ]) {
    const at = cfg[name] as number | null;
    // Petersburg unset means "with Constantinople" (geth IsPetersburg), so it never breaks the order.
    if (name === "petersburgBlock" && at === null && cfg.constantinopleBlock !== null) continue;
    if (last !== null) {
      if (last.at === null && at !== null) fail(name, `set to ${at} but ${last.name} is not set`);
      if (last.at !== null && at !== null && last.time === time && last.at > at) {
        fail(name, `activates at ${at}, before ${last.name} at ${last.at}`);
      }
    }
    if (!optional || at !== null) last = { name, at, time };
  }
  let lastOp: { name: string; at: number } | null = null;
  for (const name of OP_TIME_ORDER) {
    const at = cfg[name] as number | null;
    if (at === null) continue;
    if (lastOp !== null && lastOp.at > at) fail(name, `activates at ${at}, before ${lastOp.name} at ${lastOp.at}`);
    lastOp = { name, at };
  }
}

/**
 * Parses a geth / op-geth genesis `config` object. Integers may be JSON numbers (safe integers only),
 * decimal strings or 0x-hex strings. Blob schedule: on L1 chains a missing Cancun/Prague/Osaka entry
 * takes geth's default (3/6/3338477, 6/9/5007716, 6/9/5007716) when that fork is scheduled, and a
 * scheduled BPO fork without an entry is an error (geth has no default for BPOs). On OP chains the
 * schedule is only what is given: op-geth requires none, because L2 headers keep excessBlobGas = 0.
 */
export function parseChainConfig(json: unknown): ChainConfig {
  if (!isObject(json)) fail("(root)", "expected an object");
  const chainId = optBig(json, "chainId");
  if (chainId === null) fail("chainId", "missing");
  const optimism = readOptimism(json);
  const sched = json.blobSchedule;
  if (sched !== undefined && sched !== null && !isObject(sched)) fail("blobSchedule", "expected an object");
  const s: JsonObject = isObject(sched) ? sched : {};
  const times = {
    cancunTime: optUint(json, "cancunTime"),
    pragueTime: optUint(json, "pragueTime"),
    osakaTime: optUint(json, "osakaTime"),
    bpo1Time: optUint(json, "bpo1Time"),
    bpo2Time: optUint(json, "bpo2Time"),
    bpo3Time: optUint(json, "bpo3Time"),
    bpo4Time: optUint(json, "bpo4Time"),
    bpo5Time: optUint(json, "bpo5Time"),
  };
  const l1 = optimism === null;
  const withDefault = (name: string, at: number | null, def: BlobParams): BlobParams | null =>
    readBlobParams(s, name) ?? (l1 && at !== null ? def : null);
  const blobSchedule: BlobSchedule = Object.freeze({
    cancun: withDefault("cancun", times.cancunTime, DEFAULT_CANCUN_BLOB_PARAMS),
    prague: withDefault("prague", times.pragueTime, DEFAULT_PRAGUE_BLOB_PARAMS),
    osaka: withDefault("osaka", times.osakaTime, DEFAULT_OSAKA_BLOB_PARAMS),
    bpo1: readBlobParams(s, "bpo1"),
    bpo2: readBlobParams(s, "bpo2"),
    bpo3: readBlobParams(s, "bpo3"),
    bpo4: readBlobParams(s, "bpo4"),
    bpo5: readBlobParams(s, "bpo5"),
  });
  if (l1) {
    for (const n of [1, 2, 3, 4, 5] as const) {
      if (times[`bpo${n}Time`] !== null && blobSchedule[`bpo${n}`] === null) {
        fail(`blobSchedule.bpo${n}`, `missing, but bpo${n}Time is set`);
      }
    }
  }
  const cfg: ChainConfig = Object.freeze({
    chainId,
    homesteadBlock: optUint(json, "homesteadBlock"),
    eip150Block: optUint(json, "eip150Block"),
    eip155Block: optUint(json, "eip155Block"),
    eip158Block: optUint(json, "eip158Block"),
    byzantiumBlock: optUint(json, "byzantiumBlock"),
    constantinopleBlock: optUint(json, "constantinopleBlock"),
    petersburgBlock: optUint(json, "petersburgBlock"),
    istanbulBlock: optUint(json, "istanbulBlock"),
    muirGlacierBlock: optUint(json, "muirGlacierBlock"),
    berlinBlock: optUint(json, "berlinBlock"),
    londonBlock: optUint(json, "londonBlock"),
    arrowGlacierBlock: optUint(json, "arrowGlacierBlock"),
    grayGlacierBlock: optUint(json, "grayGlacierBlock"),
    mergeNetsplitBlock: optUint(json, "mergeNetsplitBlock"),
    terminalTotalDifficulty: optBig(json, "terminalTotalDifficulty"),
    terminalTotalDifficultyPassed: optBool(json, "terminalTotalDifficultyPassed"),
    shanghaiTime: optUint(json, "shanghaiTime"),
    ...times,
    blobSchedule,
    depositContractAddress: optAddress(json, "depositContractAddress"),
    bedrockBlock: optUint(json, "bedrockBlock"),
    regolithTime: optUint(json, "regolithTime"),
    canyonTime: optUint(json, "canyonTime"),
    deltaTime: optUint(json, "deltaTime"),
    ecotoneTime: optUint(json, "ecotoneTime"),
    fjordTime: optUint(json, "fjordTime"),
    graniteTime: optUint(json, "graniteTime"),
    holoceneTime: optUint(json, "holoceneTime"),
    isthmusTime: optUint(json, "isthmusTime"),
    jovianTime: optUint(json, "jovianTime"),
    karstTime: optUint(json, "karstTime"),
    interopTime: optUint(json, "interopTime"),
    optimism,
  });
  checkOrder(cfg);
  if (optimism !== null && cfg.canyonTime !== null && optimism.eip1559DenominatorCanyon === null) {
    // SPEC: op-geth BaseFeeChangeDenominator has no Canyon value to fall back to.
    fail("optimism.eip1559DenominatorCanyon", "missing, but canyonTime is set");
  }
  return cfg;
}

// ---- per-block resolution ----

/**
 * Every possible `ForkRules`, frozen once: `RULES[fork][op + 1]` (`op` null at index 0). An
 * immutable table, so `rulesAt` hands out the same object for the same result and callers may
 * compare rules by identity.
 */
const RULES: readonly (readonly ForkRules[])[] = Object.freeze(
  Object.values(Fork)
    .filter((v): v is Fork => typeof v === "number")
    .map((fork) =>
      Object.freeze([
        Object.freeze({ fork, op: null }),
        ...Object.values(OpFork)
          .filter((v): v is OpFork => typeof v === "number")
          .map((op) => Object.freeze({ fork, op })),
      ]),
    ),
);

function reached(at: number | null, now: number): boolean {
  return at !== null && now >= at;
}

/** The L1 fork `cfg`'s own schedule puts block `number` at `timestamp` under. */
function l1ForkAt(cfg: ChainConfig, number: number, timestamp: number): Fork {
  if (reached(cfg.osakaTime, timestamp)) return Fork.Osaka;
  if (reached(cfg.pragueTime, timestamp)) return Fork.Prague;
  if (reached(cfg.cancunTime, timestamp)) return Fork.Cancun;
  if (reached(cfg.shanghaiTime, timestamp)) return Fork.Shanghai;
  const london = reached(cfg.londonBlock, number);
  // SPEC: the merge is a total-difficulty event, not a config entry. We take it as reached at
  // mergeNetsplitBlock, or from London on when TTD is 0 (merged at genesis, geth IsTTDReached), or on
  // an OP chain from Bedrock on (op-geth runs Bedrock as post-merge; reth `is_bedrock_active_at_block`).
  if (
    reached(cfg.mergeNetsplitBlock, number) ||
    (london && cfg.terminalTotalDifficulty === 0n) ||
    (london && cfg.optimism !== null && reached(cfg.bedrockBlock, number))
  ) {
    return Fork.Paris;
  }
  if (reached(cfg.grayGlacierBlock, number)) return Fork.GrayGlacier;
  if (reached(cfg.arrowGlacierBlock, number)) return Fork.ArrowGlacier;
  if (london) return Fork.London;
  if (reached(cfg.berlinBlock, number)) return Fork.Berlin;
  if (reached(cfg.muirGlacierBlock, number)) return Fork.MuirGlacier;
  if (reached(cfg.istanbulBlock, number)) return Fork.Istanbul;
  const petersburg = cfg.petersburgBlock ?? cfg.constantinopleBlock;
  if (reached(petersburg, number)) return Fork.Petersburg;
  if (reached(cfg.constantinopleBlock, number)) return Fork.Constantinople;
  if (reached(cfg.byzantiumBlock, number)) return Fork.Byzantium;
  if (reached(cfg.eip158Block, number) || reached(cfg.eip155Block, number)) return Fork.SpuriousDragon;
  if (reached(cfg.eip150Block, number)) return Fork.TangerineWhistle;
  if (reached(cfg.homesteadBlock, number)) return Fork.Homestead;
  return Fork.Frontier;
}

/** The OP fork at `number`/`timestamp`, or null before Bedrock and on L1 chains. */
function opForkAt(cfg: ChainConfig, number: number, timestamp: number): OpFork | null {
  if (cfg.optimism === null || !reached(cfg.bedrockBlock, number)) return null;
  if (reached(cfg.interopTime, timestamp)) return OpFork.Interop;
  if (reached(cfg.karstTime, timestamp)) return OpFork.Karst;
  if (reached(cfg.jovianTime, timestamp)) return OpFork.Jovian;
  if (reached(cfg.isthmusTime, timestamp)) return OpFork.Isthmus;
  if (reached(cfg.holoceneTime, timestamp)) return OpFork.Holocene;
  if (reached(cfg.graniteTime, timestamp)) return OpFork.Granite;
  if (reached(cfg.fjordTime, timestamp)) return OpFork.Fjord;
  if (reached(cfg.ecotoneTime, timestamp)) return OpFork.Ecotone;
  if (reached(cfg.deltaTime, timestamp)) return OpFork.Delta;
  if (reached(cfg.canyonTime, timestamp)) return OpFork.Canyon;
  if (reached(cfg.regolithTime, timestamp)) return OpFork.Regolith;
  return OpFork.Bedrock;
}

/**
 * The rules block `number` at `timestamp` runs under. Each fork is the latest one its schedule has
 * reached (an unscheduled fork is never active; see `l1ForkAt` for the merge). On OP chains the L1
 * fork comes from the config's own L1 schedule (op-geth sets shanghaiTime = canyonTime,
 * cancunTime = ecotoneTime, pragueTime = isthmusTime, osakaTime = karstTime) but is never older than
 * the one the OP fork implies (`opL1Fork`: op-revm derives the EVM spec from the OP fork alone, so a
 * genesis with `karstTime` and no `osakaTime` still runs Osaka's EVM from Karst on); `op` is the
 * latest OP fork from Bedrock on. Returns a frozen object shared by every call with the same result.
 */
export function rulesAt(cfg: ChainConfig, number: number, timestamp: number): ForkRules {
  const op = opForkAt(cfg, number, timestamp);
  const l1 = l1ForkAt(cfg, number, timestamp);
  if (op === null) return RULES[l1][0];
  const implied = opL1Fork(op);
  return RULES[implied > l1 ? implied : l1][op + 1];
}

/**
 * The blob parameters in force at `timestamp`: the entry of the latest scheduled blob fork reached
 * (BPO5 … BPO1, Osaka, Prague, Cancun; geth `latestBlobConfig`, which skips a reached fork without an
 * entry), or null before Cancun or when no entry applies (OP chains without a schedule).
 */
export function blobParamsAt(cfg: ChainConfig, timestamp: number): BlobParams | null {
  const s = cfg.blobSchedule;
  if (reached(cfg.bpo5Time, timestamp) && s.bpo5 !== null) return s.bpo5;
  if (reached(cfg.bpo4Time, timestamp) && s.bpo4 !== null) return s.bpo4;
  if (reached(cfg.bpo3Time, timestamp) && s.bpo3 !== null) return s.bpo3;
  if (reached(cfg.bpo2Time, timestamp) && s.bpo2 !== null) return s.bpo2;
  if (reached(cfg.bpo1Time, timestamp) && s.bpo1 !== null) return s.bpo1;
  if (reached(cfg.osakaTime, timestamp) && s.osaka !== null) return s.osaka;
  if (reached(cfg.pragueTime, timestamp) && s.prague !== null) return s.prague;
  if (reached(cfg.cancunTime, timestamp) && s.cancun !== null) return s.cancun;
  return null;
}

/** Whether `number` is at or after the London block (EIP-1559 base fee in the header). */
export function isLondon(cfg: ChainConfig, number: number): boolean {
  return reached(cfg.londonBlock, number);
}
