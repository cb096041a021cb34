/**
 * The rpc-compat suite's chain in memory (genesis.json + chain.rlp at the head of headfcu.json), for
 * unit tests of the RPC layer that need a real chain with every tx type; the suite itself runs
 * against a served node (scripts/rpcCompat.ts).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Blockchain } from "../../src/chain/blockchain.js";
import { parseGenesis } from "../../src/chain/genesis.js";
import { hexToBytes } from "../../src/primitives/hex.js";
import { decodeHeader } from "../../src/rlp/decode.js";
import { MemoryKv } from "../../src/storage/memory.js";

/** The RLP blocks of a chain.rlp file, one subarray each. */
export function blocksOf(file: string): Uint8Array[] {
  const all = new Uint8Array(readFileSync(file));
  const out: Uint8Array[] = [];
  for (let pos = 0; pos < all.length; ) {
    const h = decodeHeader(all, pos);
    const end = h.start + h.length;
    out.push(all.subarray(pos, end));
    pos = end;
  }
  return out;
}

/** genesis.json + chain.rlp + headfcu.json → a chain at the suite's head. */
export function buildSuiteChain(dir: string): Blockchain {
  const json = JSON.parse(readFileSync(join(dir, "genesis.json"), "utf8")) as { config: unknown };
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(json), json.config);
  for (const rlp of blocksOf(join(dir, "chain.rlp"))) {
    const r = chain.insertBlock(rlp);
    if (r.status !== "VALID" && r.status !== "KNOWN") throw new Error(`block ${r.header?.number}: ${r.error}`);
  }
  const fcu = JSON.parse(readFileSync(join(dir, "headfcu.json"), "utf8")) as {
    params: [{ headBlockHash: string; safeBlockHash: string; finalizedBlockHash: string }];
  };
  const f = fcu.params[0];
  chain.setHead(hexToBytes(f.headBlockHash));
  chain.setSafeAndFinalized(hexToBytes(f.safeBlockHash), hexToBytes(f.finalizedBlockHash));
  return chain;
}
