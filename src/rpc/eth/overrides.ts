/**
 * eth_call-style overrides (geth internal/ethapi/override): state overrides (balance, nonce, code,
 * `state` / `stateDiff`, eth_simulateV1's `movePrecompileToAddress`) and block overrides, their
 * decoders, and how they apply — to a WorldState, to a view of a base state, to a block context.
 * Shared by eth_call, eth_estimateGas, eth_createAccessList and eth_simulateV1.
 */

import type { BlockContext } from "../../evm/context.js";
import { toChecksumAddress } from "../../primitives/address.js";
import { bytesKey } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { bytesToBigint } from "../../primitives/u256.js";
import { KvStateReader } from "../../state/kvStateReader.js";
import { addressToBigint, WorldState } from "../../state/worldState.js";
import type { KvReader, WriteBatch } from "../../storage/kv.js";
import { type Overlay, OverlayKv } from "../../storage/overlayKv.js";
import { RpcError } from "../errors.js";
import { address, bigQuantity, data, hash, uint64 } from "../params.js";

export type StateOverrides = Map<string, [Uint8Array, AccountOverride]>;

export interface BlockOverrides {
  number?: bigint;
  time?: bigint;
  gasLimit?: bigint;
  feeRecipient?: Uint8Array;
  prevRandao?: Uint8Array;
  baseFeePerGas?: bigint;
  blobBaseFee?: bigint;
  beaconRoot?: Uint8Array;
}

export interface AccountOverride {
  balance?: bigint;
  nonce?: bigint;
  code?: Uint8Array;
  state?: Map<string, [Uint8Array, Uint8Array]>;
  stateDiff?: Map<string, [Uint8Array, Uint8Array]>;
  movePrecompileToAddress?: Uint8Array;
}

/** `o` with its keys lower-cased: Go's encoding/json matches field names case-insensitively. */
export function lowerKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k.toLowerCase()] = v;
  return out;
}

function opt<T>(f: (v: unknown) => T, v: unknown): T | undefined {
  return v === null || v === undefined ? undefined : f(v);
}

function slots(v: unknown): Map<string, [Uint8Array, Uint8Array]> {
  const m = new Map<string, [Uint8Array, Uint8Array]>();
  for (const [k, val] of Object.entries((v ?? {}) as Record<string, unknown>)) {
    const key = hash.decode(k);
    m.set(bytesKey(key), [key, hash.decode(val)]);
  }
  return m;
}

/** geth `override.BlockOverrides`. */
export function parseBlockOverrides(v: unknown): BlockOverrides {
  const ov = lowerKeys((v ?? {}) as Record<string, unknown>);
  const overrides: BlockOverrides = {};
  const num = opt((x) => bigQuantity.decode(x), ov.number);
  if (num !== undefined) overrides.number = num;
  const time = opt((x) => uint64.decode(x), ov.time);
  if (time !== undefined) overrides.time = time;
  const gl = opt((x) => uint64.decode(x), ov.gaslimit);
  if (gl !== undefined) overrides.gasLimit = gl;
  const fr = opt((x) => address.decode(x), ov.feerecipient);
  if (fr !== undefined) overrides.feeRecipient = fr;
  const pr = opt((x) => hash.decode(x), ov.prevrandao);
  if (pr !== undefined) overrides.prevRandao = pr;
  const bf = opt((x) => bigQuantity.decode(x), ov.basefeepergas);
  if (bf !== undefined) overrides.baseFeePerGas = bf;
  const bbf = opt((x) => bigQuantity.decode(x), ov.blobbasefee);
  if (bbf !== undefined) overrides.blobBaseFee = bbf;
  const br = opt((x) => hash.decode(x), ov.beaconroot);
  if (br !== undefined) overrides.beaconRoot = br;
  return overrides;
}

