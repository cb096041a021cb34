/** A chain unrelated to the sync fixtures' (another genesis: different alloc, hence hash and fork id). */
import { Blockchain } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { sourceChain } from "../../unit/devp2p/sync/syncFixtures.js";
import { l1Genesis } from "../../utils/genesis.js";

export function otherChain(): Blockchain {
  const g = l1Genesis(new Map([[new Uint8Array(20).fill(7), { balance: 1n }]]));
  return Blockchain.init(new MemoryKv(), parseGenesis(g), (g as { config: unknown }).config);
}

/** `base` blocks of the sync fixtures' chain, then `extra` empty blocks of its own: a fork of sourceChain above `base`. */
export function forkedChain(base: number, extra: number): Blockchain {
  const c = sourceChain(base);
  for (let i = 0; i < extra; i++) {
    const built = c.buildBlock({
      parentHash: c.headBlockHash,
      timestamp: c.head.timestamp + 3,
      feeRecipient: new Uint8Array(20).fill(0xee),
      prevRandao: new Uint8Array(32),
      gasLimit: c.head.gasLimit,
      extraData: new Uint8Array(0),
      withdrawals: [],
      parentBeaconBlockRoot: new Uint8Array(32).fill(4),
      forced: [],
      pool: null,
    });
    if ("error" in built) throw new Error(built.error);
    c.setHead(built.hash);
  }
  return c;
}
