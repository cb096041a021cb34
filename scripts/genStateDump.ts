/**
 * Makes a state dump for `opal-exec init-state` (reth's JSONL) from a state the node builds
 * itself: `--accounts N` generated accounts (every 10th with 1–16 storage slots, every 50th with
 * code) join the alloc of an OP dev genesis, which the node's own genesis path writes
 * (`Blockchain.init`: flat rows, then the full `computeStateRoot`) into a scratch datadir. The
 * genesis header is the header the dump belongs to, so the root init-state must reproduce comes
 * from the node's normal writers, not from init-state's. Writes into `--out DIR`: genesis.json
 * (the config; init-state reads no alloc), header.rlp, state.jsonl (state.jsonl.gz with --gzip),
 * and prints the header hash and state root.
 *   tsx scripts/genStateDump.ts --accounts 1000000 --out /tmp/dump [--gzip]
 */
import { once } from "node:events";
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Writable } from "node:stream";
import { parseArgs } from "node:util";
import { createGzip } from "node:zlib";
import { encodeHeader, type Header, headerHash } from "../src/block/header.js";
import { Blockchain } from "../src/chain/blockchain.js";
import { parseGenesis } from "../src/chain/genesis.js";
import type { AllocAccount } from "../src/chain/genesisState.js";
import { keccak256 } from "../src/crypto/keccak.js";
import { opDevGenesis } from "../src/node/exec/devGenesis.js";
import { dumpQuantity, dumpWord } from "../src/node/exec/initState.js";
import { bytesToHex, hexToBytes } from "../src/primitives/hex.js";
import { openStore } from "../src/storage/engine.js";

const { values } = parseArgs({
  options: {
    accounts: { type: "string", default: "1000000" },
    out: { type: "string" },
    gzip: { type: "boolean", default: false },
  },
});
if (values.out === undefined) throw new Error("--out DIR is required");
const n = Number(values.accounts);
const out = values.out;
mkdirSync(out, { recursive: true });

/** Account `i` of the generated set: deterministic, addresses spread by keccak. */
function generated(i: number): AllocAccount {
  const seed = new Uint8Array(8);
  new DataView(seed.buffer).setBigUint64(0, BigInt(i));
  const address = keccak256(seed).subarray(0, 20);
  const storage: [bigint, bigint][] = [];
  if (i % 10 === 0) for (let k = 0; k <= i % 16; k++) storage.push([BigInt(k), BigInt(i) * 1000n + BigInt(k) + 1n]);
  const code = i % 50 === 0 ? hexToBytes(`0x6001600055${i.toString(16).padStart(8, "0")}`) : new Uint8Array(0);
  return { address, nonce: BigInt(i % 7), balance: BigInt(i) * 10n ** 12n + 1n, code, storage };
}

const genesisJson = opDevGenesis({ chainId: 901n, fork: "isthmus", timestamp: 1_700_000_000 });
const base = parseGenesis(genesisJson);
const alloc: AllocAccount[] = [...base.alloc];
for (let i = 0; i < n; i++) alloc.push(generated(i));
const genesis = { ...base, alloc };

const scratch = join(out, "scratch-datadir");
rmSync(scratch, { recursive: true, force: true });
const t0 = Date.now();
const store = await openStore(join(scratch, "chaindata"), "rocksdb");
let header: Header;
try {
  header = Blockchain.init(store.kv, genesis, genesisJson.config).head;
} finally {
  await store.kv.close();
}
rmSync(scratch, { recursive: true, force: true });
console.error(`node wrote the state of ${alloc.length} accounts in ${Date.now() - t0}ms`);

writeFileSync(join(out, "genesis.json"), JSON.stringify({ ...genesisJson, alloc: {} }));
writeFileSync(join(out, "header.rlp"), encodeHeader(header));

const file = join(out, values.gzip ? "state.jsonl.gz" : "state.jsonl");
const sink = createWriteStream(file);
let head: Writable = sink;
if (values.gzip) {
  const gz = createGzip();
  gz.pipe(sink);
  head = gz;
}
async function line(s: string): Promise<void> {
  if (!head.write(`${s}\n`)) await once(head, "drain");
}
await line(JSON.stringify({ root: bytesToHex(header.stateRoot) }));
for (const a of alloc) {
  const storage: Record<string, string> = {};
  let slots = 0;
  for (const [k, v] of a.storage) {
    if (v === 0n) continue;
    storage[dumpWord(k)] = dumpWord(v);
    slots++;
  }
  await line(
    JSON.stringify({
      address: bytesToHex(a.address),
      balance: dumpQuantity(a.balance),
      nonce: dumpQuantity(a.nonce),
      ...(a.code.length > 0 ? { code: bytesToHex(a.code) } : {}),
      ...(slots > 0 ? { storage } : {}),
    }),
  );
}
head.end();
await once(sink, "finish");
console.log(
  JSON.stringify({
    accounts: alloc.length,
    hash: bytesToHex(headerHash(header)),
    root: bytesToHex(header.stateRoot),
    file,
  }),
);
