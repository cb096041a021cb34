/** A chain unrelated to the sync fixtures' (another genesis: different alloc, hence hash and fork id). */
import { Blockchain } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { l1Genesis } from "../../utils/genesis.js";

export function otherChain(): Blockchain {
  const g = l1Genesis(new Map([[new Uint8Array(20).fill(7), { balance: 1n }]]));
  return Blockchain.init(new MemoryKv(), parseGenesis(g), (g as { config: unknown }).config);
}
