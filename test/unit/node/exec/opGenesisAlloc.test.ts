/**
 * The OP Stack predeploys and preinstalls as data (src/node/exec/opGenesisAlloc.ts, written by
 * scripts/bundleOpGenesis.ts from the superchain-registry genesis files of fixtures/op-stack,
 * SOURCE.md §1), checked against those files, not against Opal's own output:
 * - the generated file is what the generator makes from the fixtures today (it cannot drift);
 * - given Ink's and Unichain's values (registry addresses.json and chain TOML, the aliased L1
 *   ProxyAdminOwner, the vaults' immutables read from each file's code), `opPredeployAlloc` gives
 *   each file's genesis accounts exactly: code, storage, nonce and balance of every account, but
 *   for the documented differences (Opal's L1Block and GasPriceOracle behind their proxies; the
 *   OperatorFeeVault implementation and the EIP-2935 contract of the Isthmus upgrade, whose code
 *   hashes are the OP spec's and EEST's);
 * - the OP dev genesis holds every predeploy and preinstall of the registry genesis with its code
 *   (keccak of the fixture's code), the chain-specific immutables set for the dev chain (fee vault
 *   getters, the ERC721 factory's L1 chain id, Permit2's cached EIP-712 domain recomputed here);
 * - the ProxyAdmin owns every proxy: ERC-1967 admin and implementation slots, `owner()`,
 *   `getProxyImplementation` and `getProxyAdmin` through it.
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { parse as parseToml } from "smol-toml";
import { opGenesisAllocUpToDate } from "../../../../scripts/bundleOpGenesis.js";
import { Blockchain } from "../../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../../src/chain/genesis.js";
import { headerBlobBaseFee } from "../../../../src/chain/importBlock.js";
import { blockContext } from "../../../../src/executor/executeBlock.js";
import { gasPriceOracleRuntimeCode, l1BlockRuntimeCode } from "../../../../src/executor/op/predeploys.js";
import { call } from "../../../../src/executor/simulate.js";
import {
  DEV_CHAIN_ID,
  devAccounts,
  l1ForksGenesis,
  type OpFeeVaultConfig,
  type OpFeeVaultName,
  opDevGenesis,
  opPredeployAlloc,
  SYSTEM_CONTRACTS,
} from "../../../../src/node/exec/devGenesis.js";
import { OP_GENESIS_PREDEPLOYS, OP_GENESIS_PREINSTALLS } from "../../../../src/node/exec/opGenesisAlloc.js";
import { rulesAt } from "../../../../src/spec/chainConfig.js";
import { MemoryKv } from "../../../../src/storage/memory.js";
import { fixturePath, requireFixture } from "../../../utils/fixtures.js";

// ---- hex helpers (this file's own, independent of src/) ----

const strip = (s: string): string => s.toLowerCase().replace(/^0x/, "");
const bytesOf = (h: string): Uint8Array => Uint8Array.from(Buffer.from(strip(h), "hex"));
const hexOf = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const keccakHex = (hex: string): string => hexOf(keccak_256(bytesOf(hex)));
const keccakText = (s: string): string => hexOf(keccak_256(new TextEncoder().encode(s)));
const word = (v: bigint): string => v.toString(16).padStart(64, "0");
const selector = (sig: string): string => keccakText(sig).slice(0, 8);

/** An account of a genesis alloc, normalised: lower-case hex without 0x, storage without zero values. */
interface Acct {
  readonly balance: bigint;
  readonly nonce: bigint;
  readonly code: string;
  readonly storage: ReadonlyMap<string, bigint>;
}

type RawAlloc = Record<
  string,
  { balance?: string; nonce?: string | number; code?: string; storage?: Record<string, string> }
>;

function normalise(alloc: RawAlloc): Map<string, Acct> {
  const out = new Map<string, Acct>();
  for (const [k, v] of Object.entries(alloc)) {
    const storage = new Map<string, bigint>();
    for (const [s, x] of Object.entries(v.storage ?? {})) if (BigInt(x) !== 0n) storage.set(word(BigInt(s)), BigInt(x));
    out.set(strip(k).padStart(40, "0"), {
      balance: BigInt(v.balance ?? 0),
      nonce: BigInt(v.nonce ?? 0),
      code: strip(v.code ?? ""),
      storage,
    });
  }
  return out;
}

