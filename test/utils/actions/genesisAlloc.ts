/**
 * Real OP chains' L2 genesis accounts for action tests that need the production predeploys: the
 * ERC-1967 proxies at 0x4200…0000–07ff (admin the L2ProxyAdmin at 0x4200…0018), their
 * implementations at 0xc0d3…, and the preinstalls (the deterministic deployment proxy at
 * 0x4e59…956C among them). Read at test time from the superchain-registry genesis files in
 * ../shared/fixtures (fixtures/op-stack/SOURCE.md: upstream `superchain/extra/genesis`, recompressed
 * with gzip, content unchanged).
 */
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { fixturePath } from "../fixtures.js";

/** `0x`-prefixed lower-case address: the one key form for merging allocs. */
export function addressKey(k: string): string {
  const h = k.toLowerCase().replace(/^0x/, "");
  if (!/^[0-9a-f]{40}$/.test(h)) throw new Error(`genesis alloc key ${k} is not an address`);
  return `0x${h}`;
}

/** The `alloc` of `superchain-registry/genesis/<name>.genesis.json.gz` (e.g. "unichain-mainnet"). */
export function registryGenesisAlloc(name: string): Record<string, unknown> {
  const gz = readFileSync(fixturePath("op-stack", "superchain-registry", "genesis", `${name}.genesis.json.gz`));
  const g = JSON.parse(gunzipSync(gz).toString("utf8")) as { alloc: Record<string, unknown> };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(g.alloc)) out[addressKey(k)] = v;
  return out;
}
