/**
 * Receipts and headers against ethereum/execution-apis rpc-compat exchanges (tests/*.io + chain.rlp).
 * - chain.rlp: every block decodes and round-trips; block JSON from eth_getBlockBy* / eth_simulateV1
 *   rebuilt as a Header hashes to its `hash` (and to the chain.rlp block of that number).
 * - Receipts from eth_getBlockReceipts (whole blocks) and eth_getTransactionReceipt (blocks with one
 *   tx), rebuilt from JSON (type, status or pre-Byzantium root, cumulativeGasUsed, logs): each
 *   receipt's bloom equals its `logsBloom`, consensus encoding round-trips, and the block's receipts
 *   root (via src/trie/orderedRoot.ts, once it exists) and OR-ed bloom equal the chain.rlp header.
 * - eth_simulateV1 blocks: receipts rebuilt from `calls` (cumulative gas = running gasUsed sum);
 *   logsBloom always, receiptsRoot when the tx types are known (full tx objects or no txs).
 * OP deposit receipts do not occur here; test/unit/block/receipt.test.ts covers them from the spec.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type Block, decodeBlock, encodeBlock } from "../../src/block/block.js";
import { decodeHeader, encodeHeader, type Header, headerHash } from "../../src/block/header.js";
import type { ReceiptLog } from "../../src/block/log.js";
import { blockLogsBloom, logsBloom } from "../../src/block/logsBloom.js";
import { decodeReceipt, encodeReceipt, encodeReceiptsForRoot, type Receipt } from "../../src/block/receipt.js";
import { bytesToHex, hexToBytes } from "../../src/primitives/hex.js";
import { decodeHeader as decodeRlpHeader } from "../../src/rlp/decode.js";
import { Fork, l1Rules } from "../../src/spec/forks.js";
import { orderedTrieRoot } from "../../src/trie/orderedRoot.js";
import { fixturePath, listFiles } from "../utils/fixtures.js";

/** RPC JSON, walked structurally. */
type Json = any;
interface Exchange {
  file: string;
  method: string;
  params: Json[];
  result: Json;
}

const TESTS = fixturePath("execution-apis-rpc", "tests");
const RULES = l1Rules(Fork.Osaka); // non-deposit receipts encode the same under every fork

function readExchanges(): Exchange[] {
  const out: Exchange[] = [];
  for (const file of listFiles(TESTS, ".io")) {
    let req: Json = null;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.startsWith(">>")) req = JSON.parse(line.slice(2));
      else if (line.startsWith("<<") && req !== null) {
        const res = JSON.parse(line.slice(2));
        if (res.error === undefined) out.push({ file, method: req.method, params: req.params, result: res.result });
        req = null;
      }
    }
  }
  return out;
}

function num(s: string): number {
  return Number(BigInt(s));
}

function optional<T>(v: string | undefined, f: (s: string) => T): T | null {
  return v === undefined || v === null ? null : f(v);
}

/** eth_getBlockBy* JSON → Header (the RPC names differ from the RLP ones in a few places). */
function headerFromRpc(j: Json): Header {
  return {
    parentHash: hexToBytes(j.parentHash),
    ommersHash: hexToBytes(j.sha3Uncles),
    coinbase: hexToBytes(j.miner),
    stateRoot: hexToBytes(j.stateRoot),
    transactionsRoot: hexToBytes(j.transactionsRoot),
    receiptsRoot: hexToBytes(j.receiptsRoot),
    logsBloom: hexToBytes(j.logsBloom),
    difficulty: BigInt(j.difficulty),
    number: num(j.number),
    gasLimit: BigInt(j.gasLimit),
    gasUsed: num(j.gasUsed),
    timestamp: num(j.timestamp),
    extraData: hexToBytes(j.extraData),
    mixHash: hexToBytes(j.mixHash),
    nonce: hexToBytes(j.nonce),
    baseFeePerGas: optional(j.baseFeePerGas, BigInt),
    withdrawalsRoot: optional(j.withdrawalsRoot, hexToBytes),
    blobGasUsed: optional(j.blobGasUsed, num),
    excessBlobGas: optional(j.excessBlobGas, num),
    parentBeaconBlockRoot: optional(j.parentBeaconBlockRoot, hexToBytes),
    requestsHash: optional(j.requestsHash, hexToBytes),
  };
}

