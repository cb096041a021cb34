/**
 * spec/forkId against published fork ids: go-ethereum core/forkid/forkid_test.go `TestCreation`
 * (mainnet through BPO2, Sepolia), EIP-6122's timestamp example and test suite, and op-reth's
 * chainspec tests `op_mainnet_forkids` / `op_sepolia_forkids` (rust/op-reth/crates/chainspec/src/lib.rs
 * in mantle-v2 c19ebc83) for OP chains built from the superchain-registry TOMLs.
 */
import { strict as assert } from "node:assert";
import { join } from "node:path";
import { crc32 } from "../../../src/primitives/crc32.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { type ChainConfig, parseChainConfig } from "../../../src/spec/chainConfig.js";
import {
  type ForkPoints,
  forkId,
  forkIdAt,
  forkIdGenesisHash,
  forkPoints,
  OP_MAINNET_LEGACY_GENESIS_HASH,
  scheduledForkTimes,
} from "../../../src/spec/forkId.js";
import { fixturePath } from "../../utils/fixtures.js";
import { opGethConfig, readToml } from "../../utils/superchain.js";

/** [head number, head time, FORK_HASH, FORK_NEXT] */
type Vector = [number, number, number, number];

function check(genesisHash: Uint8Array, points: ForkPoints, vectors: Vector[]): void {
  for (const [number, time, hash, next] of vectors) {
    const id = forkIdAt(genesisHash, points, number, time);
    assert.deepEqual(
      { hash: bytesToHex(id.hash), next: id.next },
      { hash: `0x${hash.toString(16).padStart(8, "0")}`, next },
      `head ${number} @ ${time}`,
    );
  }
}

// go-ethereum params/config.go MainnetChainConfig (DAOForkBlock 1_920_000 has no ChainConfig field).
const MAINNET = {
  chainId: 1,
  homesteadBlock: 1_150_000,
  eip150Block: 2_463_000,
  eip155Block: 2_675_000,
  eip158Block: 2_675_000,
  byzantiumBlock: 4_370_000,
  constantinopleBlock: 7_280_000,
  petersburgBlock: 7_280_000,
  istanbulBlock: 9_069_000,
  muirGlacierBlock: 9_200_000,
  berlinBlock: 12_244_000,
  londonBlock: 12_965_000,
  arrowGlacierBlock: 13_773_000,
  grayGlacierBlock: 15_050_000,
  terminalTotalDifficulty: "58750000000000000000000",
  shanghaiTime: 1681338455,
  cancunTime: 1710338135,
  pragueTime: 1746612311,
  osakaTime: 1764798551,
  bpo1Time: 1765290071,
  bpo2Time: 1767747671,
  depositContractAddress: "0x00000000219ab540356cbb839cbe05303d7705fa",
  blobSchedule: {
    bpo1: { target: 10, max: 15, baseFeeUpdateFraction: 8346193 },
    bpo2: { target: 14, max: 21, baseFeeUpdateFraction: 11684671 },
  },
};
const MAINNET_GENESIS = hexToBytes("0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3");

/** Adds geth's DAOForkBlock, which spec/chainConfig.ts does not parse, to mainnet's points. */
function withDao(p: ForkPoints): ForkPoints {
  return { blocks: [...p.blocks, 1_920_000].sort((a, b) => a - b), times: p.times };
}

