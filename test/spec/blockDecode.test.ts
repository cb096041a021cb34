/**
 * Block RLP against ethereum/tests BlockchainTests and EEST v5.4.0 blockchain_tests: every block `rlp`
 * (and every `genesisRLP`) is decoded.
 * - Blocks without `expectException`: decoding succeeds, re-encoding gives the same bytes, the
 *   header hash equals `blockHeader.hash`, every decoded header field equals the fixture's JSON, and
 *   (once src/trie/orderedRoot.ts exists) the transactions and withdrawals roots rebuilt from the
 *   body equal the header's. Headers with a `number` field above 2^53-1 (block number, gasUsed,
 *   timestamp, blob gas) must be rejected with INT_TOO_LARGE instead (code-models §10.3); gasLimit is a
 *   u64 bigint, because valid fixtures use 2^63-1. Rejections are counted and printed.
 * - Blocks with `expectException`: mostly invalid for execution reasons. Decoding must either
 *   succeed (and then round-trip) or throw a typed BlockError/RlpError; rejections are counted by code.
 */
import { strict as assert } from "node:assert";
import { relative } from "node:path";
import { blockHashFromRlp, decodeBlock, encodeBlock } from "../../src/block/block.js";
import { BlockError } from "../../src/block/errors.js";
import { type Header, headerHash } from "../../src/block/header.js";
import { encodeWithdrawal } from "../../src/block/withdrawal.js";
import { bytesToHex, hexToBytes } from "../../src/primitives/hex.js";
import { RlpError } from "../../src/rlp/errors.js";
import { orderedTrieRoot } from "../../src/trie/orderedRoot.js";
import { fixturePath, listFiles, readJson } from "../utils/fixtures.js";

type JsonHeader = Record<string, string>;
interface JsonWithdrawal {
  index: string;
  validatorIndex: string;
  address: string;
  amount: string;
}
interface JsonBlock {
  rlp: string;
  expectException?: string;
  blockHeader?: JsonHeader;
  transactions?: unknown[];
  uncleHeaders?: unknown[];
  withdrawals?: JsonWithdrawal[];
}
interface JsonTest {
  genesisRLP?: string;
  genesisBlockHeader?: JsonHeader;
  blocks: JsonBlock[];
}

/** Fixture JSON key → Header field. */
const FIELD_MAP: [string, keyof Header][] = [
  ["parentHash", "parentHash"],
  ["uncleHash", "ommersHash"],
  ["coinbase", "coinbase"],
  ["stateRoot", "stateRoot"],
  ["transactionsTrie", "transactionsRoot"],
  ["receiptTrie", "receiptsRoot"],
  ["bloom", "logsBloom"],
  ["difficulty", "difficulty"],
  ["number", "number"],
  ["gasLimit", "gasLimit"],
  ["gasUsed", "gasUsed"],
  ["timestamp", "timestamp"],
  ["extraData", "extraData"],
  ["mixHash", "mixHash"],
  ["nonce", "nonce"],
  ["baseFeePerGas", "baseFeePerGas"],
  ["withdrawalsRoot", "withdrawalsRoot"],
  ["blobGasUsed", "blobGasUsed"],
  ["excessBlobGas", "excessBlobGas"],
  ["parentBeaconBlockRoot", "parentBeaconBlockRoot"],
  ["requestsHash", "requestsHash"],
];
const NUMBER_FIELDS = ["number", "gasUsed", "timestamp", "blobGasUsed", "excessBlobGas"];

function headerHasHugeInt(h: JsonHeader): boolean {
  return NUMBER_FIELDS.some((k) => h[k] !== undefined && BigInt(h[k]) > BigInt(Number.MAX_SAFE_INTEGER));
}

function checkHeaderFields(h: Header, j: JsonHeader, where: string): void {
  for (const [key, field] of FIELD_MAP) {
    const v = h[field];
    if (j[key] === undefined) {
      assert.equal(v, null, `${where}: ${key} absent in fixture but decoded`);
      continue;
    }
    if (v instanceof Uint8Array) assert.equal(bytesToHex(v), j[key].toLowerCase(), `${where}: ${key}`);
    else assert.equal(BigInt(v as number | bigint), BigInt(j[key]), `${where}: ${key}`);
  }
}

function typedCode(e: unknown, where: string): string {
  assert.ok(e instanceof BlockError || e instanceof RlpError, `${where}: untyped error ${String(e)}`);
  return `${e.name}:${e.code}`;
}

const CORPORA: [string, string][] = [
  ["ethereum-tests", fixturePath("ethereum-tests", "BlockchainTests")],
  ["eest-v5.4.0", fixturePath("eest-v5.4.0", "blockchain_tests")],
];

