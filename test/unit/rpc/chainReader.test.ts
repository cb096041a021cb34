/**
 * ChainReader's JSON against the execution-apis rpc-compat exchanges for the read-only block, tx
 * and receipt methods (the full RPC runner replays every method through the server; this checks
 * the shapes without it).
 */
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { hexToBytes } from "../../../src/primitives/hex.js";
import { decodeHeader } from "../../../src/rlp/decode.js";
import { ChainReader } from "../../../src/rpc/eth/chainReader.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { fixturePath } from "../../utils/fixtures.js";

const DIR = fixturePath("execution-apis-rpc", "tests");

function load(): ChainReader {
  const json = JSON.parse(readFileSync(join(DIR, "genesis.json"), "utf8"));
  const chain = Blockchain.init(new MemoryKv(), parseGenesis(json), json.config);
  const all = new Uint8Array(readFileSync(join(DIR, "chain.rlp")));
  for (let pos = 0; pos < all.length; ) {
    const h = decodeHeader(all, pos);
    chain.insertBlock(all.subarray(pos, h.start + h.length));
    pos = h.start + h.length;
  }
  const fcu = JSON.parse(readFileSync(join(DIR, "headfcu.json"), "utf8"));
  const f = fcu.params[0];
  chain.setHead(hexToBytes(f.headBlockHash));
  chain.setSafeAndFinalized(hexToBytes(f.safeBlockHash), hexToBytes(f.finalizedBlockHash));
  return new ChainReader(chain);
}

interface Exchange {
  file: string;
  method: string;
  params: unknown[];
  result: unknown;
  hasError: boolean;
}

function exchanges(method: string): Exchange[] {
  const out: Exchange[] = [];
  for (const f of readdirSync(join(DIR, method)).sort()) {
    const text = readFileSync(join(DIR, method, f), "utf8");
    if (text.includes("speconly")) continue;
    const req = text.split("\n").find((l) => l.startsWith(">> "));
    const res = text.split("\n").find((l) => l.startsWith("<< "));
    if (req === undefined || res === undefined) continue;
    const q = JSON.parse(req.slice(3));
    const r = JSON.parse(res.slice(3));
    out.push({ file: f, method, params: q.params, result: r.result, hasError: r.error !== undefined });
  }
  return out;
}

describe("rpc/eth/chainReader vs rpc-compat", function () {
  this.timeout(60_000);
  let reader: ChainReader;
  before(() => {
    reader = load();
  });

  const sel = (p: unknown) => {
    if (typeof p !== "string") throw new Error("selector");
    if (p.startsWith("0x") && p.length === 66)
      return { kind: "hash" as const, hash: hexToBytes(p), requireCanonical: false };
    if (p.startsWith("0x")) return { kind: "number" as const, number: Number(p) };
    return { kind: "tag" as const, tag: p as "latest" };
  };

  for (const [method, run] of [
    [
      "eth_getBlockByNumber",
      (p: unknown[]) => {
        const h = reader.resolve(sel(p[0]));
        return h === null ? null : reader.blockJson(h, p[1] === true);
      },
    ],
    [
      "eth_getBlockByHash",
      (p: unknown[]) => {
        const h = reader.resolve(sel(p[0]));
        return h === null ? null : reader.blockJson(h, p[1] === true);
      },
    ],
    ["eth_getTransactionByHash", (p: unknown[]) => reader.txByHash(hexToBytes(p[0] as string))],
    ["eth_getTransactionReceipt", (p: unknown[]) => reader.receiptByTxHash(hexToBytes(p[0] as string))],
    [
      "eth_getBlockReceipts",
      (p: unknown[]) => {
        const h = reader.resolve(sel(p[0]));
        const b = h === null ? null : reader.block(h);
        return b === null ? null : reader.receiptsJson(b);
      },
    ],
  ] as const) {
    for (const x of exchanges(method)) {
      if (x.hasError) continue;
      it(`${method}/${x.file}`, () => {
        assert.deepEqual(run(x.params), x.result);
      });
    }
  }
});