const REGISTRY = ["op-stack", "superchain-registry"];

/** The registry's genesis of `name` (alloc only: the top-level config is null in these files). */
function registryGenesis(name: string): Map<string, Acct> {
  const file = requireFixture(fixturePath(...REGISTRY, "genesis", `${name}.genesis.json.gz`));
  const g = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as { alloc: RawAlloc };
  return normalise(g.alloc);
}

/** A Prague chain holding `alloc`'s code (nonce 1, no storage), to run getters on. */
function codeChain(alloc: ReadonlyMap<string, Acct>, chainId: bigint): Blockchain {
  const a: Record<string, unknown> = {};
  for (const [k, v] of alloc) if (v.code !== "") a[`0x${k}`] = { code: `0x${v.code}`, nonce: "0x1", balance: "0x0" };
  return chainOf(a, chainId);
}

function chainOf(alloc: Record<string, unknown>, chainId: bigint): Blockchain {
  const g = l1ForksGenesis(Number(chainId), alloc);
  return Blockchain.init(new MemoryKv(), parseGenesis(g), g.config);
}

/** The output of a call at the head of `chain` (hex without 0x); fails the test when it reverts. */
function view(chain: Blockchain, to: string, data: string, from = ""): string {
  const header = chain.head;
  const rules = rulesAt(chain.config, header.number, header.timestamp);
  const r = call(
    chain.kv,
    {
      from: from === "" ? new Uint8Array(20) : bytesOf(from),
      to: bytesOf(to),
      gas: 5_000_000n,
      gasPrice: null,
      maxFeePerGas: null,
      maxPriorityFeePerGas: null,
      value: 0n,
      data: bytesOf(data),
      accessList: [],
    },
    {
      rules,
      chainId: chain.config.chainId,
      gasCap: 0n,
      block: blockContext(header, {
        rules,
        chainId: chain.config.chainId,
        blobBaseFee: headerBlobBaseFee(chain.config, header.excessBlobGas, header.timestamp),
        maxBlobGas: 0,
        depositContract: null,
        blockHash: () => 0n,
        intermediateRoot: null,
      }),
    },
  );
  assert.ok(typeof r !== "string" && r.status === 1, `call ${to} ${data.slice(0, 8)} failed`);
  return hexOf(r.output);
}

const predeploy = (i: number): string => `42${i.toString(16).padStart(38, "0")}`;
const codeNamespace = (i: number): string => `c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3${i.toString(16).padStart(4, "0")}`;
/** ERC-1967 slots: keccak256("eip1967.proxy.admin") - 1 and keccak256("eip1967.proxy.implementation") - 1. */
const ADMIN_SLOT = word(BigInt(`0x${keccakText("eip1967.proxy.admin")}`) - 1n);
const IMPL_SLOT = word(BigInt(`0x${keccakText("eip1967.proxy.implementation")}`) - 1n);
const PROXY_ADMIN = predeploy(0x18);
/** AddressAliasHelper.applyL1ToL2Alias offset. */
const ALIAS_OFFSET = 0x1111000000000000000000000000000000001111n;
const VAULTS: readonly [OpFeeVaultName, number][] = [
  ["SequencerFeeVault", 0x11],
  ["BaseFeeVault", 0x19],
  ["L1FeeVault", 0x1a],
];
/** OP specs isthmus/derivation.md "Operator Fee Vault Deployment": the implementation's code hash. */
const OPERATOR_FEE_VAULT_CODE_HASH = "57dc55c9c09ca456fa728f253fe7b895d3e6aae0706104935fe87c7721001971";
const HISTORY_STORAGE = "0000f90827f1c53a10cb7a02335b175320002935";
const HISTORY_STORAGE_SENDER = "3462413af4609098e1e27a490f554f260213d685";
const BEACON_ROOTS_SENDER = "0b799c86a49deeb90402691f1041aa3af2d3c875";

