/**
 * Dev genesis documents: the anvil/hardhat dev keys, the Prague system contract code (pinned code
 * hashes, and equal to the EEST v5.4.0 Prague fixtures' `pre`: a missing corpus fails), the
 * L1 dev chain's config and a block built on it, and the OP dev genesis.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { decodeHoloceneExtraData } from "../../../../src/block/opExtraData.js";
import { Blockchain } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import {
  DEV_CHAIN_ID,
  devAccounts,
  formatDevAccounts,
  l1DevGenesis,
  OP_DEV_PREDEPLOYS,
  opDevGenesis,
  SYSTEM_CONTRACTS,
} from "../../../../src/node/exec/devGenesis.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { rulesAt } from "../../../../src/spec/chainConfig.js";
import { Fork, OpFork } from "../../../../src/spec/forks.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { fixturePath, requireFixture } from "../../../utils/fixtures.js";

const CODE_HASHES: Record<string, string> = {
  "0x000f3df6d732807ef1319fb7b8bb8522d0beac02": "0xf57acd40259872606d76197ef052f3d35588dadf919ee1f0e3cb9b62d3f4b02c",
  "0x0000f90827f1c53a10cb7a02335b175320002935": "0x6e49e66782037c0555897870e29fa5e552daf4719552131a0abce779daec0a5d",
  "0x00000961ef480eb55e80d19ad83579a64c007002": "0x0345a365d2f4c5975b9f1599abe0a2ee76b7a3a731bc68781bd04c84e4858f50",
  "0x0000bbddc7ce488642fb579f8b00f3a590007251": "0x78c6cb5202685228bbcbfb992b1c4e116c7ec5ef11e25b8e92716cfc628ddd60",
};

describe("node/devGenesis", () => {
  it("dev accounts are anvil's and hardhat's (test mnemonic, m/44'/60'/0'/0/i)", () => {
    const [a, b] = devAccounts(2);
    assert.equal(bytesToHex(a!.address), "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
    assert.equal(bytesToHex(a!.privateKey), "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80");
    assert.equal(bytesToHex(b!.address), "0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
    assert.equal(bytesToHex(b!.privateKey), "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d");
    const text = formatDevAccounts([a!]);
    assert.match(text, /\(0\) 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266 \(10000 ETH\)/);
  });

  it("system contract code: pinned hashes, equal to the EEST Prague fixtures' pre", () => {
    for (const c of SYSTEM_CONTRACTS) assert.equal(bytesToHex(keccak256(hexToBytes(c.code))), CODE_HASHES[c.address]);
    const file = requireFixture(
      fixturePath("eest-v5.4.0", "blockchain_tests", "prague", "eip7623_increase_calldata_cost", "test_eip_7623.json"),
    );
    const tests = JSON.parse(readFileSync(file, "utf8")) as Record<
      string,
      { network: string; pre: Record<string, { code: string }> }
    >;
    const t = Object.values(tests).find((x) => x.network === "Prague")!;
    const pre = new Map(Object.entries(t.pre).map(([k, v]) => [k.toLowerCase(), v.code.toLowerCase()]));
    for (const c of SYSTEM_CONTRACTS) assert.equal(pre.get(c.address), c.code, c.name);
  });

  it("the --dev L1 genesis: chain 1337, Osaka at 0, system contracts, and blocks build on it", () => {
    const g = l1DevGenesis(11_500_000n);
    const genesis = parseGenesis(g);
    assert.equal(genesis.config.chainId, DEV_CHAIN_ID);
    // geth v1.16.7 AllDevChainProtocolChanges: OsakaTime 0, Osaka blobs as Prague's (6/9/5007716).
    assert.equal(rulesAt(genesis.config, 0, 0).fork, Fork.Osaka);
    assert.deepEqual((g.config as { blobSchedule: unknown }).blobSchedule, {
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
      osaka: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    });
    // geth's dev genesis gives 0x01–0x11 and P256VERIFY (0x100) 1 wei each.
    const funded = genesis.alloc.filter((a) => a.balance === 1n).map((a) => Number(BigInt(bytesToHex(a.address))));
    assert.deepEqual(
      funded.sort((x, y) => x - y),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 256],
    );
    // A Prague dev chain on request, and an Osaka transition at a given time.
    const prague = parseGenesis(l1DevGenesis(11_500_000n, undefined, { osakaTime: null }));
    assert.equal(rulesAt(prague.config, 0, 10 ** 9).fork, Fork.Prague);
    const later = parseGenesis(l1DevGenesis(11_500_000n, undefined, { osakaTime: 100 }));
    assert.equal(rulesAt(later.config, 1, 99).fork, Fork.Prague);
    assert.equal(rulesAt(later.config, 1, 100).fork, Fork.Osaka);
    assert.equal(bytesToHex(genesis.config.depositContractAddress!), "0x00000000219ab540356cbb839cbe05303d7705fa");
    assert.equal(genesis.gasLimit, 11_500_000n);
    const alloc = new Map(genesis.alloc.map((a) => [bytesToHex(a.address), a]));
    for (const c of SYSTEM_CONTRACTS) assert.equal(alloc.get(c.address)?.nonce, 1n);
    assert.equal(alloc.get("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266")?.balance, 10n ** 22n);
    const chain = Blockchain.init(new MemoryKv(), genesis, g.config);
    // Deterministic: every --dev datadir starts from the same genesis.
    const again = Blockchain.init(new MemoryKv(), parseGenesis(l1DevGenesis(11_500_000n)), g.config);
    assert.equal(bytesToHex(again.headBlockHash), bytesToHex(chain.headBlockHash));
    const b = chain.buildBlock({
      parentHash: chain.headBlockHash,
      timestamp: 1,
      feeRecipient: new Uint8Array(20),
      prevRandao: new Uint8Array(32),
      gasLimit: chain.head.gasLimit,
      extraData: new Uint8Array(0),
      withdrawals: [],
      parentBeaconBlockRoot: new Uint8Array(32),
      forced: [],
      pool: null,
    });
    assert.ok(!("error" in b), "error" in b ? b.error : "");
  });

  it("the OP dev genesis: OP forks through Isthmus at 0, predeploy accounts, Holocene extraData", () => {
    const g = opDevGenesis({ chainId: 901n, timestamp: 1000 });
    const genesis = parseGenesis(g);
    assert.equal(genesis.config.chainId, 901n);
    assert.equal(rulesAt(genesis.config, 0, 1000).op, OpFork.Isthmus);
    assert.equal(genesis.timestamp, 1000);
    assert.deepEqual(decodeHoloceneExtraData(genesis.extraData), { denominator: 250, elasticity: 6, minBaseFee: null });
    const alloc = new Set(genesis.alloc.map((a) => bytesToHex(a.address)));
    for (const a of Object.values(OP_DEV_PREDEPLOYS)) assert.ok(alloc.has(a), a);
    Blockchain.init(new MemoryKv(), genesis, g.config);
  });
});
