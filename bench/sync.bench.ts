/**
 * `npm run bench -- sync`: a verifier importing small L2 blocks (issue 25). A chain of 10,000
 * (`OPAL_BENCH_SYNC_BLOCKS`) L2-shaped blocks is built by the node's block builder on an OP dev
 * genesis (Jovian; the full predeploy set): each block 2 s after its parent, opening with the
 * L1-attributes deposit (`opDevBlockParts`, as `--dev` seals OP blocks), then 20 transactions from
 * the ten dev accounts — 12 ETH transfers (one in four to a new address) and 8 WETH9 calls
 * (`deposit`, then `transfer` of part of it to another dev account: storage writes on a predeploy).
 * A fresh `opal-exec` initialised with the same genesis then imports the chain through the Engine
 * API as a verifier's opal-node feeds it (engine_newPayloadV4 + engine_forkchoiceUpdatedV3 per
 * block, JWT over HTTP). Prints `sync: <N> blocks, <X> blocks/s, <Y> Mgas/s`, and where the
 * node's time went (its `opal_chain_import_*` counters: execution, flat-state writes, root).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Blockchain } from "../src/chain/blockchain.js";
import { parseGenesis } from "../src/chain/genesis.js";
import { devAccounts, opDevGenesis } from "../src/node/exec/devGenesis.js";
import { opDevBlockParts } from "../src/node/exec/devSealer.js";
import { hexToBytes } from "../src/primitives/hex.js";
import { MemoryKv } from "../src/storage/memory.js";
import { encodeTx } from "../src/tx/envelope.js";
import { signTx } from "../src/tx/signer.js";
import { feeMarketTx } from "../test/unit/tx/builders.js";
import { makeTmpDir, removeDir } from "../test/utils/tmpDir.js";
import { type EngineBlock, ExecProcess, engineBlock, metric } from "./execProcess.js";
import { type BenchRow, erc20TransferData, launcherNote } from "./lib.js";

const WETH = hexToBytes("0x4200000000000000000000000000000000000006");
const CHAIN_ID = 901n;
const GWEI = 10n ** 9n;
const BIN = join(import.meta.dirname, "..", "bin", "opal-exec.mjs");

/** Builds the L2 chain in memory; returns its blocks as the Engine API carries them. */
export function buildChain(genesis: Record<string, unknown>, n: number): EngineBlock[] {
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(genesis), genesis.config);
  const accounts = devAccounts();
  const nonces = accounts.map(() => 0n);
  const out: EngineBlock[] = [];
  let fresh = 0;
  for (let b = 0; b < n; b++) {
    const parent = chain.head;
    const number = parent.number + 1;
    const timestamp = parent.timestamp + 2;
    const parts = opDevBlockParts(chain.config, parent, number, timestamp);
    const txs: Uint8Array[] = [];
    for (let t = 0; t < 20; t++) {
      const j = t % accounts.length;
      const from = accounts[j]!;
      const weth = t >= 12;
      let to: Uint8Array;
      let data: Uint8Array = new Uint8Array(0);
      let value = 0n;
      let gas = 21_000n;
      if (!weth) {
        to =
          t % 4 === 0
            ? hexToBytes(`0x${(0xb000000000 + fresh++).toString(16).padStart(40, "0")}`)
            : accounts[(j + 1) % accounts.length]!.address;
        value = 1_000n;
      } else if (t % 2 === 0) {
        to = WETH;
        value = 10n ** 15n;
        data = Uint8Array.of(0xd0, 0xe3, 0x0d, 0xb0); // deposit()
        gas = 60_000n;
      } else {
        to = WETH;
        data = erc20TransferData(accounts[(j + 3) % accounts.length]!.address, 10n ** 12n);
        gas = 60_000n;
      }
      const tx = feeMarketTx({
        chainId: CHAIN_ID,
        nonce: nonces[j]!++,
        maxPriorityFeePerGas: 1_000n,
        maxFeePerGas: 10n * GWEI,
        gasLimit: gas,
        to,
        value,
        data,
      });
      txs.push(encodeTx(signTx(tx, from.privateKey)));
    }
    const built = chain.buildBlock({
      parentHash: chain.headBlockHash,
      timestamp,
      feeRecipient: hexToBytes("0x4200000000000000000000000000000000000011"),
      prevRandao: new Uint8Array(32).fill(number & 0xff),
      gasLimit: parent.gasLimit,
      extraData: parts.extraData,
      withdrawals: [],
      parentBeaconBlockRoot: new Uint8Array(32).fill(4),
      forced: [...parts.forced, ...txs],
      pool: null,
    });
    if ("error" in built) throw new Error(`sync: building block ${number}: ${built.error}`);
    if (built.body.transactions.length !== 21)
      throw new Error(`sync: block ${number} holds ${built.body.transactions.length} txs`);
    chain.setHead(built.hash);
    out.push(engineBlock(built.header, built.body, built.hash, true));
  }
  return out;
}

export async function run(): Promise<BenchRow[]> {
  const n = Number(process.env.OPAL_BENCH_SYNC_BLOCKS ?? 10_000);
  console.log(`sync: ${launcherNote()}`);
  const genesis = opDevGenesis({ chainId: CHAIN_ID, timestamp: 1_700_000_000, fork: "jovian", gasLimit: 60_000_000n });
  const t0 = performance.now();
  const blocks = buildChain(genesis, n);
  console.log(`sync: built ${n} L2 blocks in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const dir = makeTmpDir();
  try {
    const genesisFile = join(dir, "genesis.json");
    writeFileSync(genesisFile, JSON.stringify(genesis));
    const datadir = join(dir, "node");
    const init = spawnSync(process.execPath, [BIN, "init", "--datadir", datadir, genesisFile], { encoding: "utf8" });
    if (init.status !== 0) throw new Error(`sync: opal-exec init: ${init.stderr}`);
    const node = await ExecProcess.start(datadir);
    try {
      const before = await node.metrics();
      const t1 = performance.now();
      for (const b of blocks) await node.feed(b);
      const s = (performance.now() - t1) / 1000;
      const after = await node.metrics();
      const d = (name: string): number => metric(after, name) - metric(before, name);
      const gas = blocks.reduce((a, b) => a + b.gasUsed, 0);
      console.log(`sync: ${n} blocks, ${(n / s).toFixed(0)} blocks/s, ${(gas / 1e6 / s).toFixed(1)} Mgas/s`);
      const per = (name: string): string => `${((d(`opal_chain_import_${name}_seconds_total`) * 1000) / n).toFixed(2)}`;
      console.log(
        `sync: per block ${((s * 1000) / n).toFixed(2)} ms: execution ${per("execution")} ms, state writes ${per("state_write")} ms, root ${per("root")} ms, the rest (Engine API, JSON, forkchoice, block and receipt writes) ${((s * 1000) / n - Number(per("execution")) - Number(per("state_write")) - Number(per("root"))).toFixed(2)} ms`,
      );
      return [
        {
          section: "sync",
          name: `engine import of ${n} L2 blocks`,
          opsPerSec: n / s,
          meanMs: (s * 1000) / n,
          items: gas / n,
          samples: n,
        },
      ];
    } finally {
      await node.stop();
    }
  } finally {
    removeDir(dir);
  }
}
