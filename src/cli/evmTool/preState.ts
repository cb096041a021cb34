/** Test-fixture state: the `pre` / `postState` maps of state and blockchain tests as a fresh store. */
import { type AllocAccount, writeAlloc } from "../../chain/genesisState.js";
import { hexToBytes } from "../../primitives/hex.js";
import type { KvStore } from "../../storage/kv.js";
import { MemoryKv } from "../../storage/memory.js";

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

function* allocOf(alloc: Record<string, FixtureAccount>): Iterable<AllocAccount> {
  for (const [address, acc] of Object.entries(alloc)) {
    yield {
      address: hexToBytes(address),
      nonce: fixtureBigint(acc.nonce),
      balance: fixtureBigint(acc.balance),
      code: acc.code === undefined ? new Uint8Array(0) : hexToBytes(acc.code),
      storage: Object.entries(acc.storage ?? {}).map(([k, v]) => [fixtureBigint(k), fixtureBigint(v)] as const),
    };
  }
}

/** Writes `alloc` into a fresh MemoryKv and returns it with its state root. */
export function buildPreState(alloc: Record<string, FixtureAccount>): { kv: KvStore; root: Uint8Array } {
  const kv = new MemoryKv();
  return { kv, root: writeAlloc(kv, allocOf(alloc)) };
}
