/**
 * Header consensus rules (chain/validateHeader, block/baseFee, block/blobGas) against the fixture
 * chains:
 * - EEST v5.4.0 blockchain_tests and ethereum-tests BlockchainTests. The chain config comes from the
 *   test's `network` (a fork, or a transition such as `ShanghaiToCancunAtTime15k`) and its
 *   `config.blobSchedule` when present. Every valid block's parent is found by hash; its header must
 *   pass `validateHeader`, and its baseFeePerGas and excessBlobGas must equal what baseFee/blobGas
 *   compute from the parent. Blocks with `expectException` are run through `validateHeader` too; the
 *   rejection rate is printed per exception name, and every exception that names a header rule must
 *   be rejected.
 * - The execution-apis rpc-compat chain (chain.rlp on genesis.json): every fork from Frontier to
 *   BPO2, including the London fork block's initial base fee and the merge, under its own config.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { INITIAL_BASE_FEE, nextBaseFeeL1 } from "../../src/block/baseFee.js";
import { calcExcessBlobGas, GAS_PER_BLOB } from "../../src/block/blobGas.js";
import { decodeBlock } from "../../src/block/block.js";
import { BlockError } from "../../src/block/errors.js";
import { EMPTY_OMMERS_HASH, type Header, headerHash } from "../../src/block/header.js";
import { encodeHoloceneExtraData, encodeJovianExtraData } from "../../src/block/opExtraData.js";
import {
  HEADER_INVALID_MESSAGES,
  type HeaderInvalidCode,
  OP_EMPTY_REQUESTS_HASH,
  validateHeader,
} from "../../src/chain/validateHeader.js";
import { fixtureNetworkConfig as configForNetwork } from "../../src/cli/evmTool/networks.js";
import { sha256Pure } from "../../src/crypto/sha256.js";
import { bytesToHex, hexToBytes } from "../../src/primitives/hex.js";
import { decodeHeader as decodeRlpHeader } from "../../src/rlp/decode.js";
import { RlpError } from "../../src/rlp/errors.js";
import { blobParamsAt, type ChainConfig, isLondon, parseChainConfig, rulesAt } from "../../src/spec/chainConfig.js";
import { Fork } from "../../src/spec/forks.js";
import { fixturePath, listFiles, readJson } from "../utils/fixtures.js";

interface JsonBlock {
  rlp: string;
  expectException?: string;
  blockHeader?: Record<string, string>;
}
interface JsonTest {
  network: string;
  genesisRLP: string;
  genesisBlockHeader: Record<string, string>;
  blocks: JsonBlock[];
  config?: { blobSchedule?: Record<string, Record<string, string>> };
}

/** Exceptions that name a rule of the header against its parent; each must be rejected. */
const HEADER_EXCEPTIONS = new Set([
  "BlockException.INVALID_BASEFEE_PER_GAS",
  "BlockException.INVALID_BLOCK_TIMESTAMP_OLDER_THAN_PARENT",
  "BlockException.INVALID_GASLIMIT",
  "BlockException.EXTRA_DATA_TOO_BIG",
  "BlockException.INVALID_BLOCK_NUMBER",
  "BlockException.IMPORT_IMPOSSIBLE_UNCLES_OVER_PARIS",
  "BlockException.UNKNOWN_PARENT",
  "BlockException.UNKNOWN_PARENT_ZERO",
  "BlockException.INCORRECT_EXCESS_BLOB_GAS",
  "BlockException.INCORRECT_BLOCK_FORMAT",
  "BlockException.INVALID_GAS_USED_ABOVE_LIMIT",
  "BlockException.BLOB_GAS_USED_ABOVE_LIMIT",
]);

function isHeaderException(e: string): boolean {
  return e.split("|").some((part) => HEADER_EXCEPTIONS.has(part.trim()));
}

function tryDecode(rlpHex: string): Header | null {
  try {
    return decodeBlock(hexToBytes(rlpHex)).header;
  } catch (e) {
    assert.ok(e instanceof BlockError || e instanceof RlpError, `untyped decode error ${String(e)}`);
    return null;
  }
}

