/**
 * The rollup configuration (op-node `rollup.Config`, the rollup.json file): typed fields, the checks
 * of op-node's `Config.Check()`, op-node's JSON shape back out (what `optimism_rollupConfig` serves),
 * fork overrides (`--override.*`), fork activation helpers, and the L1 chain config of
 * `--rollup.l1-chain-config`. SPEC: op-stack.md §5.1–§5.2; op-node op-node/rollup/types.go.
 */
import { bytesToHex, isHexString, parseData } from "../../primitives/hex.js";
import type { JsonObject } from "../../primitives/json.js";
import { type ChainConfig, parseChainConfig } from "../../spec/chainConfig.js";

/**
 * Timestamp forks in activation order. `interop` is upstream's Lagoon (op-node v1.19.1 renamed the
 * fork, optimism#21105/#21370); Opal keeps the name "interop" inside and reads both rollup.json keys.
 */
export const ROLLUP_FORKS = [
  "regolith",
  "canyon",
  "delta",
  "ecotone",
  "fjord",
  "granite",
  "holocene",
  "isthmus",
  "jovian",
  "karst",
  "interop",
] as const;

/**
 * The forks whose order op-node's `Config.Check()` enforces: each one set needs the one before it,
 * at the same time or earlier. SPEC: op-node/rollup/types.go `Config.Check` calls `checkFork` pair by
 * pair from Regolith→Canyon to Holocene→Isthmus and no further (mantle-v2 mirror c19ebc83, the
 * vendored op-node; the same list in upstream versions of the file), so Jovian, Karst and Interop
 * (Lagoon) are never order-checked: a config may schedule Interop without Karst, as `--override.*`
 * may (op-node/service.go `applyOverrides` sets one fork's time and nothing else).
 */
export const ORDER_CHECKED_FORKS = ROLLUP_FORKS.slice(0, ROLLUP_FORKS.indexOf("isthmus") + 1);

/** Optional forks outside the order check (op-node `forks.AllOpt`). */
export const OPTIONAL_ROLLUP_FORKS = ["pectraBlobSchedule"] as const;

export type RollupFork = (typeof ROLLUP_FORKS)[number] | (typeof OPTIONAL_ROLLUP_FORKS)[number];

/** rollup.json key of each fork's activation time (Opal writes these; see `FORK_TIME_ALIASES` for reads). */
export const FORK_TIME_KEYS: Readonly<Record<RollupFork, string>> = Object.freeze({
  regolith: "regolith_time",
  canyon: "canyon_time",
  delta: "delta_time",
  ecotone: "ecotone_time",
  fjord: "fjord_time",
  granite: "granite_time",
  holocene: "holocene_time",
  isthmus: "isthmus_time",
  jovian: "jovian_time",
  karst: "karst_time",
  interop: "interop_time",
  pectraBlobSchedule: "pectra_blob_schedule_time",
});

/**
 * Other rollup.json keys read for a fork's time: op-node v1.19.1 names the Interop fork Lagoon and
 * writes `lagoon_time` (optimism#21370 dropped the `interop_time` alias); earlier op-node and Opal
 * write `interop_time`. Both are read; a file giving both must give the same time.
 */
export const FORK_TIME_ALIASES: Readonly<Partial<Record<RollupFork, string>>> = Object.freeze({
  interop: "lagoon_time",
});

/** Channel timeout from Granite on (op-node `params.ChannelTimeoutGranite`), in L1 blocks. */
export const GRANITE_CHANNEL_TIMEOUT = 50;
/** Max sequencer drift from Fjord on, a protocol constant (op-node `maxSequencerDriftFjord`), in seconds. */
export const FJORD_MAX_SEQUENCER_DRIFT = 1800;

export const ALT_DA_COMMITMENT_TYPES = ["KeccakCommitment", "GenericCommitment"] as const;
export type AltDaCommitmentType = (typeof ALT_DA_COMMITMENT_TYPES)[number];

export interface BlockId {
  /** 32 bytes. */
  readonly hash: Uint8Array;
  readonly number: number;
}

