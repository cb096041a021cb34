/**
 * eth_config (EIP-7910), rpc/eth/config.ts: byte-for-byte against geth's answer in the execution-apis
 * rpc-compat fixture; fork ids against published vectors (geth TestCreation for Sepolia, op-reth's
 * `op_mainnet_forkids`); L1 and OP chains with a fork scheduled ahead of the head. Over JSON-RPC on a
 * running `--dev` node: test/integration/rpc/ethConfig.test.ts.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "../../../src/primitives/crc32.js";
import { hexToBytes } from "../../../src/primitives/hex.js";
import { ethConfigAt } from "../../../src/rpc/eth/config.js";
import { type ChainConfig, parseChainConfig } from "../../../src/spec/chainConfig.js";
import { forkIdGenesisHash } from "../../../src/spec/forkId.js";
import { fixturePath } from "../../utils/fixtures.js";
import { opGethConfig, readToml } from "../../utils/superchain.js";

/** The request/response pair of an rpc-compat `.io` file. */
function exchange(path: string): { result: any } {
  const lines = readFileSync(fixturePath("execution-apis-rpc", "tests", path), "utf8").split("\n");
  return JSON.parse(lines.find((l) => l.startsWith("<< "))!.slice(3));
}

/** FORK_HASH as eth_config prints it: CRC-32 of genesis hash ‖ uint64 points (EIP-2124). */
function forkHash(genesis: Uint8Array, ...points: number[]): string {
  let c = crc32(genesis);
  for (const p of points) {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(p));
    c = crc32(b, c);
  }
  return `0x${c.toString(16).padStart(8, "0")}`;
}