const CORPORA: [string, string][] = [
  ["ethereum-tests", fixturePath("ethereum-tests", "BlockchainTests")],
  ["eest-v5.4.0", fixturePath("eest-v5.4.0", "blockchain_tests")],
];

describe("spec: header rules (BlockchainTests, EEST blockchain_tests, execution-apis chain)", function () {
  this.timeout(300_000);
  const stats = {
    valid: 0,
    baseFeeChecked: 0,
    excessChecked: 0,
    undecodable: 0,
    invalidByException: new Map<string, { total: number; rejected: number; codes: Map<string, number> }>(),
  };
  const started = Date.now();

  after(() => {
    const rows = [...stats.invalidByException]
      .sort((a, b) => a[0].localeCompare(b[0]))
      .map(([name, s]) => {
        const codes = [...s.codes].map(([c, n]) => `${c}×${n}`).join(",");
        return `        ${isHeaderException(name) ? "H" : " "} ${s.rejected}/${s.total} ${name}${codes ? ` [${codes}]` : ""}`;
      });
    console.log(
      `      header rules: ${stats.valid} valid headers pass (baseFee checked on ${stats.baseFeeChecked}, ` +
        `excessBlobGas on ${stats.excessChecked}); ${stats.undecodable} expectException blocks do not decode; ` +
        `${Date.now() - started} ms\n      expectException rejected by validateHeader (H = header rule, must be all):\n` +
        rows.join("\n"),
    );
  });

  for (const [corpus, dir] of CORPORA) {
    describe(corpus, () => {
      for (const file of listFiles(dir)) {
        const rel = relative(dir, file);
        it(rel, () => {
          const tests = readJson<Record<string, JsonTest>>(file);
          for (const [name, t] of Object.entries(tests)) runTest(`${rel} ${name}`, t);
        });
      }
    });
  }

  function runTest(where: string, t: JsonTest): void {
    const cfg = parseChainConfig(configForNetwork(t.network, t.config?.blobSchedule));
    const genesis = tryDecode(t.genesisRLP);
    if (genesis === null) return; // genesis with ints above 2^53-1 (counted by blockDecode.test.ts)
    const known = new Map<string, Header>([[t.genesisBlockHeader.hash!.toLowerCase(), genesis]]);
    let last = genesis;
    let lastHash = t.genesisBlockHeader.hash!.toLowerCase();
    t.blocks.forEach((b, i) => {
      const at = `${where} block ${i}`;
      const header = tryDecode(b.rlp);
      if (b.expectException === undefined) {
        assert.ok(b.blockHeader, `${at}: valid block without blockHeader`);
        if (header === null) return; // ints above 2^53-1: rejected at decode
        const parentHash = bytesToHex(header.parentHash);
        const parent = known.get(parentHash);
        assert.ok(parent, `${at}: parent ${parentHash} unknown`);
        checkValid(header, parent, hexToBytes(parentHash), cfg, at);
        last = header;
        lastHash = b.blockHeader.hash!.toLowerCase();
        known.set(lastHash, header);
        return;
      }
      const name = b.expectException;
      let s = stats.invalidByException.get(name);
      if (s === undefined) {
        s = { total: 0, rejected: 0, codes: new Map() };
        stats.invalidByException.set(name, s);
      }
      if (header === null) {
        stats.undecodable++;
        return;
      }
      s.total++;
      const parent = known.get(bytesToHex(header.parentHash)) ?? last;
      const pHash = known.has(bytesToHex(header.parentHash)) ? header.parentHash : hexToBytes(lastHash);
      const code = validateHeader(header, parent, cfg, pHash);
      if (code !== null) {
        s.rejected++;
        s.codes.set(code, (s.codes.get(code) ?? 0) + 1);
      }
      if (isHeaderException(name)) assert.ok(code !== null, `${at}: ${name} not rejected by validateHeader`);
    });
  }

  function checkValid(header: Header, parent: Header, parentHash: Uint8Array, cfg: ChainConfig, at: string): void {
    const code = validateHeader(header, parent, cfg, parentHash);
    assert.equal(code, null, `${at}: ${code}: ${code === null ? "" : HEADER_INVALID_MESSAGES[code]}`);
    stats.valid++;
    if (header.baseFeePerGas !== null) {
      assert.equal(header.baseFeePerGas, nextBaseFeeL1(parent, isLondon(cfg, parent.number)), `${at}: baseFee`);
      stats.baseFeeChecked++;
    }
    if (header.excessBlobGas !== null) {
      const params = blobParamsAt(cfg, header.timestamp);
      assert.ok(params, `${at}: blob params`);
      const osaka = rulesAt(cfg, header.number, header.timestamp).fork >= Fork.Osaka;
      const withParent = parent.excessBlobGas !== null;
      const expected = calcExcessBlobGas(
        parent.excessBlobGas ?? 0,
        withParent ? (parent.blobGasUsed ?? 0) : 0,
        parent.baseFeePerGas ?? 0n,
        params,
        osaka,
      );
      assert.equal(header.excessBlobGas, expected, `${at}: excessBlobGas`);
      stats.excessChecked++;
    }
  }

  it("execution-apis rpc-compat chain: every block from Frontier to BPO2 under genesis.json's config", () => {
    const { cfg, genesis, blocks } = loadExecutionApisChain();
    let parent = genesis;
    let parentHash = blocks[0]!.parentHash;
    const forksSeen = new Set<Fork>();
    let londonForkBlock = 0;
    for (const h of blocks) {
      checkValid(h, parent, parentHash, cfg, `execution-apis chain block ${h.number}`);
      forksSeen.add(rulesAt(cfg, h.number, h.timestamp).fork);
      if (h.baseFeePerGas !== null && parent.baseFeePerGas === null) {
        londonForkBlock = h.number;
        assert.equal(h.baseFeePerGas, INITIAL_BASE_FEE);
      }
      parentHash = headerHash(h);
      parent = h;
    }
    assert.equal(londonForkBlock, cfg.londonBlock, "the chain crosses the London fork block");
    assert.ok(forksSeen.has(Fork.Osaka) && forksSeen.has(Fork.Homestead), "the chain crosses every fork");
    assert.ok(parent.timestamp >= cfg.bpo2Time!, "the chain reaches BPO2");
    console.log(`      execution-apis chain: ${blocks.length} blocks, ${forksSeen.size} forks, all headers valid`);
  });

  it("execution-apis eth_feeHistory and eth_config answers agree with baseFee and blobParamsAt", () => {
    const { cfg, blocks } = loadExecutionApisChain();
    const io = (path: string): { params: unknown[]; result: Record<string, unknown> } => {
      const lines = readFileSync(fixturePath("execution-apis-rpc", "tests", path), "utf8").split("\n");
      const req = JSON.parse(lines.find((l) => l.startsWith(">> "))!.slice(3)) as { params?: unknown[] };
      const res = JSON.parse(lines.find((l) => l.startsWith("<< "))!.slice(3)) as { result: Record<string, unknown> };
      return { params: req.params ?? [], result: res.result };
    };
    // eth_feeHistory over one block: its base fee and the next block's, computed from it.
    const fh = io("eth_feeHistory/fee-history.io");
    const oldest = Number(fh.result.oldestBlock);
    const fees = (fh.result.baseFeePerGas as string[]).map((x) => BigInt(x));
    const h = blocks.find((b) => b.number === oldest)!;
    assert.equal(h.baseFeePerGas, fees[0]);
    assert.equal(nextBaseFeeL1(h, isLondon(cfg, h.number)), fees[1]);
    // eth_config (EIP-7910) at the head: the blob schedule in force and the chain id.
    const ec = io("eth_config/get-config.io").result.current as Record<string, unknown>;
    const head = blocks[blocks.length - 1]!;
    assert.equal(BigInt(ec.chainId as string), cfg.chainId);
    assert.deepEqual(blobParamsAt(cfg, head.timestamp), ec.blobSchedule);
    assert.equal(cfg.bpo2Time, ec.activationTime);
  });

  it("execution-apis chain, one broken rule at a time: each mutation gets its code", () => {
    const { cfg, blocks } = loadExecutionApisChain();
    let checked = 0;
    const expect = (h: Header, p: Header, code: HeaderInvalidCode | null, what: string): void => {
      assert.equal(
        validateHeader(h, p, cfg),
        code,
        `block ${h.number} (${Fork[rulesAt(cfg, h.number, h.timestamp).fork]}): ${what}`,
      );
      checked++;
    };
    for (let i = 1; i < blocks.length; i++) {
      const p = blocks[i - 1]!;
      const h = blocks[i]!;
      const fork = rulesAt(cfg, h.number, h.timestamp).fork;
      expect(h, p, null, "unchanged");
      expect({ ...h, number: h.number + 1 }, p, "NUMBER", "number + 1");
      expect({ ...h, parentHash: new Uint8Array(32) }, p, "PARENT_HASH", "parentHash zero");
      expect({ ...h, extraData: new Uint8Array(33) }, p, "EXTRA_DATA_TOO_LONG", "33-byte extraData");
      expect({ ...h, extraData: new Uint8Array(32) }, p, null, "32-byte extraData");
      if (rulesAt(cfg, h.number, p.timestamp).fork === fork) {
        expect({ ...h, timestamp: p.timestamp }, p, "TIMESTAMP", "timestamp = parent's");
      }
      const parentLimit = fork >= Fork.London && p.baseFeePerGas === null ? p.gasLimit * 2n : p.gasLimit;
      const bound = parentLimit / 1024n;
      expect({ ...h, gasLimit: parentLimit + bound }, p, "GAS_LIMIT_BOUND", "gasLimit + parent/1024");
      expect({ ...h, gasLimit: parentLimit - bound }, p, "GAS_LIMIT_BOUND", "gasLimit - parent/1024");
      if (BigInt(h.gasUsed) <= parentLimit - bound + 1n) {
        expect({ ...h, gasLimit: parentLimit - bound + 1n }, p, null, "gasLimit - parent/1024 + 1");
      }
      expect({ ...h, gasLimit: parentLimit + bound - 1n }, p, null, "gasLimit + parent/1024 - 1");
      expect({ ...h, gasUsed: Number(h.gasLimit) + 1 }, p, "GAS_USED_EXCEEDS_LIMIT", "gasUsed = gasLimit + 1");
      if (fork >= Fork.London) {
        expect({ ...h, baseFeePerGas: h.baseFeePerGas! + 1n }, p, "BASE_FEE_MISMATCH", "baseFee + 1");
        expect({ ...h, baseFeePerGas: null }, p, "BASE_FEE_MISSING", "baseFee absent");
      } else {
        expect({ ...h, baseFeePerGas: 7n }, p, "BASE_FEE_UNEXPECTED", "baseFee before London");
      }
      if (fork >= Fork.Paris) {
        expect({ ...h, difficulty: 1n }, p, "DIFFICULTY_NOT_ZERO", "difficulty 1");
        expect({ ...h, nonce: Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1) }, p, "NONCE_NOT_ZERO", "nonce 1");
        expect({ ...h, ommersHash: new Uint8Array(32) }, p, "OMMERS_HASH_NOT_EMPTY", "ommersHash zero");
      }
      const root = new Uint8Array(32);
      if (fork >= Fork.Shanghai) expect({ ...h, withdrawalsRoot: null }, p, "WITHDRAWALS_ROOT_MISSING", "no root");
      else expect({ ...h, withdrawalsRoot: root }, p, "WITHDRAWALS_ROOT_UNEXPECTED", "root before Shanghai");
      if (fork >= Fork.Cancun) {
        const params = blobParamsAt(cfg, h.timestamp)!;
        expect({ ...h, excessBlobGas: h.excessBlobGas! + 1 }, p, "EXCESS_BLOB_GAS_MISMATCH", "excess + 1");
        expect({ ...h, blobGasUsed: 1 }, p, "BLOB_GAS_USED_NOT_BLOB_MULTIPLE", "blobGasUsed 1");
        expect({ ...h, blobGasUsed: (params.max + 1) * GAS_PER_BLOB }, p, "BLOB_GAS_USED_ABOVE_MAX", "max + 1 blobs");
        expect({ ...h, excessBlobGas: null }, p, "EXCESS_BLOB_GAS_MISSING", "no excessBlobGas");
        expect({ ...h, blobGasUsed: null }, p, "BLOB_GAS_USED_MISSING", "no blobGasUsed");
        expect({ ...h, parentBeaconBlockRoot: null }, p, "PARENT_BEACON_ROOT_MISSING", "no beacon root");
      } else {
        expect({ ...h, excessBlobGas: 0 }, p, "EXCESS_BLOB_GAS_UNEXPECTED", "excessBlobGas before Cancun");
        expect({ ...h, blobGasUsed: 0 }, p, "BLOB_GAS_USED_UNEXPECTED", "blobGasUsed before Cancun");
        expect({ ...h, parentBeaconBlockRoot: root }, p, "PARENT_BEACON_ROOT_UNEXPECTED", "beacon root before Cancun");
      }
      if (fork >= Fork.Prague) expect({ ...h, requestsHash: null }, p, "REQUESTS_HASH_MISSING", "no requestsHash");
      else expect({ ...h, requestsHash: root }, p, "REQUESTS_HASH_UNEXPECTED", "requestsHash before Prague");
    }
    console.log(`      execution-apis chain mutations: ${checked} cases`);
  });

  it("gas limit bounds across the London fork block: go-ethereum TestBlockGasLimits", () => {
    // geth's test config: every fork before London at 0, London at block 5, no merge.
    const cfg = parseChainConfig({ ...configForNetwork("Berlin", undefined), londonBlock: 5 } as Record<
      string,
      unknown
    >);
    const cases: [number, number, number, boolean][] = [
      [10000000, 4, 20000000, true],
      [10000000, 4, 20019530, true],
      [10000000, 4, 20019531, false],
      [10000000, 4, 19980470, true],
      [10000000, 4, 19980469, false],
      [20000000, 5, 20000000, true],
      [20000000, 5, 20019530, true],
      [20000000, 5, 20019531, false],
      [20000000, 5, 19980470, true],
      [20000000, 5, 19980469, false],
      [40000000, 5, 40039061, true],
      [40000000, 5, 40039062, false],
      [40000000, 5, 39960939, true],
      [40000000, 5, 39960938, false],
    ];
    for (const [pLimit, pNum, limit, ok] of cases) {
      const p = syntheticHeader({
        number: pNum,
        timestamp: 100,
        gasLimit: BigInt(pLimit),
        gasUsed: Math.floor(pLimit / 2),
        baseFeePerGas: pNum >= 5 ? INITIAL_BASE_FEE : null,
        difficulty: 1n,
      });
      const h = syntheticHeader({
        number: pNum + 1,
        timestamp: 101,
        gasLimit: BigInt(limit),
        gasUsed: Math.floor(limit / 2), // Go integer division
        baseFeePerGas: INITIAL_BASE_FEE,
        difficulty: 1n,
        parentHash: headerHash(p),
      });
      assert.equal(validateHeader(h, p, cfg), ok ? null : "GAS_LIMIT_BOUND", `${pLimit}@${pNum} → ${limit}`);
    }
  });

  describe("OP Stack header rules (op-geth eip1559_test.go vectors)", () => {
    // op-geth-style config: every L1 block fork at 0, Bedrock/Regolith at 0; Canyon+Ecotone at 10
    // (Shanghai and Cancun with them), Holocene+Isthmus at 12 (Prague with Isthmus), Jovian at 14.
    const cfg = parseChainConfig({
      ...configForNetwork("Paris", undefined),
      chainId: 10,
      shanghaiTime: 10,
      cancunTime: 10,
      pragueTime: 12,
      bedrockBlock: 0,
      regolithTime: 0,
      canyonTime: 10,
      ecotoneTime: 10,
      holoceneTime: 12,
      isthmusTime: 12,
      jovianTime: 14,
      optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
    });
    const l2 = (o: Partial<Header>): Header =>
      syntheticHeader({
        withdrawalsRoot: new Uint8Array(32),
        blobGasUsed: 0,
        excessBlobGas: 0,
        parentBeaconBlockRoot: new Uint8Array(32),
        requestsHash: OP_EMPTY_REQUESTS_HASH,
        ...o,
      });
    const pair = (p: Partial<Header>, h: Partial<Header>): [Header, Header, ChainConfig] => {
      const parent = l2({ number: 100, ...p });
      return [l2({ number: 101, parentHash: headerHash(parent), ...h }), parent, cfg];
    };

    it("requestsHash constant is sha256 of the empty string", () => {
      assert.equal(bytesToHex(sha256Pure(new Uint8Array(0))), bytesToHex(OP_EMPTY_REQUESTS_HASH));
    });

    it("Holocene/Isthmus: base fee from the parent's extraData (TestCalcBaseFeeOptimismHolocene)", () => {
      const parent = { timestamp: 12, gasLimit: 30_000_000n, gasUsed: 20_000_000, baseFeePerGas: 10_000_000n };
      const extra = encodeHoloceneExtraData(10, 2);
      const child = { timestamp: 13, gasLimit: 30_000_000n, extraData: extra, baseFeePerGas: 10_333_333n };
      const ok = pair({ ...parent, extraData: extra }, child);
      assert.equal(validateHeader(...ok), null);
      assert.equal(
        validateHeader(...pair({ ...parent, extraData: extra }, { ...child, baseFeePerGas: 10_333_334n })),
        "BASE_FEE_MISMATCH",
      );
      // No gas limit bound on OP chains (op-geth skips VerifyGaslimit), and no 5000 floor.
      assert.equal(validateHeader(...pair({ ...parent, extraData: extra }, { ...child, gasLimit: 90_000_000n })), null);
      assert.equal(
        validateHeader(...pair({ ...parent, extraData: extra }, { ...child, gasLimit: 4_000n, gasUsed: 0 })),
        null,
      );
      // extraData must be the Holocene format.
      for (const bad of [new Uint8Array(0), encodeJovianExtraData(10, 2, 0n), Uint8Array.of(0, 0, 0, 0, 10, 0, 0, 0)]) {
        assert.equal(
          validateHeader(...pair({ ...parent, extraData: extra }, { ...child, extraData: bad })),
          "EXTRA_DATA_FORMAT",
        );
      }
      // A parent whose extraData cannot give the parameters.
      assert.equal(
        validateHeader(...pair({ ...parent, extraData: new Uint8Array(0) }, child)),
        "PARENT_BASE_FEE_PARAMS",
      );
      // Blob fields: excess is always 0; blobGasUsed is 0 before Jovian.
      assert.equal(
        validateHeader(...pair({ ...parent, extraData: extra }, { ...child, excessBlobGas: GAS_PER_BLOB })),
        "EXCESS_BLOB_GAS_MISMATCH",
      );
      assert.equal(
        validateHeader(...pair({ ...parent, extraData: extra }, { ...child, blobGasUsed: GAS_PER_BLOB })),
        "OP_BLOB_GAS_USED_NOT_ZERO",
      );
      // Isthmus requestsHash is sha256("").
      assert.equal(
        validateHeader(...pair({ ...parent, extraData: extra }, { ...child, requestsHash: new Uint8Array(32) })),
        "OP_REQUESTS_HASH",
      );
      assert.equal(
        validateHeader(...pair({ ...parent, extraData: extra }, { ...child, requestsHash: null })),
        "REQUESTS_HASH_MISSING",
      );
    });

    it("Canyon before Holocene: config denominators, empty extraData allowed (TestCalcBaseFeeOptimism)", () => {
      const parent = {
        timestamp: 10,
        gasLimit: 30_000_000n,
        gasUsed: 4_000_000,
        baseFeePerGas: 1_000_000_000n,
        requestsHash: null,
      };
      const child = { timestamp: 11, gasLimit: 30_000_000n, baseFeePerGas: 999_200_000n, requestsHash: null };
      assert.equal(validateHeader(...pair(parent, child)), null);
      assert.equal(validateHeader(...pair(parent, { ...child, baseFeePerGas: 996_000_000n })), "BASE_FEE_MISMATCH");
    });

    it("Jovian: minimum base fee and the DA footprint (TestCalcBaseFeeMinBaseFee)", () => {
      const extra = encodeJovianExtraData(50, 3, 1_000_000_000n);
      const parent = { timestamp: 14, gasLimit: 30_000_000n, gasUsed: 10_000_000, baseFeePerGas: 1n, extraData: extra };
      const child = { timestamp: 15, gasLimit: 30_000_000n, baseFeePerGas: 1_000_000_000n, extraData: extra };
      assert.equal(validateHeader(...pair(parent, child)), null);
      // From Jovian blobGasUsed is the DA footprint: any value up to gasLimit, not a blob multiple.
      assert.equal(validateHeader(...pair(parent, { ...child, blobGasUsed: 5_000_001 })), null);
      assert.equal(validateHeader(...pair(parent, { ...child, blobGasUsed: 30_000_000 })), null);
      assert.equal(
        validateHeader(...pair(parent, { ...child, blobGasUsed: 30_000_001 })),
        "OP_DA_FOOTPRINT_ABOVE_GAS_LIMIT",
      );
      assert.equal(
        validateHeader(...pair(parent, { ...child, extraData: encodeHoloceneExtraData(50, 3) })),
        "EXTRA_DATA_FORMAT",
      );
    });

    it("Jovian activation block: base fee from its Holocene-format parent", () => {
      const holo = encodeHoloceneExtraData(10, 2);
      const parent = {
        timestamp: 13,
        gasLimit: 30_000_000n,
        gasUsed: 20_000_000,
        baseFeePerGas: 10_000_000n,
        extraData: holo,
      };
      const child = {
        timestamp: 14,
        gasLimit: 30_000_000n,
        baseFeePerGas: 10_333_333n,
        extraData: encodeJovianExtraData(10, 2, 0n),
      };
      assert.equal(validateHeader(...pair(parent, child)), null);
      assert.equal(validateHeader(...pair(parent, { ...child, extraData: holo })), "EXTRA_DATA_FORMAT");
    });
  });
});