/** The L1 SystemConfig values at genesis (op-service `eth.SystemConfig`). */
export interface GenesisSystemConfig {
  /** 20 bytes. */
  readonly batcherAddr: Uint8Array;
  /** 32 bytes. */
  readonly overhead: Uint8Array;
  /** 32 bytes. */
  readonly scalar: Uint8Array;
  /** L2 block gas limit: a u64 from outside input, so bigint (ARCHITECTURE.md numeric types). */
  readonly gasLimit: bigint;
  /** 8 bytes (Holocene); zeros when absent. */
  readonly eip1559Params: Uint8Array;
  /** 32 bytes (Isthmus); zeros when absent. */
  readonly operatorFeeParams: Uint8Array;
  /** u64 (Jovian); 0 when absent. */
  readonly minBaseFee: bigint;
  /** u16 (Jovian); 0 when absent. */
  readonly daFootprintGasScalar: number;
}

export interface RollupGenesis {
  readonly l1: BlockId;
  readonly l2: BlockId;
  readonly l2Time: number;
  readonly systemConfig: GenesisSystemConfig;
}

/** The `chain_op_config` object: op-geth's `optimism` section of the L2 chain config. */
export interface ChainOpConfig {
  readonly eip1559Elasticity: number;
  readonly eip1559Denominator: number;
  readonly eip1559DenominatorCanyon: number | null;
}

/** The `alt_da` object (op-node `AltDAConfig`). */
export interface AltDaConfig {
  /** 20 bytes; zero for generic commitments. */
  readonly daChallengeAddress: Uint8Array;
  readonly commitmentType: AltDaCommitmentType;
  readonly daChallengeWindow: number;
  readonly daResolveWindow: number;
}

/** Fork activation times (seconds, L2 block timestamp); null = not scheduled. */
export type ForkTimes = { readonly [F in RollupFork as `${F}Time`]: number | null };

export interface RollupConfig extends ForkTimes {
  readonly genesis: RollupGenesis;
  readonly blockTime: number;
  /** Pre-Fjord drift in seconds; Fjord makes it the constant `FJORD_MAX_SEQUENCER_DRIFT`. */
  readonly maxSequencerDrift: number;
  readonly seqWindowSize: number;
  /** `channel_timeout` (op-node `ChannelTimeoutBedrock`), in L1 blocks. */
  readonly channelTimeout: number;
  /** `granite_channel_timeout` (kona's name; op-node has the constant): defaults to 50. */
  readonly graniteChannelTimeout: number;
  readonly l1ChainId: bigint;
  readonly l2ChainId: bigint;
  /** Karst's one-time upgrade gas stays in the gas limit after the activation block (op-node `KeepKarstUpgradeGas`). */
  readonly keepKarstUpgradeGas: boolean;
  /** 20-byte L1 addresses. */
  readonly batchInboxAddress: Uint8Array;
  readonly depositContractAddress: Uint8Array;
  readonly l1SystemConfigAddress: Uint8Array;
  /** Zero when the chain has none (op-node writes the zero address then). */
  readonly protocolVersionsAddress: Uint8Array;
  readonly chainOpConfig: ChainOpConfig | null;
  readonly altDa: AltDaConfig | null;
}

/** A rollup config field is missing, malformed, or breaks one of op-node's `Config.Check()` rules. */
export class RollupConfigError extends Error {
  override readonly name = "RollupConfigError";
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`rollup config ${field}: ${message}`);
  }
}

// ---- readers ----

function fail(field: string, msg: string): never {
  throw new RollupConfigError(field, msg);
}

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function path(prefix: string, key: string): string {
  return prefix === "" ? key : `${prefix}.${key}`;
}

function readObject(o: JsonObject, key: string, prefix: string): JsonObject {
  const v = o[key];
  if (v === undefined || v === null) fail(path(prefix, key), "missing");
  if (!isObject(v)) fail(path(prefix, key), "expected an object");
  return v;
}

/** A JSON number that is a non-negative safe integer; `def` when absent (undefined = required). */
function readUint(o: JsonObject, key: string, prefix: string, def?: number): number {
  const v = o[key];
  if (v === undefined || v === null) {
    if (def === undefined) fail(path(prefix, key), "missing");
    return def;
  }
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) {
    fail(path(prefix, key), `expected a non-negative integer below 2^53, got ${JSON.stringify(v)}`);
  }
  return v;
}

function readOptUint(o: JsonObject, key: string, prefix: string): number | null {
  return o[key] === undefined || o[key] === null ? null : readUint(o, key, prefix);
}

/**
 * An unsigned integer up to `max` bits: a JSON number (safe integer) or, for values a JSON number
 * cannot carry exactly, a decimal or 0x-hex string.
 */