// geth's precompile set at Osaka, as it answered the rpc-compat fixture (get-config.io).
const OSAKA_PRECOMPILES: Record<string, string> = exchange("eth_config/get-config.io").result.current.precompiles;
const PRAGUE_PRECOMPILES = Object.fromEntries(Object.entries(OSAKA_PRECOMPILES).filter(([k]) => k !== "P256VERIFY"));
const CANCUN_PRECOMPILES = Object.fromEntries(
  Object.entries(PRAGUE_PRECOMPILES).filter(([k]) => !k.startsWith("BLS12_")),
);
const BEACON_ROOTS = { BEACON_ROOTS_ADDRESS: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02" };
const pragueSystem = (deposit: string) => ({
  ...BEACON_ROOTS,
  CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS: "0x0000bbddc7ce488642fb579f8b00f3a590007251",
  DEPOSIT_CONTRACT_ADDRESS: deposit,
  HISTORY_STORAGE_ADDRESS: "0x0000f90827f1c53a10cb7a02335b175320002935",
  WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS: "0x00000961ef480eb55e80d19ad83579a64c007002",
});
const CANCUN_BLOBS = { target: 3, max: 6, baseFeeUpdateFraction: 3338477 };
const PRAGUE_BLOBS = { target: 6, max: 9, baseFeeUpdateFraction: 5007716 };
const MAINNET_DEPOSIT = "0x00000000219ab540356cbb839cbe05303d7705fa";

const BLOCK_FORKS_AT_0 = {
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
  arrowGlacierBlock: 0,
  grayGlacierBlock: 0,
  mergeNetsplitBlock: 0,
  terminalTotalDifficulty: 0,
};

describe("rpc/eth eth_config", function () {
  this.timeout(60_000);

  describe("L1 (geth's answer)", () => {
    it("reproduces geth's answer in the execution-apis fixture byte for byte", () => {
      const dir = fixturePath("execution-apis-rpc", "tests");
      const cfg = parseChainConfig(JSON.parse(readFileSync(join(dir, "genesis.json"), "utf8")).config);
      const block0 = exchange("eth_getBlockByNumber/get-genesis.io").result;
      const head = exchange("eth_getBlockByNumber/get-latest.io").result;
      const got = ethConfigAt(cfg, { hash: hexToBytes(block0.hash), timestamp: 0 }, Number(head.timestamp));
      assert.equal(JSON.stringify(got), JSON.stringify(exchange("eth_config/get-config.io").result));
    });

    it("Prague at genesis, Osaka ahead: key order, next and last, and after Osaka", () => {
      const genesis = hexToBytes(`0x${"12".repeat(32)}`);
      const deposit = "0x4242424242424242424242424242424242424242";
      const cfg = parseChainConfig({
        chainId: 1337,
        ...BLOCK_FORKS_AT_0,
        shanghaiTime: 0,
        cancunTime: 0,
        pragueTime: 0,
        osakaTime: 1000,
        depositContractAddress: deposit,
      });
      const prague = {
        activationTime: 0,
        blobSchedule: PRAGUE_BLOBS,
        chainId: "0x539",
        forkId: forkHash(genesis),
        precompiles: PRAGUE_PRECOMPILES,
        systemContracts: pragueSystem(deposit),
      };
      const osaka = {
        ...prague,
        activationTime: 1000,
        forkId: forkHash(genesis, 1000),
        precompiles: OSAKA_PRECOMPILES,
      };
      const before = ethConfigAt(cfg, { hash: genesis, timestamp: 0 }, 999);
      assert.deepEqual(Object.keys(before), ["current", "next", "last"]);
      assert.deepEqual(Object.keys(before.current as object), [
        "activationTime",
        "blobSchedule",
        "chainId",
        "forkId",
        "precompiles",
        "systemContracts",
      ]);
      assert.deepEqual(Object.keys((before.current as any).blobSchedule), ["target", "max", "baseFeeUpdateFraction"]);
      const keys = Object.keys((before.next as any).precompiles);
      assert.deepEqual(keys, [...keys].sort(), "precompiles sorted by name");
      assert.deepEqual(before, { current: prague, next: osaka, last: osaka });
      assert.deepEqual(ethConfigAt(cfg, { hash: genesis, timestamp: 0 }, 1000), {
        current: osaka,
        next: null,
        last: null,
      });
      // SPEC: EIP-7910 "If a fork is activated at genesis the value 0 is used": Prague at 400 under a
      // genesis at 500 reports 0 (and is no fork-id point); Osaka still reports its time.
      const late = parseChainConfig({
        chainId: 1337,
        ...BLOCK_FORKS_AT_0,
        shanghaiTime: 400,
        cancunTime: 400,
        pragueTime: 400,
        osakaTime: 1000,
        depositContractAddress: deposit,
      });
      assert.deepEqual(ethConfigAt(late, { hash: genesis, timestamp: 500 }, 600), {
        current: prague,
        next: osaka,
        last: osaka,
      });
      // No deposit contract in the config: geth reports the zero address.
      const noDeposit = parseChainConfig({
        chainId: 1337,
        ...BLOCK_FORKS_AT_0,
        shanghaiTime: 0,
        cancunTime: 0,
        pragueTime: 0,
      });
      assert.equal(
        (ethConfigAt(noDeposit, { hash: genesis, timestamp: 0 }, 5).current as any).systemContracts
          .DEPOSIT_CONTRACT_ADDRESS,
        `0x${"0".repeat(40)}`,
      );
    });

    it("Sepolia: fork ids are geth's published ones; last is the last scheduled fork", () => {
      // go-ethereum SepoliaChainConfig (an explicit Osaka blob entry added: geth's has none).
      const cfg = parseChainConfig({
        chainId: 11155111,
        ...BLOCK_FORKS_AT_0,
        arrowGlacierBlock: undefined,
        grayGlacierBlock: undefined,
        terminalTotalDifficulty: "17000000000000000",
        mergeNetsplitBlock: 1735371,
        shanghaiTime: 1677557088,
        cancunTime: 1706655072,
        pragueTime: 1741159776,
        osakaTime: 1760427360,
        bpo1Time: 1761017184,
        bpo2Time: 1761607008,
        depositContractAddress: "0x7f02c3e3c98b133055b8b348b2ac625669ed295d",
        blobSchedule: {
          osaka: PRAGUE_BLOBS,
          bpo1: { target: 10, max: 15, baseFeeUpdateFraction: 8346193 },
          bpo2: { target: 14, max: 21, baseFeeUpdateFraction: 11684671 },
        },
      });
      const genesis = {
        hash: hexToBytes("0x25a5cc106eea7138acab33231d7160d69cb777ee0c2c553fcddf5138993e6dd9"),
        timestamp: 1633267481,
      };
      const r = ethConfigAt(cfg, genesis, 1750000000) as any;
      assert.equal(r.current.activationTime, 1741159776);
      assert.equal(r.current.forkId, "0xed88b5fd"); // First Prague block
      assert.equal(r.next.activationTime, 1760427360);
      assert.equal(r.next.forkId, "0xe2ae4999"); // First Osaka block
      assert.equal(r.last.activationTime, 1761607008);
      assert.equal(r.last.forkId, "0x268956b6"); // First BPO2 block
      assert.deepEqual(r.last.blobSchedule, { target: 14, max: 21, baseFeeUpdateFraction: 11684671 });
      assert.equal(r.current.systemContracts.DEPOSIT_CONTRACT_ADDRESS, "0x7f02c3e3c98b133055b8b348b2ac625669ed295d");
      // Before Shanghai: no current fork (geth LatestFork = Paris), Shanghai next with no blobs.
      const pre = ethConfigAt(cfg, genesis, 1677557087) as any;
      assert.equal(pre.current, null);
      assert.equal(pre.next.forkId, "0xf7f9bc08");
      assert.equal(pre.next.blobSchedule, null);
      assert.deepEqual(pre.next.systemContracts, {});
      assert.equal(pre.last.forkId, "0x268956b6");
    });
  });

  describe("OP chains (op-reth's answer)", () => {
    const opGenesis = hexToBytes(`0x${"34".repeat(32)}`);
    const opDev = (extra: Record<string, unknown>): ChainConfig =>
      parseChainConfig({
        chainId: 901,
        ...BLOCK_FORKS_AT_0,
        shanghaiTime: 0,
        cancunTime: 0,
        pragueTime: 0,
        bedrockBlock: 0,
        regolithTime: 0,
        canyonTime: 0,
        deltaTime: 0,
        ecotoneTime: 0,
        fjordTime: 0,
        graniteTime: 0,
        holoceneTime: 0,
        isthmusTime: 0,
        jovianTime: 0,
        optimism: { eip1559Elasticity: 6, eip1559Denominator: 50, eip1559DenominatorCanyon: 250 },
        ...extra,
      });

    it("Jovian at genesis, Karst ahead: current Jovian, next = last = Karst; then current Karst", () => {
      const cfg = opDev({ karstTime: 1000, osakaTime: 1000 });
      // From Fjord on P256VERIFY is there; Karst (Osaka on L2) moves no address.
      const jovian = {
        activationTime: 0,
        blobSchedule: PRAGUE_BLOBS,
        chainId: "0x385",
        forkId: forkHash(opGenesis),
        precompiles: OSAKA_PRECOMPILES,
        systemContracts: pragueSystem(MAINNET_DEPOSIT),
      };
      const karst = { ...jovian, activationTime: 1000, forkId: forkHash(opGenesis, 1000) };
      assert.deepEqual(ethConfigAt(cfg, { hash: opGenesis, timestamp: 0 }, 999), {
        current: jovian,
        next: karst,
        last: karst,
      });
      assert.deepEqual(ethConfigAt(cfg, { hash: opGenesis, timestamp: 0 }, 1000), {
        current: karst,
        next: null,
        last: null,
      });
      // Without osakaTime (op-reth's genesis mapping has none) the answer is the same.
      assert.deepEqual(
        ethConfigAt(opDev({ karstTime: 1000 }), { hash: opGenesis, timestamp: 0 }, 999),
        ethConfigAt(cfg, { hash: opGenesis, timestamp: 0 }, 999),
      );
    });

    it("a fork at a non-zero genesis time keeps its own activationTime (op-reth), unlike geth's 0", () => {
      const cfg = opDev({ jovianTime: 500, karstTime: 1000 });
      const r = ethConfigAt(cfg, { hash: opGenesis, timestamp: 500 }, 700) as any;
      assert.equal(r.current.activationTime, 500);
      assert.equal(r.current.forkId, forkHash(opGenesis), "forks at genesis are not fork-id points");
      assert.equal(r.next.forkId, forkHash(opGenesis, 1000));
    });

    it("OP Mainnet at Canyon: Delta is no fork, pre-Ecotone blobs fall back to Cancun's, published fork ids", () => {
      const t = readToml(join(fixturePath("op-stack", "superchain-registry"), "configs", "mainnet", "op.toml"));
      const cfg = parseChainConfig({ ...opGethConfig(t), karstTime: t.get("hardforks.karst_time") });
      const genesis = {
        hash: forkIdGenesisHash(cfg, 105235063, hexToBytes(t.get("genesis.l2.hash") as string)),
        timestamp: t.get("genesis.l2_time") as number,
      };
      const canyon = ethConfigAt(cfg, genesis, 1705000000) as any;
      assert.deepEqual(canyon.current, {
        activationTime: 1704992401,
        blobSchedule: CANCUN_BLOBS,
        chainId: "0xa",
        forkId: "0xbdd4fdb2",
        precompiles: Object.fromEntries(
          Object.entries(CANCUN_PRECOMPILES).filter(([k]) => k !== "KZG_POINT_EVALUATION"),
        ),
        systemContracts: {},
      });
      // op_mainnet_forkids: Canyon's next point is Ecotone, not Delta (1708560000).
      assert.equal(canyon.next.activationTime, 1710374401);
      assert.equal(canyon.next.forkId, "0x19da4c52");
      assert.deepEqual(canyon.next.precompiles, CANCUN_PRECOMPILES);
      assert.deepEqual(canyon.next.systemContracts, BEACON_ROOTS);
      assert.equal(canyon.last.activationTime, 1783526401, "Karst, the last scheduled");
      const isthmus = ethConfigAt(cfg, genesis, 1750000000) as any;
      assert.equal(isthmus.current.forkId, "0x37be758f");
      assert.deepEqual(isthmus.current.systemContracts, pragueSystem(MAINNET_DEPOSIT));
      assert.deepEqual(isthmus.current.blobSchedule, PRAGUE_BLOBS);
      assert.equal(isthmus.next.activationTime, 1764691201, "Jovian");
    });

    it("no time fork reached: op-reth's internal error", () => {
      const cfg = opDev({
        shanghaiTime: 100,
        cancunTime: 100,
        pragueTime: 100,
        regolithTime: 100,
        canyonTime: 100,
        deltaTime: 100,
        ecotoneTime: 100,
        fjordTime: 100,
        graniteTime: 100,
        holoceneTime: 100,
        isthmusTime: 100,
        jovianTime: 100,
      });
      assert.throws(
        () => ethConfigAt(cfg, { hash: opGenesis, timestamp: 0 }, 50),
        (e: any) => e.code === -32603 && e.message === "no active timestamp fork found",
      );
    });
  });
});
