/**
 * Fork rules → frozen precompile table, built once per rules (code-models §10.7): the interpreter
 * resolves the table when a block starts and never asks "is EIP-x active?" per call. Keys are the
 * numeric value of the address when its first 18 bytes are zero (every precompile address is);
 * `precompileId` turns a 20-byte address into that key once per lookup site.
 */
import { Fork, type ForkRules, OpFork } from "../../spec/forks.js";
import { pointEvaluation } from "./0a-pointEvaluation.js";
import { blsG1Add } from "./0b-blsG1Add.js";
import { blsG1Msm } from "./0c-blsG1Msm.js";
import { blsG2Add } from "./0d-blsG2Add.js";
import { blsG2Msm } from "./0e-blsG2Msm.js";
import { blsPairing } from "./0f-blsPairing.js";
import { ecrecover } from "./01-ecrecover.js";
import { sha256 } from "./02-sha256.js";
import { ripemd160 } from "./03-ripemd160.js";
import { identity } from "./04-identity.js";
import { modexp } from "./05-modexp.js";
import { bn254Add } from "./06-bn254Add.js";
import { bn254Mul } from "./07-bn254Mul.js";
import { bn254Pairing } from "./08-bn254Pairing.js";
import { blake2f } from "./09-blake2f.js";
import { blsMapFpToG1 } from "./10-blsMapFpToG1.js";
import { blsMapFp2ToG2 } from "./11-blsMapFp2ToG2.js";
import { p256Verify } from "./100-p256Verify.js";
import type { Precompile } from "./types.js";

export type PrecompileTable = ReadonlyMap<number, Precompile>;

export const P256VERIFY_ID = 0x100;

/** Table key of a 20-byte address, or -1 when it cannot be a precompile. */
export function precompileId(address: Uint8Array): number {
  for (let i = 0; i < 18; i++) if (address[i] !== 0) return -1;
  return (address[18] << 8) | address[19];
}

/** 20-byte address of a table key. */
export function precompileAddress(id: number): Uint8Array {
  const a = new Uint8Array(20);
  a[18] = id >> 8;
  a[19] = id & 0xff;
  return a;
}

export function buildPrecompileTable(rules: ForkRules): PrecompileTable {
  const m = new Map<number, Precompile>([
    [0x01, ecrecover],
    [0x02, sha256],
    [0x03, ripemd160],
    [0x04, identity],
  ]);
  const f = rules.fork;
  if (f >= Fork.Byzantium) {
    m.set(0x05, modexp);
    m.set(0x06, bn254Add);
    m.set(0x07, bn254Mul);
    m.set(0x08, bn254Pairing);
  }
  if (f >= Fork.Istanbul) m.set(0x09, blake2f);
  if (f >= Fork.Cancun) m.set(0x0a, pointEvaluation);
  if (f >= Fork.Prague) {
    m.set(0x0b, blsG1Add);
    m.set(0x0c, blsG1Msm);
    m.set(0x0d, blsG2Add);
    m.set(0x0e, blsG2Msm);
    m.set(0x0f, blsPairing);
    m.set(0x10, blsMapFpToG1);
    m.set(0x11, blsMapFp2ToG2);
  }
  if (f >= Fork.Osaka || (rules.op !== null && rules.op >= OpFork.Fjord)) m.set(P256VERIFY_ID, p256Verify);
  return freezeMap(m);
}

function freezeMap<K, V>(m: Map<K, V>): ReadonlyMap<K, V> {
  const deny = (): never => {
    throw new TypeError("precompile table is frozen");
  };
  m.set = deny;
  m.delete = deny;
  m.clear = deny;
  return Object.freeze(m);
}

/**
 * Memo of built tables by rules (fork, op): a bounded cache (≤ 18 × 12 entries) of immutable
 * values, so sharing it across callers is safe.
 */
const CACHE = new Map<number, PrecompileTable>();

const ADDRESS_SETS = new WeakMap<PrecompileTable, ReadonlySet<bigint>>();

/** The addresses of a table's precompiles, as the set a tx warms (EIP-2929); built once per table. */
export function precompileAddressSet(t: PrecompileTable): ReadonlySet<bigint> {
  let s = ADDRESS_SETS.get(t);
  if (s === undefined) {
    s = new Set([...t.keys()].map((id) => BigInt(id)));
    ADDRESS_SETS.set(t, s);
  }
  return s;
}

export function precompileTable(rules: ForkRules): PrecompileTable {
  const key = rules.fork * 64 + (rules.op === null ? 63 : rules.op);
  let t = CACHE.get(key);
  if (t === undefined) {
    t = buildPrecompileTable(rules);
    CACHE.set(key, t);
  }
  return t;
}