function logsFromRpc(logs: Json[]): ReceiptLog[] {
  return logs.map((l) => ({
    address: hexToBytes(l.address),
    topics: l.topics.map((t: string) => hexToBytes(t)),
    data: hexToBytes(l.data),
  }));
}

/** eth_getTransactionReceipt JSON → consensus Receipt (bloom recomputed from the logs). */
function receiptFromRpc(j: Json): Receipt {
  const logs = logsFromRpc(j.logs);
  return {
    type: num(j.type ?? "0x0"),
    status: j.status === undefined ? 1 : num(j.status),
    postState: j.root === undefined ? null : hexToBytes(j.root),
    cumulativeGasUsed: num(j.cumulativeGasUsed),
    logsBloom: logsBloom(logs),
    logs,
    depositNonce: optional(j.depositNonce, num),
    depositReceiptVersion: optional(j.depositReceiptVersion, num),
  };
}

function readChain(): Map<number, { block: Block; hash: string }> {
  const bytes = new Uint8Array(readFileSync(join(TESTS, "chain.rlp")));
  const chain = new Map<number, { block: Block; hash: string }>();
  for (let pos = 0; pos < bytes.length; ) {
    const h = decodeRlpHeader(bytes, pos);
    const rlp = bytes.subarray(pos, h.start + h.length);
    const block = decodeBlock(rlp);
    assert.equal(bytesToHex(encodeBlock(block)), bytesToHex(rlp), `chain.rlp block ${block.header.number}`);
    chain.set(block.header.number, { block, hash: bytesToHex(headerHash(block.header)) });
    pos = h.start + h.length;
  }
  return chain;
}

