/**
 * Test-fixture state: the `pre` / `postState` / genesis `alloc` maps of state and blockchain tests
 * written into a KvStore's flat tables, with the trie built over them.
 */
import { keccak256 } from "../../crypto/keccak.js";
import { hexToBytes } from "../../primitives/hex.js";
import { bigintToBytes, bigintToBytes32 } from "../../primitives/u256.js";
import type { KvStore } from "../../storage/kv.js";
import { WriteBatch } from "../../storage/kv.js";
import { MemoryKv } from "../../storage/memory.js";
import { encodeAccount } from "../../trie/account.js";
import { computeStateRoot } from "../../trie/stateRoot.js";

export interface FixtureAccount {
  nonce?: string;
  balance?: string;
  code?: string;
  storage?: Record<string, string>;
}

/** Parses a fixture number ("0x…" with any leading zeros, or decimal). */
export function fixtureBigint(s: string | undefined): bigint {
  if (s === undefined || s === "" || s === "0x") return 0n;
  return BigInt(s);
}

/** Writes `alloc` into a fresh MemoryKv and returns it with its state root. */
export function buildPreState(alloc: Record<string, FixtureAccount>): { kv: KvStore; root: Uint8Array } {
  const kv = new MemoryKv();
  const b = new WriteBatch();
  for (const [addrHex, acc] of Object.entries(alloc)) {
    const h = keccak256(hexToBytes(addrHex));
    const code = acc.code === undefined ? new Uint8Array(0) : hexToBytes(acc.code);
    const codeHash = keccak256(code);
    if (code.length > 0) b.put("code", codeHash, code);
    for (const [slotHex, valHex] of Object.entries(acc.storage ?? {})) {
      const v = fixtureBigint(valHex);
      if (v === 0n) continue;
      const key = new Uint8Array(64);
      key.set(h, 0);
      key.set(keccak256(bigintToBytes32(fixtureBigint(slotHex))), 32);
      b.put("hashedStorage", key, bigintToBytes(v));
    }
    b.put(
      "hashedAccounts",
      h,
      encodeAccount(fixtureBigint(acc.nonce), fixtureBigint(acc.balance), undefined, codeHash),
    );
  }
  kv.write(b);
  const r = computeStateRoot(kv);
  kv.write(r.batch);
  return { kv, root: r.root };
}