/** A chain's values as the registry records them (chain TOML, superchain TOML, addresses.json). */
function registryValues(toml: string): { chainId: bigint; l1ChainId: bigint; l1: Record<string, string> } {
  const dir = fixturePath(...REGISTRY, "configs");
  const c = parseToml(readFileSync(`${dir}/${toml}`, "utf8")) as { chain_id: number };
  const sc = parseToml(readFileSync(`${dir}/${toml.split("/")[0]}/superchain.toml`, "utf8")) as {
    l1: { chain_id: number };
  };
  const all = JSON.parse(readFileSync(fixturePath(...REGISTRY, "addresses.json"), "utf8")) as Record<
    string,
    Record<string, string>
  >;
  return { chainId: BigInt(c.chain_id), l1ChainId: BigInt(sc.l1.chain_id), l1: all[String(c.chain_id)]! };
}

describe("node/opGenesisAlloc: the OP Stack predeploys and preinstalls", function () {
  this.timeout(120_000);

  it("src/node/exec/opGenesisAlloc.ts is what scripts/bundleOpGenesis.ts generates from the fixtures", () => {
    assert.ok(
      opGenesisAllocUpToDate(),
      "src/node/exec/opGenesisAlloc.ts is out of date: run npm run bundle:op-genesis",
    );
  });

  for (const [name, toml] of [
    ["ink-mainnet", "mainnet/ink.toml"],
    ["unichain-mainnet", "mainnet/unichain.toml"],
  ] as const) {
    it(`with ${name}'s values, opPredeployAlloc gives ${name}'s genesis accounts exactly (but the documented differences)`, () => {
      const want = registryGenesis(name);
      const reg = registryValues(toml);
      const chain = codeChain(want, reg.chainId);
      const addr = (k: string): Uint8Array => bytesOf(reg.l1[k]!);
      const feeVaults = {} as Record<OpFeeVaultName, OpFeeVaultConfig>;
      for (const [vault, i] of VAULTS) {
        const at = codeNamespace(i);
        feeVaults[vault] = {
          recipient: bytesOf(view(chain, at, selector("RECIPIENT()")).slice(24)),
          minWithdrawalAmount: BigInt(`0x${view(chain, at, selector("MIN_WITHDRAWAL_AMOUNT()"))}`),
          withdrawalNetwork: BigInt(`0x${view(chain, at, selector("WITHDRAWAL_NETWORK()"))}`),
        };
      }
      const owner = (BigInt(reg.l1.ProxyAdminOwner!) + ALIAS_OFFSET) % (1n << 160n);
      const token = want.get(predeploy(0x42));
      const proxyStorage = (i: number): [bigint, bigint][] =>
        [...want.get(predeploy(i))!.storage]
          .filter(([k]) => k !== ADMIN_SLOT && k !== IMPL_SLOT)
          .map(([k, v]) => [BigInt(`0x${k}`), v]);
      const got = normalise(
        opPredeployAlloc({
          chainId: reg.chainId,
          l1ChainId: reg.l1ChainId,
          proxyAdminOwner: bytesOf(word(owner).slice(24)),
          // No registry field names it: the token owner as the file has it (GovernanceToken `_owner`,
          // slot 10); a chain without governance has no token.
          governanceTokenOwner:
            token === undefined ? null : bytesOf(word(token.storage.get(word(10n)) ?? 0n).slice(24)),
          feeVaults,
          l1Contracts: {
            crossDomainMessenger: addr("L1CrossDomainMessengerProxy"),
            standardBridge: addr("L1StandardBridgeProxy"),
            erc721Bridge: addr("L1ERC721BridgeProxy"),
          },
          // What the file's L1Block and GasPriceOracle proxies hold besides the ERC-1967 slots.
          l1BlockStorage: proxyStorage(0x15),
          gasPriceOracleStorage: proxyStorage(0x0f),
        }) as RawAlloc,
      );

      // The documented differences, each checked, then left out of the comparison.
      const opal: [number, Uint8Array][] = [
        [0x15, l1BlockRuntimeCode()],
        [0x0f, gasPriceOracleRuntimeCode()],
      ];
      for (const [i, code] of opal) {
        assert.ok(want.get(codeNamespace(i))!.code.length > 0, `${name} has an implementation at ${codeNamespace(i)}`);
        assert.equal(got.get(codeNamespace(i))!.code, hexOf(code), "Opal's own contract");
        want.delete(codeNamespace(i));
        got.delete(codeNamespace(i));
      }
      // Not in these genesis files, older than Isthmus: the OperatorFeeVault behind its proxy, the
      // EIP-2935 contract and its deployer's nonce.
      assert.equal(want.get(predeploy(0x1b))!.storage.get(IMPL_SLOT), undefined);
      assert.equal(got.get(predeploy(0x1b))!.storage.get(IMPL_SLOT), BigInt(`0x${codeNamespace(0x1b)}`));
      (got.get(predeploy(0x1b))!.storage as Map<string, bigint>).delete(IMPL_SLOT);
      assert.equal(keccakHex(got.get(codeNamespace(0x1b))!.code), OPERATOR_FEE_VAULT_CODE_HASH);
      const eest2935 = SYSTEM_CONTRACTS.find((c) => strip(c.address) === HISTORY_STORAGE)!;
      assert.equal(got.get(HISTORY_STORAGE)!.code, strip(eest2935.code), "EIP-2935 code as in the EEST fixtures");
      assert.equal(got.get(HISTORY_STORAGE)!.nonce, 1n);
      assert.equal(got.get(HISTORY_STORAGE_SENDER)!.nonce, 1n);
      for (const a of [codeNamespace(0x1b), HISTORY_STORAGE, HISTORY_STORAGE_SENDER]) {
        assert.equal(want.has(a), false, `${a} is not in ${name}`);
        got.delete(a);
      }

      // Unichain's genesis also holds Unichain's own contracts (0x1f98…, 0x4300c0d3…): not the OP Stack's.
      const own = [...want.keys()].filter((a) => !got.has(a));
      assert.deepEqual(
        own.filter((a) => !(name === "unichain-mainnet" && (a.startsWith("1f984") || a.startsWith("4300c0d3")))),
        [],
        `${name} accounts that opPredeployAlloc lacks`,
      );
      for (const a of own) want.delete(a);
      assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), "the same accounts");
      let codes = 0;
      for (const [a, w] of want) {
        const g = got.get(a)!;
        assert.equal(g.code, w.code, `code of ${a}`);
        assert.equal(g.nonce, w.nonce, `nonce of ${a}`);
        assert.equal(g.balance, w.balance, `balance of ${a}`);
        assert.deepEqual([...g.storage].sort(), [...w.storage].sort(), `storage of ${a}`);
        if (w.code !== "") codes++;
      }
      assert.ok(codes > 2000, `${codes} accounts with code compared`);
    });
  }

  describe("the OP dev genesis (opDevGenesis, chain 901)", () => {
    const owner = devAccounts(1)[0]!.address;
    const ownerHex = hexOf(owner);
    const dev = opDevGenesis({ chainId: 901n, timestamp: 1000 });
    const alloc = normalise(dev.alloc as RawAlloc);
    let chain: Blockchain;
    before(() => {
      chain = Blockchain.init(new MemoryKv(), parseGenesis(dev), dev.config);
    });

    it("every predeploy and preinstall of the registry genesis is there with the registry's code", () => {
      const ink = registryGenesis("ink-mainnet");
      const uni = registryGenesis("unichain-mainnet");
      /** The immutables (byte ranges) the dev chain sets, by the account holding the code. */
      const words = new Map<string, [number, number][]>();
      for (const c of [...OP_GENESIS_PREDEPLOYS, ...OP_GENESIS_PREINSTALLS]) {
        const ranges = c.codeWords.flatMap((w) => w.offsets.map((o): [number, number] => [o, o + 32]));
        if (ranges.length > 0) words.set(strip(c.address), ranges);
      }
      const mask = (code: string, ranges: readonly [number, number][]): string => {
        let out = code;
        for (const [a, b] of ranges) out = out.slice(0, a * 2) + "00".repeat(b - a) + out.slice(b * 2);
        return out;
      };
      const opal = new Set([codeNamespace(0x15), codeNamespace(0x0f)]);
      let same = 0;
      for (const [a, w] of ink) {
        if (w.code === "" || opal.has(a)) continue;
        const d = alloc.get(a);
        assert.ok(d !== undefined && d.code !== "", `${a}: no code in the dev genesis`);
        const ranges = words.get(a);
        if (ranges === undefined) {
          assert.equal(keccakHex(d.code), keccakHex(w.code), `${a}: code hash`);
          const u = uni.get(a);
          if (u !== undefined && u.code !== "")
            assert.equal(keccakHex(u.code), keccakHex(w.code), `${a}: Unichain's too`);
          same++;
        } else {
          assert.equal(d.code.length, w.code.length, `${a}: code length`);
          assert.equal(
            keccakHex(mask(d.code, ranges)),
            keccakHex(mask(w.code, ranges)),
            `${a}: code but the immutables`,
          );
          assert.notEqual(d.code, w.code, `${a}: immutables set for the dev chain`);
        }
        assert.equal(d.nonce, w.nonce, `${a}: nonce`);
      }
      assert.ok(same > 2030, `${same} codes equal to Ink's`);
      // The preinstalls of specs protocol/preinstalls.md by address, all with code and nonce 1.
      for (const a of [
        "4e59b44847b379578588920ca78fbf26c0b4956c", // deterministic deployment proxy (Arachnid)
        "13b0d85ccb8bf860b6b79af3029fca081ae9bef2", // Create2Deployer
        "ca11bde05977b3631167028862be2a173976ca11", // Multicall3
        "000000000022d473030f116ddee9f6b43ac78ba3", // Permit2
        "69f4d1788e39c87893c980c06edf4b7f686e2938", // Safe v1.3.0
        "fb1bffc9d739b8d520daf37df666da4c687191ea", // SafeL2 v1.3.0
        "998739bfdaadde7c933b942a68053933098f9eda", // MultiSend v1.3.0
        "a1dabef33b3b82c7814b6d82a79e50f4ac44102b", // MultiSendCallOnly v1.3.0
        "914d7fec6aac8cd542e72bca78b30650d45643d7", // Safe singleton factory
        "ba5ed099633d3b313e4d5f7bdc1305d3c28ba5ed", // CreateX
        "5ff137d4b0fdcd49dca30c7cf57e578a026d2789", // EntryPoint v0.6.0
        "7fc98430eaedbb6070b35b39d798725049088348", // SenderCreator v0.6.0
        "0000000071727de22e5e9d8baf0edac6f37da032", // EntryPoint v0.7.0
        "efc2c1444ebcc4db75e7613d20c6a62ff67a167c", // SenderCreator v0.7.0
        "000f3df6d732807ef1319fb7b8bb8522d0beac02", // EIP-4788 beacon roots
        HISTORY_STORAGE,
      ]) {
        const d = alloc.get(a);
        assert.ok(d !== undefined && d.code !== "", `preinstall ${a}`);
        assert.equal(d.nonce, 1n, `preinstall ${a}: nonce 1`);
      }
      const eest4788 = SYSTEM_CONTRACTS.find((c) => strip(c.address) === "000f3df6d732807ef1319fb7b8bb8522d0beac02")!;
      assert.equal(alloc.get("000f3df6d732807ef1319fb7b8bb8522d0beac02")!.code, strip(eest4788.code));
      assert.equal(alloc.get(BEACON_ROOTS_SENDER)!.nonce, 1n);
      assert.equal(alloc.get(HISTORY_STORAGE_SENDER)!.nonce, 1n);
    });

    it("the immutables are the dev chain's: fee vaults pay the first dev account on L2 above 10 ether, the ERC721 factory names L1 1337, Permit2 caches chain 901", () => {
      for (const [, i] of VAULTS) {
        const at = predeploy(i);
        assert.equal(view(chain, at, selector("RECIPIENT()")), word(BigInt(`0x${ownerHex}`)), `${at} recipient`);
        assert.equal(BigInt(`0x${view(chain, at, selector("MIN_WITHDRAWAL_AMOUNT()"))}`), 10n * 10n ** 18n);
        assert.equal(BigInt(`0x${view(chain, at, selector("WITHDRAWAL_NETWORK()"))}`), 1n, "withdrawal network L2");
      }
      // The Isthmus OperatorFeeVault keeps the spec's immutables: BaseFeeVault, no minimum, L2.
      assert.equal(view(chain, predeploy(0x1b), selector("RECIPIENT()")), word(BigInt(`0x${predeploy(0x19)}`)));
      assert.equal(BigInt(`0x${view(chain, predeploy(0x17), selector("REMOTE_CHAIN_ID()"))}`), DEV_CHAIN_ID);
      // Permit2 returns its cached separator when the chain id is the cached one: both words set here.
      const permit2 = "000000000022d473030f116ddee9f6b43ac78ba3";
      const separator = keccakHex(
        keccakText("EIP712Domain(string name,uint256 chainId,address verifyingContract)") +
          keccakText("Permit2") +
          word(901n) +
          permit2.padStart(64, "0"),
      );
      assert.equal(view(chain, permit2, selector("DOMAIN_SEPARATOR()")), separator);
      const code = alloc.get(permit2)!.code;
      assert.ok(code.includes(`7f${word(901n)}`), "Permit2's cached chain id");
      assert.ok(code.includes(`7f${separator}`), "Permit2's cached separator");
    });

    it("the ProxyAdmin administers every proxy; its owner is the first dev account; the messenger and bridges are initialised", () => {
      let proxies = 0;
      for (let i = 0; i < 2048; i++) {
        const a = alloc.get(predeploy(i));
        if (i === 0x06 || i === 0x42) {
          assert.equal(a?.storage.get(ADMIN_SLOT), undefined, "WETH9 and GovernanceToken are not proxied");
          continue;
        }
        assert.equal(a?.storage.get(ADMIN_SLOT), BigInt(`0x${PROXY_ADMIN}`), `admin of ${predeploy(i)}`);
        proxies++;
      }
      assert.equal(proxies, 2046);
      const pa = alloc.get(PROXY_ADMIN)!;
      assert.equal(pa.storage.get(IMPL_SLOT), BigInt(`0x${codeNamespace(0x18)}`), "ProxyAdmin implementation slot");
      assert.equal(pa.storage.get(word(0n)), BigInt(`0x${ownerHex}`), "ProxyAdmin owner slot (Ownable `_owner`)");
      assert.equal(view(chain, PROXY_ADMIN, selector("owner()")), word(BigInt(`0x${ownerHex}`)));
      for (const i of [0x07, 0x10, 0x16, 0x18, 0x19]) {
        const arg = predeploy(i).padStart(64, "0");
        assert.equal(
          view(chain, PROXY_ADMIN, selector("getProxyImplementation(address)") + arg),
          codeNamespace(i).padStart(64, "0"),
          `implementation of ${predeploy(i)}`,
        );
        assert.equal(
          view(chain, PROXY_ADMIN, selector("getProxyAdmin(address)") + arg),
          PROXY_ADMIN.padStart(64, "0"),
          `admin of ${predeploy(i)}`,
        );
      }
      // The L2 bridge and the token factory are initialised (their L1 counterparts: none given here).
      assert.equal(
        view(chain, predeploy(0x10), selector("messenger()")),
        predeploy(0x07).padStart(64, "0"),
        "L2StandardBridge.messenger",
      );
      assert.equal(
        view(chain, predeploy(0x12), selector("bridge()")),
        predeploy(0x10).padStart(64, "0"),
        "OptimismMintableERC20Factory.bridge",
      );
    });
  });
});