function readBig(o: JsonObject, key: string, prefix: string, bits: number, def?: bigint): bigint {
  const v = o[key];
  const field = path(prefix, key);
  let out: bigint;
  if (v === undefined || v === null) {
    if (def === undefined) fail(field, "missing");
    return def;
  }
  if (typeof v === "number") {
    if (!Number.isSafeInteger(v) || v < 0) fail(field, `not a non-negative safe integer (quote large values): ${v}`);
    out = BigInt(v);
  } else if (typeof v === "string" && /^(0x[0-9a-fA-F]+|[0-9]+)$/.test(v)) {
    out = BigInt(v);
  } else {
    return fail(field, `expected an unsigned integer, got ${JSON.stringify(v)}`);
  }
  if (out >> BigInt(bits) !== 0n) fail(field, `above 2^${bits}-1: ${v}`);
  return out;
}

/** `0x` hex of exactly `size` bytes (Go `common.Hash`/`Address`/`eth.Bytes32`/`Bytes8` JSON); `def` when absent. */
function readBytes(o: JsonObject, key: string, prefix: string, size: number, def?: Uint8Array): Uint8Array {
  const v = o[key];
  const field = path(prefix, key);
  if (v === undefined || v === null) {
    if (def === undefined) fail(field, "missing");
    return def;
  }
  if (typeof v !== "string" || !isHexString(v)) fail(field, `expected 0x-prefixed hex, got ${JSON.stringify(v)}`);
  if (v.length !== 2 + 2 * size) fail(field, `expected ${size} bytes, got ${JSON.stringify(v)}`);
  return parseData(v, size);
}

function readBool(o: JsonObject, key: string, prefix: string): boolean {
  const v = o[key];
  if (v === undefined || v === null) return false;
  if (typeof v !== "boolean") fail(path(prefix, key), `expected a boolean, got ${JSON.stringify(v)}`);
  return v;
}

