/**
 * Genesis blocks reproduce their published hashes: the five superchain-registry genesis files
 * (config built from each chain's TOML, as op-geth's LoadOPStackChainConfig does) against the TOML's
 * `genesis.l2.hash`, and the execution-apis rpc-compat genesis against the parentHash of block 1 in
 * its chain.rlp.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { gunzipSync } from "node:zlib";
import { decodeBlock } from "../../../src/block/block.js";
import { headerHash } from "../../../src/block/header.js";
import { GenesisError, genesisBlockOf, parseGenesis } from "../../../src/chain/genesis.js";
import { bytesToHex } from "../../../src/primitives/hex.js";
import { decodeHeader } from "../../../src/rlp/decode.js";
import { parseChainConfig } from "../../../src/spec/chainConfig.js";
import { fixturePath, listFiles } from "../../utils/fixtures.js";
import { opGethConfig, readToml } from "../../utils/superchain.js";

const REGISTRY = fixturePath("op-stack", "superchain-registry");
const GENESIS_TOML: Record<string, string> = {
  "op-sepolia": "sepolia/op.toml",
  "base-mainnet": "mainnet/base.toml",
  "base-sepolia": "sepolia/base.toml",
  "unichain-mainnet": "mainnet/unichain.toml",
  "ink-mainnet": "mainnet/ink.toml",
};

describe("chain/genesis", function () {
  this.timeout(120_000);
  for (const file of listFiles(join(REGISTRY, "genesis"), ".gz")) {
    const key = basename(file).replace(".genesis.json.gz", "");
    it(`${key}: block 0 hashes to the registry's genesis.l2.hash`, () => {
      const t = readToml(join(REGISTRY, "configs", GENESIS_TOML[key] as string));
      const json = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8"));
      const g = parseGenesis(json, parseChainConfig(opGethConfig(t)));
      const { header } = genesisBlockOf(g);
      assert.equal(bytesToHex(headerHash(header)), t.get("genesis.l2.hash"));
    });
  }

  it("execution-apis rpc-compat genesis is the parent of block 1 of chain.rlp", () => {
    const dir = fixturePath("execution-apis-rpc", "tests");
    const g = parseGenesis(JSON.parse(readFileSync(join(dir, "genesis.json"), "utf8")));
    const chain = readFileSync(join(dir, "chain.rlp"));
    const h = decodeHeader(new Uint8Array(chain), 0);
    const first = { end: h.start + h.length };
    const block1 = decodeBlock(new Uint8Array(chain.subarray(0, first.end)));
    assert.equal(block1.header.number, 1);
    assert.equal(bytesToHex(headerHash(genesisBlockOf(g).header)), bytesToHex(block1.header.parentHash));
  });

  it("rejects malformed genesis files with a one-line message naming the field", () => {
    assert.throws(() => parseGenesis([]), GenesisError);
    assert.throws(() => parseGenesis({ alloc: {} }), /genesis\.config: missing/);
    assert.throws(() => parseGenesis({ config: { chainId: 1 }, gasLimit: "zz" }), /genesis\.gasLimit/);
    assert.throws(() => parseGenesis({ config: { chainId: 1 }, alloc: { nothex: {} } }), /bad address/);
  });
});
