/**
 * Builds a chain for the export/import measurement: `opal-exec init` of the L1 dev genesis in
 * `--datadir`, then `--blocks N` blocks, each with 1–4 signed transfers from the dev accounts,
 * built, executed and made canonical by the node's own block builder (`Blockchain.buildBlock`,
 * `setHead`). Writes genesis.json beside the datadir and prints the head's number, hash and root.
 *   tsx scripts/genChain.ts --blocks 10000 --out /tmp/chain
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Blockchain } from "../src/chain/blockchain.js";
import { parseGenesis } from "../src/chain/genesis.js";
import { DEV_CHAIN_ID, devAccounts, l1DevGenesis } from "../src/node/exec/devGenesis.js";
import { bytesToHex } from "../src/primitives/hex.js";
import { openStore } from "../src/storage/engine.js";
import { encodeTx } from "../src/tx/envelope.js";
import { signTx } from "../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../src/tx/tx.js";
import { mine } from "../test/unit/txpool/fixtures.js";

const { values } = parseArgs({
  options: { blocks: { type: "string", default: "10000" }, out: { type: "string" } },
});
if (values.out === undefined) throw new Error("--out DIR is required");
const n = Number(values.blocks);
const out = values.out;
mkdirSync(out, { recursive: true });
const datadir = join(out, "datadir");
rmSync(datadir, { recursive: true, force: true });

const genesisJson = l1DevGenesis(30_000_000n);
writeFileSync(join(out, "genesis.json"), JSON.stringify(genesisJson));
const keys = devAccounts(10);
const nonces = keys.map(() => 0n);
const store = await openStore(join(datadir, "chaindata"), "rocksdb");
const t0 = Date.now();
try {
  const chain = Blockchain.init(store.kv, parseGenesis(genesisJson), genesisJson.config);
  for (let i = 0; i < n; i++) {
    const forced: Uint8Array[] = [];
    for (let t = 0; t < 1 + (i % 4); t++) {
      const from = (i + t) % keys.length;
      const to = (from + 1 + (i % 7)) % keys.length;
      const tx: FeeMarketTx = {
        type: TxType.FeeMarket,
        chainId: DEV_CHAIN_ID,
        nonce: nonces[from]!++,
        maxPriorityFeePerGas: 1_000_000_000n,
        maxFeePerGas: 100_000_000_000n,
        gasLimit: 21_000n,
        to: keys[to]!.address,
        value: BigInt(i + 1),
        data: new Uint8Array(0),
        accessList: [],
        yParity: 0,
        r: 0n,
        s: 0n,
      };
      forced.push(encodeTx(signTx(tx, keys[from]!.privateKey)));
    }
    mine(chain, { forced, timestampDelta: 2 });
    if ((i + 1) % 1000 === 0) console.error(`built ${i + 1}/${n} blocks, ${Date.now() - t0}ms`);
  }
  console.log(
    JSON.stringify({
      number: chain.head.number,
      hash: bytesToHex(chain.headBlockHash),
      root: bytesToHex(chain.head.stateRoot),
    }),
  );
} finally {
  await store.kv.close();
}