function isZero(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function readBlockId(o: JsonObject, key: string, prefix: string): BlockId {
  const at = path(prefix, key);
  const b = readObject(o, key, prefix);
  return Object.freeze({ hash: readBytes(b, "hash", at, 32), number: readUint(b, "number", at) });
}

function readSystemConfig(o: JsonObject, prefix: string): GenesisSystemConfig {
  const at = path(prefix, "system_config");
  const s = readObject(o, "system_config", prefix);
  const daFootprintGasScalar = readUint(s, "daFootprintGasScalar", at, 0);
  if (daFootprintGasScalar > 0xffff) fail(path(at, "daFootprintGasScalar"), `above 2^16-1: ${daFootprintGasScalar}`);
  return Object.freeze({
    batcherAddr: readBytes(s, "batcherAddr", at, 20),
    overhead: readBytes(s, "overhead", at, 32),
    scalar: readBytes(s, "scalar", at, 32),
    gasLimit: readBig(s, "gasLimit", at, 64),
    eip1559Params: readBytes(s, "eip1559Params", at, 8, new Uint8Array(8)),
    operatorFeeParams: readBytes(s, "operatorFeeParams", at, 32, new Uint8Array(32)),
    minBaseFee: readBig(s, "minBaseFee", at, 64, 0n),
    daFootprintGasScalar,
  });
}

function readChainOpConfig(o: JsonObject): ChainOpConfig | null {
  const v = o.chain_op_config;
  if (v === undefined || v === null) return null;
  const c = readObject(o, "chain_op_config", "");
  const at = "chain_op_config";
  const elasticity = readUint(c, "eip1559Elasticity", at);
  const denominator = readUint(c, "eip1559Denominator", at);
  if (elasticity === 0) fail(`${at}.eip1559Elasticity`, "must be non-zero");
  if (denominator === 0) fail(`${at}.eip1559Denominator`, "must be non-zero");
  const canyon = readOptUint(c, "eip1559DenominatorCanyon", at);
  if (canyon === 0) fail(`${at}.eip1559DenominatorCanyon`, "must be non-zero");
  return Object.freeze({
    eip1559Elasticity: elasticity,
    eip1559Denominator: denominator,
    eip1559DenominatorCanyon: canyon,
  });
}

function readAltDa(o: JsonObject): AltDaConfig | null {
  const v = o.alt_da;
  if (v === undefined || v === null) return null;
  const a = readObject(o, "alt_da", "");
  const at = "alt_da";
  const type = a.da_commitment_type;
  if (typeof type !== "string" || !(ALT_DA_COMMITMENT_TYPES as readonly string[]).includes(type)) {
    fail(`${at}.da_commitment_type`, `invalid commitment type: ${JSON.stringify(type)}`);
  }
  const addr = readBytes(a, "da_challenge_contract_address", at, 20, new Uint8Array(20));
  // SPEC: op-node validateAltDAConfig.
  if (type === "KeccakCommitment" && isZero(addr)) {
    fail(`${at}.da_challenge_contract_address`, "must be set for keccak commitments");
  }
  if (type === "GenericCommitment" && !isZero(addr)) {
    fail(`${at}.da_challenge_contract_address`, "must be empty for generic commitments");
  }
  return Object.freeze({
    daChallengeAddress: addr,
    commitmentType: type as AltDaCommitmentType,
    daChallengeWindow: readUint(a, "da_challenge_window", at, 0),
    daResolveWindow: readUint(a, "da_resolve_window", at, 0),
  });
}

// ---- parse and check ----

/**
 * Parses a rollup.json object (op-node's key names and value formats) and applies op-node's
 * `Config.Check()`. Unknown keys are ignored, as Go's decoder ignores them. Throws one
 * `RollupConfigError` naming the field.
 */
export function parseRollupConfig(json: unknown): RollupConfig {
  if (!isObject(json)) fail("(root)", "expected an object");
  const g = readObject(json, "genesis", "");
  const genesis: RollupGenesis = Object.freeze({
    l1: readBlockId(g, "l1", "genesis"),
    l2: readBlockId(g, "l2", "genesis"),
    l2Time: readUint(g, "l2_time", "genesis"),
    systemConfig: readSystemConfig(g, "genesis"),
  });
  const times = {} as Record<`${RollupFork}Time`, number | null>;
  for (const f of [...ROLLUP_FORKS, ...OPTIONAL_ROLLUP_FORKS]) {
    const t = readOptUint(json, FORK_TIME_KEYS[f], "");
    const alias = FORK_TIME_ALIASES[f];
    const a = alias === undefined ? null : readOptUint(json, alias, "");
    if (t !== null && a !== null && t !== a) fail(alias!, `${a} differs from ${FORK_TIME_KEYS[f]} ${t}`);
    times[`${f}Time`] = t ?? a;
  }
  const cfg: RollupConfig = Object.freeze({
    genesis,
    blockTime: readUint(json, "block_time", ""),
    maxSequencerDrift: readUint(json, "max_sequencer_drift", "", 0),
    seqWindowSize: readUint(json, "seq_window_size", ""),
    channelTimeout: readUint(json, "channel_timeout", ""),
    graniteChannelTimeout: readUint(json, "granite_channel_timeout", "", GRANITE_CHANNEL_TIMEOUT),
    l1ChainId: readBig(json, "l1_chain_id", "", 256),
    l2ChainId: readBig(json, "l2_chain_id", "", 256),
    ...times,
    keepKarstUpgradeGas: readBool(json, "keep_karst_upgrade_gas", ""),
    batchInboxAddress: readBytes(json, "batch_inbox_address", "", 20),
    depositContractAddress: readBytes(json, "deposit_contract_address", "", 20),
    l1SystemConfigAddress: readBytes(json, "l1_system_config_address", "", 20, new Uint8Array(20)),
    protocolVersionsAddress: readBytes(json, "protocol_versions_address", "", 20, new Uint8Array(20)),
    chainOpConfig: readChainOpConfig(json),
    altDa: readAltDa(json),
  });
  checkRollupConfig(cfg);
  return cfg;
}

/** op-node `Config.Check()`, in its order; throws `RollupConfigError` naming the field. */
export function checkRollupConfig(cfg: RollupConfig): void {
  const g = cfg.genesis;
  if (cfg.blockTime === 0) fail("block_time", "block time cannot be 0");
  if (cfg.channelTimeout === 0) fail("channel_timeout", "channel timeout must be set");
  if (cfg.seqWindowSize < 2) fail("seq_window_size", "sequencing window size must at least be 2");
  if (cfg.maxSequencerDrift === 0) fail("max_sequencer_drift", "maximum sequencer drift must be greater than 0");
  if (isZero(g.l1.hash)) fail("genesis.l1.hash", "genesis L1 hash cannot be empty");
  if (isZero(g.l2.hash)) fail("genesis.l2.hash", "genesis L2 hash cannot be empty");
  if (sameBytes(g.l1.hash, g.l2.hash)) fail("genesis.l2.hash", "L1 and L2 genesis cannot be the same");
  if (g.l2Time === 0) fail("genesis.l2_time", "missing L2 genesis time");
  const sc = g.systemConfig;
  if (isZero(sc.batcherAddr))
    fail("genesis.system_config.batcherAddr", "missing genesis system config batcher address");
  if (isZero(sc.scalar)) fail("genesis.system_config.scalar", "missing genesis system config scalar");
  if (sc.gasLimit === 0n) fail("genesis.system_config.gasLimit", "missing genesis system config gas limit");
  if (isZero(cfg.batchInboxAddress)) fail("batch_inbox_address", "missing batch inbox address");
  if (isZero(cfg.depositContractAddress)) fail("deposit_contract_address", "missing deposit contract address");
  if (cfg.l1ChainId === cfg.l2ChainId) fail("l2_chain_id", "L1 and L2 chain IDs must be different");
  if (cfg.l1ChainId < 1n) fail("l1_chain_id", "L1 chain ID must be non-zero and positive");
  if (cfg.l2ChainId < 1n) fail("l2_chain_id", "L2 chain ID must be non-zero and positive");
  for (let i = 1; i < ORDER_CHECKED_FORKS.length; i++) {
    const prev = ORDER_CHECKED_FORKS[i - 1]!;
    const fork = ORDER_CHECKED_FORKS[i]!;
    const a = cfg[`${prev}Time`];
    const b = cfg[`${fork}Time`];
    if (b === null) continue;
    if (a === null) fail(FORK_TIME_KEYS[fork], `fork ${fork} set (to ${b}), but prior fork ${prev} missing`);
    if (a > b) fail(FORK_TIME_KEYS[fork], `fork ${fork} set to ${b}, but prior fork ${prev} has higher offset ${a}`);
  }
}

// ---- JSON out ----

/** A u64/u256 as op-node writes it: a JSON number; a decimal string where a JS number would round. */
function bigOut(v: bigint): number | string {
  return v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString();
}

/**
 * The rollup.json object op-node writes for this config: its key names and order, lower-case hex
 * for hashes, addresses and byte fields, numbers for integers, unset forks left out.
 */
export function rollupConfigToJson(cfg: RollupConfig): Record<string, unknown> {
  const g = cfg.genesis;
  const sc = g.systemConfig;
  const out: Record<string, unknown> = {
    genesis: {
      l1: { hash: bytesToHex(g.l1.hash), number: g.l1.number },
      l2: { hash: bytesToHex(g.l2.hash), number: g.l2.number },
      l2_time: g.l2Time,
      system_config: {
        batcherAddr: bytesToHex(sc.batcherAddr),
        overhead: bytesToHex(sc.overhead),
        scalar: bytesToHex(sc.scalar),
        gasLimit: bigOut(sc.gasLimit),
        eip1559Params: bytesToHex(sc.eip1559Params),
        operatorFeeParams: bytesToHex(sc.operatorFeeParams),
        minBaseFee: bigOut(sc.minBaseFee),
        daFootprintGasScalar: sc.daFootprintGasScalar,
      },
    },
    block_time: cfg.blockTime,
  };
  if (cfg.maxSequencerDrift !== 0) out.max_sequencer_drift = cfg.maxSequencerDrift;
  out.seq_window_size = cfg.seqWindowSize;
  out.channel_timeout = cfg.channelTimeout;
  if (cfg.graniteChannelTimeout !== GRANITE_CHANNEL_TIMEOUT) out.granite_channel_timeout = cfg.graniteChannelTimeout;
  out.l1_chain_id = bigOut(cfg.l1ChainId);
  out.l2_chain_id = bigOut(cfg.l2ChainId);
  for (const f of ROLLUP_FORKS) {
    const t = cfg[`${f}Time`];
    if (t !== null) out[FORK_TIME_KEYS[f]] = t;
  }
  out.batch_inbox_address = bytesToHex(cfg.batchInboxAddress);
  out.deposit_contract_address = bytesToHex(cfg.depositContractAddress);
  out.l1_system_config_address = bytesToHex(cfg.l1SystemConfigAddress);
  out.protocol_versions_address = bytesToHex(cfg.protocolVersionsAddress);
  if (cfg.altDa !== null) {
    out.alt_da = {
      da_challenge_contract_address: bytesToHex(cfg.altDa.daChallengeAddress),
      da_commitment_type: cfg.altDa.commitmentType,
      da_challenge_window: cfg.altDa.daChallengeWindow,
      da_resolve_window: cfg.altDa.daResolveWindow,
    };
  }
  if (cfg.chainOpConfig !== null) {
    const c = cfg.chainOpConfig;
    const op: Record<string, number> = {
      eip1559Elasticity: c.eip1559Elasticity,
      eip1559Denominator: c.eip1559Denominator,
    };
    if (c.eip1559DenominatorCanyon !== null) op.eip1559DenominatorCanyon = c.eip1559DenominatorCanyon;
    out.chain_op_config = op;
  }
  if (cfg.pectraBlobScheduleTime !== null) out.pectra_blob_schedule_time = cfg.pectraBlobScheduleTime;
  if (cfg.keepKarstUpgradeGas) out.keep_karst_upgrade_gas = true;
  return out;
}

// ---- forks ----

/** A fork is active at `timestamp` when scheduled and `timestamp >= time` (op-node `IsX`). */
export function isForkActive(cfg: RollupConfig, fork: RollupFork, timestamp: number): boolean {
  const t = cfg[`${fork}Time`];
  return t !== null && timestamp >= t;
}

/**
 * The first L2 block under `fork`: active at `timestamp` but not one block earlier. A fork active
 * at genesis has no activation block (op-node `IsXActivationBlock`).
 */
export function isForkActivationBlock(cfg: RollupConfig, fork: RollupFork, timestamp: number): boolean {
  return (
    isForkActive(cfg, fork, timestamp) &&
    timestamp >= cfg.blockTime &&
    !isForkActive(cfg, fork, timestamp - cfg.blockTime)
  );
}

/** Channel timeout in L1 blocks for an L1 origin at `l1Timestamp` (op-node ChainSpec: Granite → 50). */
export function channelTimeoutAt(cfg: RollupConfig, l1Timestamp: number): number {
  return isForkActive(cfg, "granite", l1Timestamp) ? cfg.graniteChannelTimeout : cfg.channelTimeout;
}

/** Max sequencer drift in seconds for an L1 origin at `l1Timestamp` (op-node ChainSpec: Fjord → 1800). */
export function maxSequencerDriftAt(cfg: RollupConfig, l1Timestamp: number): number {
  return isForkActive(cfg, "fjord", l1Timestamp) ? FJORD_MAX_SEQUENCER_DRIFT : cfg.maxSequencerDrift;
}

/**
 * `--override.<fork>`: a copy of `cfg` with the given activation times replaced, checked again
 * (an override can break the order of Regolith…Isthmus). As op-node's `applyOverrides`
 * (op-node/service.go: `SetActivationTime` per overridden fork) it sets only the forks given: an
 * earlier fork left unset stays unset, and from Jovian on no order is required
 * (`ORDER_CHECKED_FORKS`), so `--override.interop` works with or without a Karst time. Overrides of
 * 0 from the flag table mean "none" and must be dropped by the caller; here every given value is
 * applied.
 */
export function applyForkOverrides(cfg: RollupConfig, overrides: Partial<Record<RollupFork, number>>): RollupConfig {
  const times: { -readonly [K in keyof ForkTimes]?: number } = {};
  for (const [fork, time] of Object.entries(overrides) as [RollupFork, number | undefined][]) {
    if (time === undefined) continue;
    if (!(fork in FORK_TIME_KEYS)) fail(`override.${fork}`, "unknown fork");
    if (!Number.isSafeInteger(time) || time < 0) fail(`override.${fork}`, `not a timestamp: ${time}`);
    times[`${fork}Time`] = time;
  }
  const out: RollupConfig = Object.freeze({ ...cfg, ...times });
  checkRollupConfig(out);
  return out;
}

// ---- L1 chain config ----

/**
 * `--rollup.l1-chain-config`: a geth chain config given directly, or a genesis file with it under
 * `config`. Errors come as `ChainConfigError` naming the field. With `l1ChainId`, the config's
 * chain id must match the rollup config's.
 */
export function parseL1ChainConfig(json: unknown, l1ChainId?: bigint): ChainConfig {
  const inner = isObject(json) && isObject(json.config) ? json.config : json;
  const cc = parseChainConfig(inner);
  if (l1ChainId !== undefined && cc.chainId !== l1ChainId) {
    fail("l1_chain_id", `L1 chain config has chain id ${cc.chainId}, rollup config says ${l1ChainId}`);
  }
  return cc;
}