describe("spec/forkId", () => {
  it("CRC-32 is IEEE's (check value of '123456789')", () => {
    // The CRC-32/ISO-HDLC catalogue check value, which Go's crc32.ChecksumIEEE gives.
    assert.equal(crc32(new TextEncoder().encode("123456789")), 0xcbf43926);
    assert.equal(crc32(new TextEncoder().encode("56789"), crc32(new TextEncoder().encode("1234"))), 0xcbf43926);
  });

  it("mainnet: geth TestCreation, Frontier through BPO2", () => {
    const cfg = parseChainConfig(MAINNET);
    const points = forkPoints(cfg, 0);
    // EIP-2124's list of mainnet fork blocks without DAO: one point per block, the duplicates
    // (EIP-155/158, Constantinople/Petersburg) once.
    assert.deepEqual(
      points.blocks,
      [1150000, 2463000, 2675000, 4370000, 7280000, 9069000, 9200000, 12244000, 12965000, 13773000, 15050000],
    );
    assert.deepEqual(points.times, [1681338455, 1710338135, 1746612311, 1764798551, 1765290071, 1767747671]);
    check(MAINNET_GENESIS, withDao(points), [
      [0, 0, 0xfc64ec04, 1150000],
      [1149999, 0, 0xfc64ec04, 1150000],
      [1150000, 0, 0x97c2c34c, 1920000],
      [1919999, 0, 0x97c2c34c, 1920000],
      [1920000, 0, 0x91d1f948, 2463000],
      [2462999, 0, 0x91d1f948, 2463000],
      [2463000, 0, 0x7a64da13, 2675000],
      [2674999, 0, 0x7a64da13, 2675000],
      [2675000, 0, 0x3edd5b10, 4370000],
      [4369999, 0, 0x3edd5b10, 4370000],
      [4370000, 0, 0xa00bc324, 7280000],
      [7279999, 0, 0xa00bc324, 7280000],
      [7280000, 0, 0x668db0af, 9069000],
      [9068999, 0, 0x668db0af, 9069000],
      [9069000, 0, 0x879d6e30, 9200000],
      [9199999, 0, 0x879d6e30, 9200000],
      [9200000, 0, 0xe029e991, 12244000],
      [12243999, 0, 0xe029e991, 12244000],
      [12244000, 0, 0x0eb440f6, 12965000],
      [12964999, 0, 0x0eb440f6, 12965000],
      [12965000, 0, 0xb715077d, 13773000],
      [13772999, 0, 0xb715077d, 13773000],
      [13773000, 0, 0x20c327fc, 15050000],
      [15049999, 0, 0x20c327fc, 15050000],
      [15050000, 0, 0xf0afd0e3, 1681338455],
      [20000000, 1681338454, 0xf0afd0e3, 1681338455],
      [20000000, 1681338455, 0xdce96c2d, 1710338135],
      [30000000, 1710338134, 0xdce96c2d, 1710338135],
      [30000000, 1710338135, 0x9f3d2254, 1746612311],
      [30000000, 1746022486, 0x9f3d2254, 1746612311],
      [30000000, 1746612311, 0xc376cf8b, 1764798551],
      [30000000, 1764798550, 0xc376cf8b, 1764798551],
      [30000000, 1764798551, 0x5167e2a6, 1765290071],
      [30000000, 1765290070, 0x5167e2a6, 1765290071],
      [30000000, 1765290071, 0xcba2a1c0, 1767747671],
      [30000000, 1767747670, 0xcba2a1c0, 1767747671],
      [30000000, 1767747671, 0x07c9462e, 0],
      [50000000, 2000000000, 0x07c9462e, 0],
    ]);
  });

  it("EIP-6122: a time fork on top of Homestead, and the withdrawals test suite", () => {
    // "forkhash₁ = 0xcb37b2ee = CRC32(<genesis-hash> || uint64(1150000) || uint64(1668000000))"
    check(MAINNET_GENESIS, { blocks: [1150000], times: [1668000000] }, [[1150000, 1668000000, 0xcb37b2ee, 0]]);
    // Mainnet with the merge netsplit block at 18000000 and Shanghai at 1668000000.
    const cfg = parseChainConfig({
      ...MAINNET,
      mergeNetsplitBlock: 18_000_000,
      shanghaiTime: 1668000000,
      cancunTime: undefined,
      pragueTime: undefined,
      osakaTime: undefined,
      bpo1Time: undefined,
      bpo2Time: undefined,
      blobSchedule: undefined,
    });
    check(MAINNET_GENESIS, withDao(forkPoints(cfg, 0)), [
      [0, 0, 0xfc64ec04, 1150000],
      [1920000, 0, 0x91d1f948, 2463000],
      [13773000, 0, 0x20c327fc, 15050000],
      [15049999, 0, 0x20c327fc, 15050000],
      [15050000, 0, 0xf0afd0e3, 18000000],
      [18000000, 0, 0x4fb8a872, 1668000000],
      [20000000, 0, 0x4fb8a872, 1668000000],
      [20000000, 1668000000, 0xc1fdf181, 0],
      [20000000, 2668000000, 0xc1fdf181, 0],
    ]);
  });

  it("Sepolia: geth TestCreation (merge netsplit block, then time forks)", () => {
    // go-ethereum params/config.go SepoliaChainConfig; genesis time 1633267481 (core DefaultSepoliaGenesisBlock).
    const cfg = parseChainConfig({
      chainId: 11155111,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      muirGlacierBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      terminalTotalDifficulty: "17000000000000000",
      mergeNetsplitBlock: 1735371,
      shanghaiTime: 1677557088,
      cancunTime: 1706655072,
      pragueTime: 1741159776,
      osakaTime: 1760427360,
      bpo1Time: 1761017184,
      bpo2Time: 1761607008,
      blobSchedule: MAINNET.blobSchedule,
    });
    const genesis = hexToBytes("0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9");
    check(genesis, forkPoints(cfg, 1633267481), [
      [0, 0, 0xfe3366e7, 1735371],
      [1735370, 0, 0xfe3366e7, 1735371],
      [1735371, 0, 0xb96cbd13, 1677557088],
      [1735372, 1677557087, 0xb96cbd13, 1677557088],
      [1735372, 1677557088, 0xf7f9bc08, 1706655072],
      [1735372, 1706655071, 0xf7f9bc08, 1706655072],
      [1735372, 1706655072, 0x88cf81d9, 1741159776],
      [1735372, 1741159775, 0x88cf81d9, 1741159776],
      [1735372, 1741159776, 0xed88b5fd, 1760427360],
      [1735372, 1760427359, 0xed88b5fd, 1760427360],
      [1735372, 1760427360, 0xe2ae4999, 1761017184],
      [1735372, 1761017183, 0xe2ae4999, 1761017184],
      [1735372, 1761017184, 0x56078a1e, 1761607008],
      [1735372, 1761607007, 0x56078a1e, 1761607008],
      [1735372, 1761607008, 0x268956b6, 0],
      [1735372, 2000000000, 0x268956b6, 0],
    ]);
  });

  it("time forks at or before genesis are genesis rules (geth TestTimeBasedForkInGenesis)", () => {
    const time = 1690475657;
    const genesis = hexToBytes(`0x${"ab".repeat(32)}`);
    const cfg = (shanghai: number, cancun: number): ChainConfig =>
      parseChainConfig({
        chainId: 1337,
        homesteadBlock: 0,
        eip150Block: 0,
        eip155Block: 0,
        eip158Block: 0,
        byzantiumBlock: 0,
        constantinopleBlock: 0,
        petersburgBlock: 0,
        istanbulBlock: 0,
        muirGlacierBlock: 0,
        berlinBlock: 0,
        londonBlock: 0,
        terminalTotalDifficulty: 0,
        mergeNetsplitBlock: 0,
        shanghaiTime: shanghai,
        cancunTime: cancun,
      });
    // Only the genesis hash is checksummed: CRC-32 of it alone.
    const only = `0x${crc32(genesis).toString(16).padStart(8, "0")}`;
    for (const [shanghai, cancun] of [
      [time - 1, time + 1],
      [time, time + 1],
      [time + 1, time + 2],
    ]) {
      const id = forkId(cfg(shanghai!, cancun!), genesis, time, 0, time);
      assert.deepEqual({ hash: bytesToHex(id.hash), next: id.next }, { hash: only, next: time + 1 });
    }
  });

  it("points are big-endian uint64: a timestamp above 2^32 feeds its high word", () => {
    const genesis = hexToBytes(`0x${"cd".repeat(32)}`);
    const t = 2 ** 32 + 5;
    const be = new Uint8Array(8);
    new DataView(be.buffer).setBigUint64(0, BigInt(t));
    const want = crc32(be, crc32(genesis));
    const id = forkIdAt(genesis, { blocks: [], times: [t] }, 0, t);
    assert.equal(bytesToHex(id.hash), `0x${want.toString(16).padStart(8, "0")}`);
  });

  it("OP's Bedrock block is a block fork point (op-geth BedrockBlock, op-reth OpHardfork::Bedrock)", () => {
    const cfg = parseChainConfig({
      chainId: 902,
      homesteadBlock: 0,
      eip150Block: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      constantinopleBlock: 0,
      petersburgBlock: 0,
      istanbulBlock: 0,
      muirGlacierBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      bedrockBlock: 7,
      regolithTime: 0,
      optimism: { eip1559Elasticity: 6, eip1559Denominator: 50 },
    });
    assert.deepEqual(forkPoints(cfg, 0), { blocks: [7], times: [] });
  });

  describe("OP chains (op-reth chainspec tests)", () => {
    const toml = (name: string) => readToml(join(fixturePath("op-stack", "superchain-registry"), "configs", name));
    /** The TOML's op-geth chain config, with Karst from the TOML whatever the helper maps. */
    const opConfig = (t: Map<string, string | number | boolean>): ChainConfig =>
      parseChainConfig({ ...opGethConfig(t), karstTime: t.get("hardforks.karst_time") });

    it("OP Mainnet: pre-Bedrock block forks, legacy genesis, no Delta", () => {
      const t = toml("mainnet/op.toml");
      const cfg = opConfig(t);
      const bedrock = t.get("genesis.l2.number") as number;
      assert.equal(bedrock, 105235063);
      // The registry's genesis is the Bedrock block; the fork id starts from legacy block 0.
      const genesis = forkIdGenesisHash(cfg, bedrock, hexToBytes(t.get("genesis.l2.hash") as string));
      assert.equal(bytesToHex(genesis), bytesToHex(OP_MAINNET_LEGACY_GENESIS_HASH));
      const points = forkPoints(cfg, t.get("genesis.l2_time") as number);
      assert.deepEqual(points.blocks, [3950000, 105235063]);
      assert.equal(cfg.deltaTime, 1708560000);
      assert.ok(!points.times.includes(1708560000), "Delta is no fork point");
      check(genesis, points, [
        [0, 0, 0xcaf517ed, 3950000],
        [105235063, 0, 0xe3398d7c, 1704992401],
        [105235063, 1704992401, 0xbdd4fdb2, 1710374401],
        [105235063, 1710374401, 0x19da4c52, 1720627201],
        [105235063, 1720627201, 0x49fbfe1e, 1726070401],
        [105235063, 1726070401, 0x44704cde, 1736445601],
        [105235063, 1736445601, 0x2bd93dc8, 1746806401],
        // Isthmus; next is Jovian (alloy-op-hardforks OP_MAINNET_JOVIAN_TIMESTAMP = the TOML's jovian_time).
        [105235063, 1746806401, 0x37be758f, 1764691201],
      ]);
      // After Jovian the next point is Karst.
      assert.equal(forkIdAt(genesis, points, 105235063, 1764691201).next, 1783526401);
      assert.equal(forkIdAt(genesis, points, 105235063, 1783526401).next, 0);
    });

    it("OP Sepolia: all block forks at genesis, Canyon through Isthmus", () => {
      const t = toml("sepolia/op.toml");
      const cfg = opConfig(t);
      const genesis = forkIdGenesisHash(cfg, 0, hexToBytes(t.get("genesis.l2.hash") as string));
      const points = forkPoints(cfg, t.get("genesis.l2_time") as number);
      assert.deepEqual(points.blocks, []);
      check(genesis, points, [
        [0, 0, 0x67a40328, 1699981200],
        [0, 1699981199, 0x67a40328, 1699981200],
        [0, 1699981200, 0xa48d6a00, 1708534800],
        [0, 1708534799, 0xa48d6a00, 1708534800],
        [0, 1708534800, 0xcc17c7eb, 1716998400],
        [0, 1716998399, 0xcc17c7eb, 1716998400],
        [0, 1716998400, 0x540a8c5d, 1723478400],
        [0, 1723478399, 0x540a8c5d, 1723478400],
        [0, 1723478400, 0x75dea41e, 1732633200],
        [0, 1732633200, 0x4a1c792e, 1744905600],
        // Isthmus; next is Jovian (OP_SEPOLIA_JOVIAN_TIMESTAMP = the TOML's jovian_time).
        [0, 1744905600, 0x6c625ee1, 1763568001],
      ]);
    });

    it("eth_config's OP fork list keeps the forks at genesis; the fork id drops them", () => {
      const cfg = opConfig(toml("sepolia/op.toml"));
      const all = scheduledForkTimes(cfg);
      assert.equal(all[0], 0, "Regolith at 0");
      assert.deepEqual(forkPoints(cfg, 1691802540).times, all.slice(1));
    });
  });
});