/**
 * The execution-apis rpc-compat chain: genesis.json's config, a genesis header built from its
 * fields (state root not computed, so block 1's parentHash stands for the genesis hash) and the
 * headers of chain.rlp.
 */
function loadExecutionApisChain(): { cfg: ChainConfig; genesis: Header; blocks: Header[] } {
  const g = readJson<Record<string, string> & { config: unknown }>(
    fixturePath("execution-apis-rpc", "tests", "genesis.json"),
  );
  const cfg = parseChainConfig(g.config);
  const rlp = new Uint8Array(readFileSync(fixturePath("execution-apis-rpc", "tests", "chain.rlp")));
  const blocks: Header[] = [];
  for (let pos = 0; pos < rlp.length; ) {
    const h = decodeRlpHeader(rlp, pos);
    const end = h.start + h.length;
    blocks.push(decodeBlock(rlp.subarray(pos, end)).header);
    pos = end;
  }
  const genesis: Header = {
    parentHash: hexToBytes(g.parentHash!),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: hexToBytes(g.coinbase!),
    stateRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    receiptsRoot: new Uint8Array(32),
    logsBloom: new Uint8Array(256),
    difficulty: BigInt(g.difficulty!),
    number: Number(g.number),
    gasLimit: BigInt(g.gasLimit!),
    gasUsed: Number(g.gasUsed),
    timestamp: Number(g.timestamp),
    extraData: hexToBytes(g.extraData!),
    mixHash: hexToBytes(g.mixHash!),
    nonce: new Uint8Array(8),
    baseFeePerGas: null,
    withdrawalsRoot: null,
    blobGasUsed: null,
    excessBlobGas: null,
    parentBeaconBlockRoot: null,
    requestsHash: null,
  };
  return { cfg, genesis, blocks };
}

/** A header with every field set to a neutral value, overridden by `o`. */
function syntheticHeader(o: Partial<Header>): Header {
  return {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: new Uint8Array(20),
    stateRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    receiptsRoot: new Uint8Array(32),
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: 1,
    gasLimit: 30_000_000n,
    gasUsed: 0,
    timestamp: 1,
    extraData: new Uint8Array(0),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: null,
    withdrawalsRoot: null,
    blobGasUsed: null,
    excessBlobGas: null,
    parentBeaconBlockRoot: null,
    requestsHash: null,
    ...o,
  };
}