/** geth `override.StateOverride`. */
export function parseStateOverrides(v: unknown): StateOverrides {
  const state = new Map<string, [Uint8Array, AccountOverride]>();
  for (const [k, acc] of Object.entries((v ?? {}) as Record<string, unknown>)) {
    const a = address.decode(k);
    const ao = lowerKeys((acc ?? {}) as Record<string, unknown>);
    const x: AccountOverride = {};
    const bal = opt((y) => bigQuantity.decode(y), ao.balance);
    if (bal !== undefined) x.balance = bal;
    const n = opt((y) => uint64.decode(y), ao.nonce);
    if (n !== undefined) x.nonce = n;
    const c = opt((y) => data.decode(y), ao.code);
    if (c !== undefined) x.code = c;
    if (ao.state !== null && ao.state !== undefined) x.state = slots(ao.state);
    if (ao.statediff !== null && ao.statediff !== undefined) x.stateDiff = slots(ao.statediff);
    const mv = opt((y) => address.decode(y), ao.moveprecompiletoaddress);
    if (mv !== undefined) x.movePrecompileToAddress = mv;
    if (x.state !== undefined && x.stateDiff !== undefined) {
      throw RpcError.server(`account ${bytesToHex(a)} has both 'state' and 'stateDiff'`);
    }
    state.set(bytesKey(a), [a, x]);
  }
  return state;
}

/** Applies the account fields of `overrides` to `state` (moves are the caller's). */
export function applyStateOverrides(state: WorldState, overrides: StateOverrides): void {
  for (const [addr, x] of overrides.values()) {
    const acct = state.account(addressToBigint(addr));
    if (x.nonce !== undefined) state.setNonce(acct, x.nonce);
    if (x.code !== undefined) state.setCode(acct, x.code);
    if (x.balance !== undefined) state.setBalance(acct, x.balance);
    if (x.state !== undefined) {
      const keepNonce = acct.nonce;
      const keepCode = state.code(acct);
      const keepBalance = acct.balance;
      state.createContract(acct);
      state.setNonce(acct, keepNonce);
      state.setCode(acct, keepCode);
      state.setBalance(acct, keepBalance);
      for (const [k, val] of x.state.values()) state.sstore(acct, bytesToBigint(k), bytesToBigint(val));
    }
    if (x.stateDiff !== undefined) {
      for (const [k, val] of x.stateDiff.values()) state.sstore(acct, bytesToBigint(k), bytesToBigint(val));
    }
  }
  state.finalizeTx(false);
}

/**
 * eth_call / eth_estimateGas / eth_createAccessList state overrides: a view of `base` with the
 * overridden accounts written over it (flat rows only; no state root is needed to execute).
 */
export function overriddenView(base: KvReader, overrides: StateOverrides): KvReader {
  for (const [addr, x] of overrides.values()) {
    if (x.movePrecompileToAddress !== undefined) {
      throw RpcError.server(`movePrecompileToAddress is not supported here (account ${toChecksumAddress(addr)})`);
    }
  }
  const overlay: Overlay = new Map();
  const kv = new OverlayKv(base, overlay);
  const state = new WorldState(new KvStateReader(kv), kv);
  applyStateOverrides(state, overrides);
  applyBatch(overlay, state.commitBlock().batch);
  return kv;
}

/** A block context with geth's `BlockOverrides.Apply` fields replaced. */
export function overriddenBlock(block: BlockContext, o: BlockOverrides): BlockContext {
  return {
    ...block,
    number: o.number ?? block.number,
    timestamp: o.time ?? block.timestamp,
    gasLimit: o.gasLimit ?? block.gasLimit,
    coinbase: o.feeRecipient === undefined ? block.coinbase : addressToBigint(o.feeRecipient),
    prevRandao: o.prevRandao === undefined ? block.prevRandao : bytesToBigint(o.prevRandao),
    baseFee: o.baseFeePerGas ?? block.baseFee,
    blobBaseFee: o.blobBaseFee ?? block.blobBaseFee,
    blockHash: block.blockHash,
  };
}

/** Writes `batch` into `overlay` (a delete becomes a null row that hides the base's). */
export function applyBatch(overlay: Overlay, batch: WriteBatch): void {
  for (const op of batch.ops) {
    let t = overlay.get(op.table);
    if (t === undefined) {
      t = new Map();
      overlay.set(op.table, t);
    }
    t.set(bytesKey(op.key), { key: op.key, value: op.type === "put" ? op.value : null });
  }
}