describe("spec: block RLP (BlockchainTests, EEST blockchain_tests)", function () {
  this.timeout(300_000);
  const stats = {
    valid: 0,
    genesis: 0,
    hugeIntRejected: 0,
    rootsChecked: 0,
    invalidDecoded: 0,
    invalidRejected: 0,
    rejectCodes: new Map<string, number>(),
  };
  const started = Date.now();

  after(() => {
    const codes = [...stats.rejectCodes].map(([c, n]) => `${c}×${n}`).join(", ");
    console.log(
      `      blocks: ${stats.valid} valid + ${stats.genesis} genesis decoded, round-tripped and hashed ` +
        `(tx/withdrawal roots checked on ${stats.rootsChecked}); ${stats.hugeIntRejected} valid (incl. genesis) ` +
        `rejected for ints > 2^53-1; ` +
        `expectException: ${stats.invalidDecoded} decode fine, ${stats.invalidRejected} rejected at decode [${codes}]; ` +
        `${Date.now() - started} ms`,
    );
  });

  /** Checks a block that must decode; returns false when it is skipped as rejected for a huge integer. */
  function checkValid(rlpHex: string, jh: JsonHeader, jb: JsonBlock | null, where: string): boolean {
    const rlp = hexToBytes(rlpHex);
    if (headerHasHugeInt(jh)) {
      assert.throws(
        () => decodeBlock(rlp),
        (e: unknown) => e instanceof BlockError && e.code === "INT_TOO_LARGE",
        `${where}: expected INT_TOO_LARGE`,
      );
      stats.hugeIntRejected++;
      return false;
    }
    const block = decodeBlock(rlp);
    assert.equal(bytesToHex(encodeBlock(block)), rlpHex.toLowerCase(), `${where}: re-encoding differs`);
    assert.equal(bytesToHex(headerHash(block.header)), jh.hash.toLowerCase(), `${where}: header hash`);
    assert.equal(bytesToHex(blockHashFromRlp(rlp)), jh.hash.toLowerCase(), `${where}: hash from RLP`);
    checkHeaderFields(block.header, jh, where);
    if (jb !== null) {
      if (jb.transactions) assert.equal(block.body.transactions.length, jb.transactions.length, `${where}: tx count`);
      if (jb.uncleHeaders) assert.equal(block.body.ommers.length, jb.uncleHeaders.length, `${where}: ommer count`);
      if (jb.withdrawals) {
        assert.ok(block.body.withdrawals !== null, `${where}: withdrawals missing`);
        assert.deepEqual(
          block.body.withdrawals.map((w) => [w.index, w.validatorIndex, bytesToHex(w.address), w.amount]),
          jb.withdrawals.map((w) => [
            BigInt(w.index),
            BigInt(w.validatorIndex),
            w.address.toLowerCase(),
            BigInt(w.amount),
          ]),
          `${where}: withdrawals`,
        );
      }
    }
    {
      const txRoot = orderedTrieRoot(block.body.transactions);
      assert.equal(bytesToHex(txRoot), bytesToHex(block.header.transactionsRoot), `${where}: transactionsRoot`);
      if (block.body.withdrawals !== null && block.header.withdrawalsRoot !== null) {
        const wRoot = orderedTrieRoot(block.body.withdrawals.map(encodeWithdrawal));
        assert.equal(bytesToHex(wRoot), bytesToHex(block.header.withdrawalsRoot), `${where}: withdrawalsRoot`);
      }
      stats.rootsChecked++;
    }
    return true;
  }

  function checkInvalid(rlpHex: string, where: string): void {
    const rlp = hexToBytes(rlpHex);
    let block: ReturnType<typeof decodeBlock>;
    try {
      block = decodeBlock(rlp);
    } catch (e) {
      const c = typedCode(e, where);
      stats.rejectCodes.set(c, (stats.rejectCodes.get(c) ?? 0) + 1);
      stats.invalidRejected++;
      return;
    }
    // Decoding is canonical-only, so whatever decodes must re-encode to the same bytes.
    assert.equal(bytesToHex(encodeBlock(block)), rlpHex.toLowerCase(), `${where}: re-encoding differs`);
    stats.invalidDecoded++;
  }

  for (const [corpus, dir] of CORPORA) {
    describe(corpus, () => {
      for (const file of listFiles(dir)) {
        const rel = relative(dir, file);
        it(rel, () => {
          const tests = readJson<Record<string, JsonTest>>(file);
          for (const [name, t] of Object.entries(tests)) {
            if (t.genesisRLP !== undefined && t.genesisBlockHeader !== undefined) {
              if (checkValid(t.genesisRLP, t.genesisBlockHeader, null, `${rel} ${name} genesis`)) stats.genesis++;
            }
            t.blocks.forEach((b, i) => {
              const where = `${rel} ${name} block ${i}`;
              if (b.expectException !== undefined) checkInvalid(b.rlp, where);
              else {
                assert.ok(b.blockHeader, `${where}: valid block without blockHeader`);
                if (checkValid(b.rlp, b.blockHeader, b, where)) stats.valid++;
              }
            });
          }
        });
      }
    });
  }
});