describe("spec: receipts root and logs bloom (execution-apis rpc-compat)", () => {
  const exchanges = readExchanges();
  let chain = new Map<number, { block: Block; hash: string }>();
  const stats = { chainBlocks: 0, rpcHeaders: 0, receipts: 0, rootsChecked: 0, bloomsChecked: 0, simBlocks: 0 };

  before(() => {
    chain = readChain();
    stats.chainBlocks = chain.size;
  });

  after(() => {
    console.log(
      `      execution-apis: ${stats.chainBlocks} chain.rlp blocks, ${stats.rpcHeaders} RPC headers hashed, ` +
        `${stats.receipts} receipts rebuilt, ${stats.bloomsChecked} block blooms and ${stats.rootsChecked} receipts roots checked`,
    );
  });

  /** Checks a block's full receipt list against its header: OR-ed bloom and (if available) root. */
  function checkBlockReceipts(receipts: Receipt[], header: Header, where: string): void {
    assert.equal(
      bytesToHex(blockLogsBloom(receipts.map((r) => r.logsBloom))),
      bytesToHex(header.logsBloom),
      `${where}: block logsBloom`,
    );
    stats.bloomsChecked++;
    {
      const root = orderedTrieRoot(encodeReceiptsForRoot(receipts, RULES));
      assert.equal(bytesToHex(root), bytesToHex(header.receiptsRoot), `${where}: receiptsRoot`);
      stats.rootsChecked++;
    }
  }

  function rebuild(j: Json, where: string): Receipt {
    const r = receiptFromRpc(j);
    assert.equal(bytesToHex(r.logsBloom), j.logsBloom, `${where}: receipt logsBloom`);
    const enc = encodeReceipt(r);
    assert.equal(bytesToHex(encodeReceipt(decodeReceipt(enc))), bytesToHex(enc), `${where}: receipt round trip`);
    stats.receipts++;
    return r;
  }

  it("chain.rlp decodes, and RPC block headers hash to their `hash`", () => {
    assert.ok(chain.size > 0);
    for (const ex of exchanges) {
      if (ex.method !== "eth_getBlockByNumber" && ex.method !== "eth_getBlockByHash") continue;
      if (ex.result === null) continue;
      const h = headerFromRpc(ex.result);
      assert.equal(bytesToHex(headerHash(h)), ex.result.hash, `${ex.file}: header hash`);
      const inChain = chain.get(h.number);
      if (inChain !== undefined) assert.equal(inChain.hash, ex.result.hash, `${ex.file}: chain.rlp hash`);
      stats.rpcHeaders++;
    }
  });

  it("debug_getRawBlock / debug_getRawHeader decode to the chain's blocks", () => {
    let n = 0;
    for (const ex of exchanges) {
      if (ex.method !== "debug_getRawBlock" && ex.method !== "debug_getRawHeader") continue;
      const raw = hexToBytes(ex.result);
      const header = ex.method === "debug_getRawBlock" ? decodeBlock(raw).header : decodeHeader(raw);
      if (ex.method === "debug_getRawHeader") assert.equal(bytesToHex(encodeHeader(header)), ex.result);
      const inChain = chain.get(header.number);
      if (inChain !== undefined) assert.equal(bytesToHex(headerHash(header)), inChain.hash, ex.file);
      n++;
    }
    assert.ok(n > 0, "no raw block/header exchanges found");
  });

  it("eth_getBlockReceipts: receipts root and bloom of whole blocks", () => {
    let blocks = 0;
    for (const ex of exchanges) {
      if (ex.method !== "eth_getBlockReceipts" || !Array.isArray(ex.result) || ex.result.length === 0) continue;
      const number = num(ex.result[0].blockNumber);
      const inChain = chain.get(number);
      assert.ok(inChain, `${ex.file}: block ${number} not in chain.rlp`);
      assert.equal(ex.result[0].blockHash, inChain.hash, `${ex.file}: block hash`);
      assert.equal(ex.result.length, inChain.block.body.transactions.length, `${ex.file}: receipt count`);
      const receipts = ex.result.map((j: Json, i: number) => rebuild(j, `${ex.file}[${i}]`));
      checkBlockReceipts(receipts, inChain.block.header, ex.file);
      blocks++;
    }
    assert.ok(blocks > 0, "no eth_getBlockReceipts results found");
  });

  it("eth_getTransactionReceipt: receipt blooms, and roots of single-tx blocks", () => {
    for (const ex of exchanges) {
      if (ex.method !== "eth_getTransactionReceipt" || ex.result === null) continue;
      const r = rebuild(ex.result, ex.file);
      const inChain = chain.get(num(ex.result.blockNumber));
      assert.ok(inChain, `${ex.file}: block not in chain.rlp`);
      if (inChain.block.body.transactions.length === 1) checkBlockReceipts([r], inChain.block.header, ex.file);
    }
  });

  it("eth_simulateV1: simulated block headers, blooms and receipts roots", () => {
    for (const ex of exchanges) {
      if (ex.method !== "eth_simulateV1" || !Array.isArray(ex.result)) continue;
      // With traceTransfers the calls also list synthetic ETH-transfer logs that no receipt holds.
      const synthetic = ex.params[0]?.traceTransfers === true;
      ex.result.forEach((b: Json, bi: number) => {
        const where = `${ex.file} block ${bi}`;
        const header = headerFromRpc(b);
        assert.equal(bytesToHex(headerHash(header)), b.hash, `${where}: header hash`);
        stats.rpcHeaders++;
        if (synthetic) return;
        let cumulative = 0;
        const typesKnown = b.transactions.every((t: Json) => typeof t === "object");
        const receipts: Receipt[] = b.calls.map((c: Json, i: number) => {
          cumulative += num(c.gasUsed);
          const logs = logsFromRpc(c.logs ?? []);
          return {
            type: typesKnown ? num(b.transactions[i].type) : 0,
            status: num(c.status),
            postState: null,
            cumulativeGasUsed: cumulative,
            logsBloom: logsBloom(logs),
            logs,
            depositNonce: null,
            depositReceiptVersion: null,
          };
        });
        assert.equal(
          bytesToHex(blockLogsBloom(receipts.map((r) => r.logsBloom))),
          bytesToHex(header.logsBloom),
          `${where}: logsBloom`,
        );
        stats.bloomsChecked++;
        if (typesKnown) {
          const root = orderedTrieRoot(encodeReceiptsForRoot(receipts, RULES));
          assert.equal(bytesToHex(root), bytesToHex(header.receiptsRoot), `${where}: receiptsRoot`);
          stats.rootsChecked++;
        }
        stats.simBlocks++;
      });
    }
    assert.ok(stats.simBlocks > 0);
  });
});
