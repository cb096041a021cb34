/**
 * Generates src/node/exec/opGenesisAlloc.ts: the L2 predeploys and preinstalls of a real OP Stack
 * genesis, as data for the OP dev genesis (devGenesis.ts `opDevGenesis`). Protocol data, taken from
 * the superchain-registry genesis of Ink mainnet (the newest full genesis in the fixtures,
 * fixtures/op-stack/SOURCE.md §1; op-deployer's L2Genesis output of December 2024) and never rebuilt:
 *
 * - the ERC-1967 Proxy at every 0x4200…0000–07ff address but WETH9 (0x…06) and GovernanceToken
 *   (0x…42), admin the L2 ProxyAdmin (0x…18); the predeploys' implementations in the 0xc0d3c0d3…
 *   code namespace and their initialised proxy storage; WETH9 and GovernanceToken as they stand;
 * - the preinstalls of ethereum-optimism/specs protocol/preinstalls.md and contracts-bedrock
 *   Preinstalls.sol (Safe, SafeL2, MultiSend, MultiSendCallOnly, SafeSingletonFactory, Multicall3,
 *   Create2Deployer, CreateX, Arachnid's deterministic deployment proxy, Permit2, the ERC-4337 v0.6
 *   and v0.7 EntryPoints and SenderCreators, the EIP-4788 beacon roots contract) and the 4788
 *   deployer's nonce 1;
 * - from the Isthmus network upgrade (OP specs isthmus/derivation.md, the deployment bytecode in
 *   src/rollup/derive/upgradeBytecode.ts, run here in Opal's EVM): the OperatorFeeVault
 *   implementation and the EIP-2935 history storage contract with its deployer's nonce 1, as
 *   op-deployer's later L2Genesis adds them.
 *
 * L1Block and GasPriceOracle keep their proxies but not Ink's implementations: the dev genesis puts
 * Opal's own (src/executor/op/predeploys.ts) behind them.
 *
 * What differs per chain is separated from the data and checked, not guessed: Unichain mainnet's
 * genesis (same contracts-bedrock release, other chain) is the cross-check. Storage slots whose value
 * differs between the two must be exactly the known roles (the L1 messenger and bridges the L2 ones
 * point at, equal to the registry's addresses.json; the ProxyAdmin owner, the aliased L1
 * ProxyAdminOwner), and code bytes that differ must lie in the immutables found here (the fee vaults'
 * recipient, minimum and network, read through their getters in Opal's EVM; the EIP-712 caches of
 * Permit2 and EAS: chain id and domain separator, recomputed). Writing Unichain's values into Ink's
 * code must give Unichain's code byte for byte. A chain id word anywhere else, an unknown account or a
 * role slot that disagrees with the registry stops the generator.
 *
 * Usage: npm run bundle:op-genesis [-- --check]   (npx tsx scripts/bundleOpGenesis.ts; --check exits 1 when the file is out of date)
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gunzipSync } from "node:zlib";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { parse as parseToml } from "smol-toml";
import { Blockchain } from "../src/chain/blockchain.js";
import { parseGenesis } from "../src/chain/genesis.js";
import { headerBlobBaseFee } from "../src/chain/importBlock.js";
import { blockContext } from "../src/executor/executeBlock.js";
import { call } from "../src/executor/simulate.js";
import { l1ForksGenesis } from "../src/node/exec/devGenesis.js";
import {
  EIP2935_BLOCK_HASH_HISTORY_DEPLOYMENT_HEX,
  ISTHMUS_OPERATOR_FEE_DEPLOYMENT_HEX,
} from "../src/rollup/derive/upgradeBytecode.js";
import { rulesAt } from "../src/spec/chainConfig.js";
import { MemoryKv } from "../src/storage/memory.js";

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const OP_GENESIS_ALLOC_FILE = join(REPO_ROOT, "src", "node", "exec", "opGenesisAlloc.ts");

/** fixtures/op-stack/SOURCE.md §1. */
const SNAPSHOT = "ethereum-optimism/superchain-registry @ 8336d2aedd19b87a57b01ae36ba4afef8ea377d0";
/** The source genesis and the cross-check, with the sha256 of the decompressed JSON that SOURCE.md records. */
const SOURCE = {
  name: "ink-mainnet",
  toml: "mainnet/ink.toml",
  sha256: "59c31b10951282c77938279ef33d052a310822628ec68c9f36bb69c88090aa2a",
};
const CROSS = {
  name: "unichain-mainnet",
  toml: "mainnet/unichain.toml",
  sha256: "2981512bcd3e989eeaeae0085b8f5030056c80c2774007388bfc7517365d334f",
};

/** contracts-bedrock Predeploys.sol PREDEPLOY_COUNT: 0x4200…0000 through 0x4200…07ff. */
const PREDEPLOY_COUNT = 2048;
const ADMIN_SLOT = "b53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103";
const IMPLEMENTATION_SLOT = "360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc";
const PROXY_ADMIN = "4200000000000000000000000000000000000018";

/** The predeploys with an implementation (Predeploys.sol names), by index in the 0x4200… range. */
const PREDEPLOY_NAMES: ReadonlyMap<number, string> = new Map([
  [0x00, "LegacyMessagePasser"],
  [0x02, "DeployerWhitelist"],
  [0x07, "L2CrossDomainMessenger"],
  [0x0f, "GasPriceOracle"],
  [0x10, "L2StandardBridge"],
  [0x11, "SequencerFeeVault"],
  [0x12, "OptimismMintableERC20Factory"],
  [0x13, "L1BlockNumber"],
  [0x14, "L2ERC721Bridge"],
  [0x15, "L1Block"],
  [0x16, "L2ToL1MessagePasser"],
  [0x17, "OptimismMintableERC721Factory"],
  [0x18, "ProxyAdmin"],
  [0x19, "BaseFeeVault"],
  [0x1a, "L1FeeVault"],
  [0x1b, "OperatorFeeVault"],
  [0x20, "SchemaRegistry"],
  [0x21, "EAS"],
]);
/** Predeploys.sol `notProxied`: their code sits at the 0x4200… address itself. */
const NOT_PROXIED: ReadonlyMap<number, string> = new Map([
  [0x06, "WETH9"],
  [0x42, "GovernanceToken"],
]);
/** Predeploys whose implementation the dev genesis takes from Opal (src/executor/op/predeploys.ts). */
const OPAL_IMPLEMENTED = new Set(["GasPriceOracle", "L1Block"]);
const FEE_VAULTS = new Set(["SequencerFeeVault", "BaseFeeVault", "L1FeeVault"]);

/** contracts-bedrock src/libraries/Preinstalls.sol (and specs protocol/preinstalls.md). */
const PREINSTALLS: readonly (readonly [string, string])[] = [
  ["MultiCall3", "ca11bde05977b3631167028862be2a173976ca11"],
  ["Create2Deployer", "13b0d85ccb8bf860b6b79af3029fca081ae9bef2"],
  ["Safe_v130", "69f4d1788e39c87893c980c06edf4b7f686e2938"],
  ["SafeL2_v130", "fb1bffc9d739b8d520daf37df666da4c687191ea"],
  ["MultiSendCallOnly_v130", "a1dabef33b3b82c7814b6d82a79e50f4ac44102b"],
  ["SafeSingletonFactory", "914d7fec6aac8cd542e72bca78b30650d45643d7"],
  ["DeterministicDeploymentProxy", "4e59b44847b379578588920ca78fbf26c0b4956c"],
  ["MultiSend_v130", "998739bfdaadde7c933b942a68053933098f9eda"],
  ["Permit2", "000000000022d473030f116ddee9f6b43ac78ba3"],
  ["SenderCreator_v060", "7fc98430eaedbb6070b35b39d798725049088348"],
  ["EntryPoint_v060", "5ff137d4b0fdcd49dca30c7cf57e578a026d2789"],
  ["SenderCreator_v070", "efc2c1444ebcc4db75e7613d20c6a62ff67a167c"],
  ["EntryPoint_v070", "0000000071727de22e5e9d8baf0edac6f37da032"],
  ["BeaconBlockRoots", "000f3df6d732807ef1319fb7b8bb8522d0beac02"],
  ["CreateX", "ba5ed099633d3b313e4d5f7bdc1305d3c28ba5ed"],
];
/** Preinstalls.sol BeaconBlockRootsSender: nonce 1 so that a later Ecotone upgrade deposit does not collide. */
const BEACON_ROOTS_SENDER = "0b799c86a49deeb90402691f1041aa3af2d3c875";
/** EIP-2935 history storage and its deployer (OP specs isthmus/derivation.md "EIP-2935 Contract Deployment"). */
const HISTORY_STORAGE = "0000f90827f1c53a10cb7a02335b175320002935";
const HISTORY_STORAGE_SENDER = "3462413af4609098e1e27a490f554f260213d685";

/** Storage slots that hold chain-specific values, by contract and where (proxy or code account). */
type StorageRole =
  | "l1CrossDomainMessenger"
  | "l1StandardBridge"
  | "l1Erc721Bridge"
  | "proxyAdminOwner"
  | "governanceTokenOwner";
interface RoleSlot {
  readonly contract: string;
  readonly at: "proxy" | "code";
  readonly slot: number;
  readonly role: StorageRole;
}
/** The L2 contracts' initialised storage (CrossDomainMessenger `otherMessenger`, StandardBridge and ERC721Bridge `otherBridge`, ProxyAdmin `_owner`, GovernanceToken `_owner`). */
const ROLE_SLOTS: readonly RoleSlot[] = [
  { contract: "L2CrossDomainMessenger", at: "proxy", slot: 0xcf, role: "l1CrossDomainMessenger" },
  { contract: "L2StandardBridge", at: "proxy", slot: 0x04, role: "l1StandardBridge" },
  { contract: "L2ERC721Bridge", at: "proxy", slot: 0x02, role: "l1Erc721Bridge" },
  { contract: "ProxyAdmin", at: "proxy", slot: 0x00, role: "proxyAdminOwner" },
  { contract: "ProxyAdmin", at: "code", slot: 0x00, role: "proxyAdminOwner" },
  { contract: "GovernanceToken", at: "code", slot: 0x0a, role: "governanceTokenOwner" },
];
/** registry addresses.json keys of the L1 contracts the L2 ones point at. */
const ROLE_L1_ADDRESS: Partial<Record<StorageRole, string>> = {
  l1CrossDomainMessenger: "L1CrossDomainMessengerProxy",
  l1StandardBridge: "L1StandardBridgeProxy",
  l1Erc721Bridge: "L1ERC721BridgeProxy",
};
/** AddressAliasHelper offset: an L1 contract's address on L2. */
const ALIAS_OFFSET = 0x1111000000000000000000000000000000001111n;

/** Immutables that hold chain-specific values: word offsets in the runtime code. */
type CodeRole =
  | "chainId"
  | "eip712DomainSeparator"
  | "feeVaultRecipient"
  | "feeVaultMinWithdrawalAmount"
  | "feeVaultWithdrawalNetwork"
  | "l1ChainId";

interface CodeWord {
  readonly role: CodeRole;
  readonly offsets: readonly number[];
}

interface Eip712Domain {
  readonly typeHash: string;
  readonly nameHash: string;
  readonly versionHash: string | null;
  readonly verifyingContract: string;
}

interface OutContract {
  readonly name: string;
  /** The account holding the code (the implementation of a proxied predeploy). */
  readonly address: string;
  /** The 0x4200… proxy in front, null when not proxied. */
  readonly proxy: string | null;
  readonly code: string | null;
  readonly nonce: number;
  readonly storage: Readonly<Record<string, string>>;
  readonly proxyStorage: Readonly<Record<string, string>>;
  readonly storageRoles: readonly RoleSlot[];
  readonly codeWords: readonly CodeWord[];
  readonly eip712: Eip712Domain | null;
  /** Where the entry comes from (for the generated file's comments). */
  readonly from: string;
}

type Account = { balance?: string; nonce?: string; code?: string; storage?: Record<string, string> };
type Alloc = Record<string, Account>;

function fail(why: string): never {
  throw new Error(`bundleOpGenesis: ${why}`);
}

function fixturesRoot(): string {
  return process.env.OPAL_FIXTURES ?? resolve(REPO_ROOT, "../shared/fixtures");
}

export function opGenesisSourcePath(name = SOURCE.name): string {
  return join(fixturesRoot(), "op-stack", "superchain-registry", "genesis", `${name}.genesis.json.gz`);
}

const hexOf = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const keccakHex = (hex: string): string => hexOf(keccak_256(Buffer.from(hex, "hex")));
const keccakText = (s: string): string => hexOf(keccak_256(new TextEncoder().encode(s)));
const word = (v: bigint): string => v.toString(16).padStart(64, "0");
const strip0x = (s: string): string => s.toLowerCase().replace(/^0x/, "");

interface LoadedGenesis {
  readonly alloc: Alloc;
  readonly sha256: string;
  readonly chainId: bigint;
  readonly l1ChainId: bigint;
  readonly l1Addresses: Readonly<Record<string, string>>;
}

function loadGenesis(src: { name: string; toml: string; sha256: string }): LoadedGenesis {
  const text = gunzipSync(readFileSync(opGenesisSourcePath(src.name)));
  const sha256 = createHash("sha256").update(text).digest("hex");
  if (sha256 !== src.sha256) fail(`${src.name}: sha256 ${sha256}, SOURCE.md records ${src.sha256}`);
  const g = JSON.parse(text.toString("utf8")) as { alloc: Alloc };
  const alloc: Alloc = {};
  for (const [k, v] of Object.entries(g.alloc)) {
    const a = strip0x(k);
    if (!/^[0-9a-f]{40}$/.test(a)) fail(`${src.name}: alloc key ${k}`);
    const storage: Record<string, string> = {};
    for (const [s, x] of Object.entries(v.storage ?? {})) {
      if (BigInt(x) !== 0n) storage[word(BigInt(s))] = word(BigInt(x));
    }
    alloc[a] = { ...v, storage };
  }
  const reg = join(fixturesRoot(), "op-stack", "superchain-registry");
  const toml = parseToml(readFileSync(join(reg, "configs", src.toml), "utf8")) as { chain_id: number };
  const superchain = parseToml(readFileSync(join(reg, "configs", dirname(src.toml), "superchain.toml"), "utf8")) as {
    l1: { chain_id: number };
  };
  const addresses = JSON.parse(readFileSync(join(reg, "addresses.json"), "utf8")) as Record<
    string,
    Record<string, string>
  >;
  const l1Addresses = addresses[String(toml.chain_id)] ?? fail(`${src.name}: not in addresses.json`);
  return {
    alloc,
    sha256,
    chainId: BigInt(toml.chain_id),
    l1ChainId: BigInt(superchain.l1.chain_id),
    l1Addresses,
  };
}

const predeployAddress = (i: number): string => `42${i.toString(16).padStart(38, "0")}`;
const codeNamespace = (i: number): string => `c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3c0d3${i.toString(16).padStart(4, "0")}`;

/** Byte offsets of the data of every PUSH32 whose word is `w` (instructions decoded, PUSH data skipped). */
function push32Offsets(code: string, w: string): number[] {
  const out: number[] = [];
  const n = code.length / 2;
  for (let p = 0; p < n; ) {
    const op = Number.parseInt(code.slice(p * 2, p * 2 + 2), 16);
    if (op === 0x7f && code.slice(p * 2 + 2, p * 2 + 66) === w) out.push(p + 1);
    p += op >= 0x60 && op <= 0x7f ? op - 0x5e : 1;
  }
  return out;
}

/** Every PUSH32 word of `code`, by value. */
function push32Words(code: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  const n = code.length / 2;
  for (let p = 0; p < n; ) {
    const op = Number.parseInt(code.slice(p * 2, p * 2 + 2), 16);
    if (op === 0x7f) {
      const w = code.slice(p * 2 + 2, p * 2 + 66);
      out.set(w, [...(out.get(w) ?? []), p + 1]);
    }
    p += op >= 0x60 && op <= 0x7f ? op - 0x5e : 1;
  }
  return out;
}

/** `code` with each role's words set to `values[role]`. */
function patchCode(code: string, words: readonly CodeWord[], values: Readonly<Record<string, string>>): string {
  let out = code;
  for (const w of words) {
    const v = values[w.role] ?? fail(`no value for ${w.role}`);
    for (const o of w.offsets) out = out.slice(0, o * 2) + v + out.slice(o * 2 + 64);
  }
  return out;
}

const EIP712_TYPE_HASH = keccakText(
  "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)",
);
const EIP712_TYPE_HASH_NO_VERSION = keccakText("EIP712Domain(string name,uint256 chainId,address verifyingContract)");

function domainSeparator(d: Eip712Domain, chainId: bigint): string {
  return keccakHex(
    d.typeHash + d.nameHash + (d.versionHash ?? "") + word(chainId) + d.verifyingContract.padStart(64, "0"),
  );
}

/**
 * The cached EIP-712 domain of an OpenZeppelin/Permit2-style contract: a PUSH32 of the chain id and
 * one of keccak(typeHash ‖ name ‖ [version] ‖ chainId ‖ verifyingContract) for PUSH32 words (or the
 * contract's own address) as the other fields. Null when the code has no chain id word.
 */
function findEip712(code: string, self: string, chainId: bigint): { domain: Eip712Domain; words: CodeWord[] } | null {
  const chainAt = push32Offsets(code, word(chainId));
  if (chainAt.length === 0) return null;
  const words = push32Words(code);
  const values = [...words.keys()];
  const addrs = [...new Set([self.padStart(64, "0"), ...values.filter((v) => /^0{24}[0-9a-f]{40}$/.test(v))])];
  const names = [...new Set([...values, keccakText("Permit2")])];
  const found: { domain: Eip712Domain; offsets: number[] }[] = [];
  for (const verifying of addrs) {
    for (const name of names) {
      const d0 = {
        typeHash: EIP712_TYPE_HASH_NO_VERSION,
        nameHash: name,
        versionHash: null,
        verifyingContract: verifying.slice(24),
      };
      const at0 = words.get(domainSeparator(d0, chainId));
      if (at0 !== undefined) found.push({ domain: d0, offsets: at0 });
      if (!words.has(EIP712_TYPE_HASH)) continue;
      for (const version of values) {
        const d = { ...d0, typeHash: EIP712_TYPE_HASH, versionHash: version };
        const at = words.get(domainSeparator(d, chainId));
        if (at !== undefined) found.push({ domain: d, offsets: at });
      }
    }
  }
  if (found.length !== 1) fail(`EIP-712 cache at ${self}: ${found.length} domain separators match chain ${chainId}`);
  const f = found[0]!;
  return {
    domain: f.domain,
    words: [
      { role: "chainId", offsets: chainAt },
      { role: "eip712DomainSeparator", offsets: f.offsets },
    ],
  };
}

// ---- running code in Opal's EVM -------------------------------------------------------------------

/** A Prague L1 chain holding `accounts`, to run getters and init code on. */
function evmChain(accounts: Alloc): Blockchain {
  const alloc: Alloc = {};
  for (const [a, v] of Object.entries(accounts)) {
    alloc[`0x${a}`] = { balance: "0x0", code: `0x${strip0x(v.code ?? "")}`, nonce: "0x1" };
  }
  const g = l1ForksGenesis(1, alloc);
  return Blockchain.init(new MemoryKv(), parseGenesis(g), g.config);
}

/** The output of a call (`to` null: a creation, whose output is the runtime code). */
function run(chain: Blockchain, to: string | null, data: string): string {
  const header = chain.head;
  const rules = rulesAt(chain.config, header.number, header.timestamp);
  const r = call(
    chain.kv,
    {
      from: new Uint8Array(20),
      to: to === null ? null : Uint8Array.from(Buffer.from(to, "hex")),
      gas: 30_000_000n,
      gasPrice: null,
      maxFeePerGas: null,
      maxPriorityFeePerGas: null,
      value: 0n,
      data: Uint8Array.from(Buffer.from(strip0x(data), "hex")),
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
  if (typeof r === "string" || r.status !== 1) fail(`call ${to ?? "create"} ${data.slice(0, 10)} failed`);
  return hexOf(r.output);
}

const selector = (sig: string): string => keccakText(sig).slice(0, 8);

/** The fee vault immutables as their getters answer (contracts-bedrock FeeVault.sol). */
function feeVaultValues(chain: Blockchain, at: string): Record<string, string> {
  return {
    feeVaultRecipient: run(chain, at, selector("RECIPIENT()")),
    feeVaultMinWithdrawalAmount: run(chain, at, selector("MIN_WITHDRAWAL_AMOUNT()")),
    feeVaultWithdrawalNetwork: run(chain, at, selector("WITHDRAWAL_NETWORK()")),
  };
}

/** Offsets of the 32-byte PUSH32 words whose data covers a byte where `a` and `b` differ. */
function differingWords(a: string, b: string): Set<number> {
  if (a.length !== b.length) fail("codes of different lengths");
  const starts = new Set<number>();
  const n = a.length / 2;
  for (let p = 0; p < n; ) {
    const op = Number.parseInt(a.slice(p * 2, p * 2 + 2), 16);
    const len = op >= 0x60 && op <= 0x7f ? op - 0x5f : 0;
    for (let q = p; q <= p + len; q++) {
      if (a.slice(q * 2, q * 2 + 2) === b.slice(q * 2, q * 2 + 2)) continue;
      if (op !== 0x7f || q === p) fail(`code differs at byte ${q} outside a PUSH32`);
      starts.add(p + 1);
    }
    p += 1 + len;
  }
  return starts;
}

// ---- the bundle -----------------------------------------------------------------------------------

export interface OpGenesisBundle {
  readonly sourceSha256: string;
  readonly crossSha256: string;
  readonly proxyCode: string;
  readonly predeploys: readonly OutContract[];
  readonly preinstalls: readonly OutContract[];
  readonly nonceOnly: readonly { name: string; address: string; nonce: number }[];
  readonly precompiles: number;
}

export function buildOpGenesisBundle(): OpGenesisBundle {
  const src = loadGenesis(SOURCE);
  const cross = loadGenesis(CROSS);
  const a = src.alloc;
  const seen = new Set<string>();
  const take = (addr: string): Account => {
    const v = a[addr] ?? fail(`${SOURCE.name}: no account ${addr}`);
    seen.add(addr);
    return v;
  };

  // Precompiles: 1 wei each (L2Genesis dealEthToPrecompiles).
  let precompiles = 0;
  for (let i = 0; i < 256; i++) {
    const addr = i.toString(16).padStart(40, "0");
    const v = take(addr);
    if (v.code !== undefined || BigInt(v.balance ?? 0) !== 1n || Object.keys(v.storage ?? {}).length > 0) {
      fail(`precompile ${addr} is not a bare 1-wei account`);
    }
    precompiles++;
  }

  // The proxies: one code at every proxied 0x4200… address, admin the ProxyAdmin.
  const proxyCodes = new Map<string, number>();
  for (let i = 0; i < PREDEPLOY_COUNT; i++) {
    if (NOT_PROXIED.has(i)) continue;
    const code = strip0x(take(predeployAddress(i)).code ?? fail(`proxy ${i} has no code`));
    proxyCodes.set(code, (proxyCodes.get(code) ?? 0) + 1);
  }
  if (proxyCodes.size !== 1) fail(`${proxyCodes.size} proxy codes in the 0x4200… range`);
  const proxyCode = [...proxyCodes.keys()][0]!;

  const chainSpecificSlots = (name: string, at: "proxy" | "code") =>
    new Set(ROLE_SLOTS.filter((r) => r.contract === name && r.at === at).map((r) => word(BigInt(r.slot))));
  const neutral = (name: string, at: "proxy" | "code", st: Record<string, string>): Record<string, string> => {
    const roles = chainSpecificSlots(name, at);
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(st)) if (!roles.has(k)) out[k] = v;
    return out;
  };
  const l1Values = (g: LoadedGenesis): Record<StorageRole, string> => {
    const addr = (k: string) => strip0x(g.l1Addresses[k] ?? fail(`addresses.json: no ${k}`)).padStart(64, "0");
    const owner = BigInt(g.l1Addresses.ProxyAdminOwner ?? fail("addresses.json: no ProxyAdminOwner"));
    return {
      l1CrossDomainMessenger: addr(ROLE_L1_ADDRESS.l1CrossDomainMessenger!),
      l1StandardBridge: addr(ROLE_L1_ADDRESS.l1StandardBridge!),
      l1Erc721Bridge: addr(ROLE_L1_ADDRESS.l1Erc721Bridge!),
      proxyAdminOwner: word((owner + ALIAS_OFFSET) % (1n << 160n)),
      governanceTokenOwner: "",
    };
  };
  const srcRoles = l1Values(src);
  const crossRoles = l1Values(cross);
  /** Role slots: present in the source, equal to the registry's value where it has one. */
  const checkRoles = (name: string, at: "proxy" | "code", st: Record<string, string>, g: LoadedGenesis): void => {
    const want = g === src ? srcRoles : crossRoles;
    for (const r of ROLE_SLOTS.filter((x) => x.contract === name && x.at === at)) {
      const v =
        st[word(BigInt(r.slot))] ??
        fail(`${name} ${at} slot ${r.slot}: empty in ${g === src ? SOURCE.name : CROSS.name}`);
      if (want[r.role] !== "" && v !== want[r.role])
        fail(`${name} ${at} slot ${r.slot} = ${v}, registry ${want[r.role]}`);
    }
  };
  /** Slots that differ between the chains must be role slots. */
  const checkStorageDiff = (name: string, at: "proxy" | "code", addr: string): void => {
    const x = a[addr]?.storage ?? {};
    const y = cross.alloc[addr]?.storage;
    if (y === undefined) return;
    const roles = chainSpecificSlots(name, at);
    for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
      if (x[k] !== y[k] && !roles.has(k)) fail(`${name} ${at} slot 0x${k}: differs between the chains, no role`);
    }
  };

  const impls: Alloc = {};
  const crossImpls: Alloc = {};
  const predeploys: OutContract[] = [];
  for (let i = 0; i < PREDEPLOY_COUNT; i++) {
    if (NOT_PROXIED.has(i)) continue;
    const proxy = predeployAddress(i);
    const st = a[proxy]!.storage ?? {};
    if (st[ADMIN_SLOT] !== PROXY_ADMIN.padStart(64, "0")) fail(`proxy ${proxy}: admin ${st[ADMIN_SLOT]}`);
    const impl = st[IMPLEMENTATION_SLOT];
    const name = PREDEPLOY_NAMES.get(i);
    const rest = Object.keys(st).filter((k) => k !== ADMIN_SLOT && k !== IMPLEMENTATION_SLOT);
    if (impl === undefined) {
      if (rest.length > 0) fail(`proxy ${proxy} without implementation has storage`);
      continue;
    }
    if (name === undefined) fail(`proxy ${proxy} has an implementation but no name here`);
    if (impl !== codeNamespace(i).padStart(64, "0")) fail(`proxy ${proxy}: implementation ${impl}`);
    const implAddr = codeNamespace(i);
    const implAcct = take(implAddr);
    if (OPAL_IMPLEMENTED.has(name)) {
      predeploys.push({
        name,
        address: implAddr,
        proxy,
        code: null,
        nonce: 0,
        storage: {},
        proxyStorage: {},
        storageRoles: [],
        codeWords: [],
        eip712: null,
        from: "Opal's own implementation (src/executor/op/predeploys.ts)",
      });
      continue;
    }
    checkRoles(name, "proxy", st, src);
    checkRoles(name, "code", implAcct.storage ?? {}, src);
    checkStorageDiff(name, "proxy", proxy);
    checkStorageDiff(name, "code", implAddr);
    if (cross.alloc[proxy]?.storage !== undefined) checkRoles(name, "proxy", cross.alloc[proxy]!.storage!, cross);
    const proxyStorage: Record<string, string> = {};
    for (const k of rest) proxyStorage[k] = st[k]!;
    impls[implAddr] = implAcct;
    if (cross.alloc[implAddr]?.code !== undefined) crossImpls[implAddr] = cross.alloc[implAddr]!;
    predeploys.push({
      name,
      address: implAddr,
      proxy,
      code: strip0x(implAcct.code ?? fail(`${name}: implementation without code`)),
      nonce: Number(BigInt(implAcct.nonce ?? 0)),
      storage: neutral(name, "code", implAcct.storage ?? {}),
      proxyStorage: neutral(name, "proxy", proxyStorage),
      storageRoles: ROLE_SLOTS.filter((r) => r.contract === name),
      codeWords: [],
      eip712: null,
      from: SOURCE.name,
    });
  }

  // Not proxied: WETH9 and the GovernanceToken.
  const notProxied: OutContract[] = [];
  for (const [i, name] of NOT_PROXIED) {
    const addr = predeployAddress(i);
    const v = a[addr]!;
    checkRoles(name, "code", v.storage ?? {}, src);
    checkStorageDiff(name, "code", addr);
    impls[addr] = v;
    if (cross.alloc[addr]?.code !== undefined) crossImpls[addr] = cross.alloc[addr]!;
    notProxied.push({
      name,
      address: addr,
      proxy: null,
      code: strip0x(v.code ?? fail(`${name}: no code`)),
      nonce: Number(BigInt(v.nonce ?? 0)),
      storage: neutral(name, "code", v.storage ?? {}),
      proxyStorage: {},
      storageRoles: ROLE_SLOTS.filter((r) => r.contract === name),
      codeWords: [],
      eip712: null,
      from: SOURCE.name,
    });
  }

  // Preinstalls and the 4788 deployer.
  const preinstalls: OutContract[] = [];
  for (const [name, addr] of PREINSTALLS) {
    const v = take(addr);
    if (BigInt(v.nonce ?? 0) !== 1n || BigInt(v.balance ?? 0) !== 0n || Object.keys(v.storage ?? {}).length > 0) {
      fail(`preinstall ${name}: want nonce 1, no balance, no storage`);
    }
    impls[addr] = v;
    if (cross.alloc[addr]?.code !== undefined) crossImpls[addr] = cross.alloc[addr]!;
    preinstalls.push({
      name,
      address: addr,
      proxy: null,
      code: strip0x(v.code ?? fail(`preinstall ${name}: no code`)),
      nonce: 1,
      storage: {},
      proxyStorage: {},
      storageRoles: [],
      codeWords: [],
      eip712: null,
      from: SOURCE.name,
    });
  }
  const sender = take(BEACON_ROOTS_SENDER);
  if (BigInt(sender.nonce ?? 0) !== 1n || sender.code !== undefined)
    fail("BeaconBlockRootsSender: want nonce 1, no code");

  // Every other account of the source is unknown here: stop rather than drop it silently.
  for (const addr of Object.keys(a)) {
    if (seen.has(addr) || addr.startsWith("42000000000000000000000000000000000")) continue;
    fail(`${SOURCE.name}: account ${addr} is neither predeploy, implementation, preinstall nor precompile`);
  }

  // Chain-specific immutables, found and checked against the cross-check chain.
  const srcChain = evmChain(impls);
  const crossChain = evmChain(crossImpls);
  const valuesOf = (c: OutContract, chain: Blockchain, g: LoadedGenesis): Record<string, string> => {
    const out: Record<string, string> = {};
    if (FEE_VAULTS.has(c.name)) Object.assign(out, feeVaultValues(chain, c.address));
    if (c.name === "OptimismMintableERC721Factory") out.l1ChainId = word(g.l1ChainId);
    if (c.eip712 !== null) {
      out.chainId = word(g.chainId);
      out.eip712DomainSeparator = domainSeparator(c.eip712, g.chainId);
    }
    return out;
  };
  const withWords = (c: OutContract): OutContract => {
    if (c.code === null) return c;
    const code = c.code;
    const words: CodeWord[] = [];
    let eip712: Eip712Domain | null = null;
    if (FEE_VAULTS.has(c.name)) {
      for (const [role, v] of Object.entries(feeVaultValues(srcChain, c.address))) {
        words.push({ role: role as CodeRole, offsets: push32Offsets(code, v) });
      }
    } else if (c.name === "OptimismMintableERC721Factory") {
      const remote = run(srcChain, c.address, selector("REMOTE_CHAIN_ID()"));
      if (remote !== word(src.l1ChainId)) fail(`${c.name}: REMOTE_CHAIN_ID ${remote}, L1 chain id ${src.l1ChainId}`);
      words.push({ role: "l1ChainId", offsets: push32Offsets(code, remote) });
    } else {
      const e = findEip712(code, c.address, src.chainId);
      if (e !== null) {
        eip712 = e.domain;
        words.push(...e.words);
      }
    }
    for (const w of words) if (w.offsets.length === 0) fail(`${c.name}: no ${w.role} immutable found`);
    if (words.length === 0 && push32Offsets(code, word(src.chainId)).length > 0) {
      fail(`${c.name}: a chain id word outside a known immutable`);
    }
    const out = { ...c, codeWords: words, eip712 };
    // Against the cross-check chain: the differing words are exactly these, and writing its values
    // into the source code gives its code.
    const other = cross.alloc[c.address]?.code;
    if (other !== undefined) {
      const theirs = strip0x(other);
      const differ = differingWords(code, theirs);
      const covered = new Set(words.flatMap((w) => w.offsets));
      for (const o of differ) if (!covered.has(o)) fail(`${c.name}: code word at ${o} differs between the chains`);
      const patched = patchCode(code, words, valuesOf(out, crossChain, cross));
      if (patched !== theirs)
        fail(`${c.name}: the source code with ${CROSS.name}'s values is not ${CROSS.name}'s code`);
      const again = patchCode(code, words, valuesOf(out, srcChain, src));
      if (again !== code) fail(`${c.name}: rewriting the source's own values changed the code`);
    }
    return out;
  };

  // From the Isthmus upgrade: the OperatorFeeVault implementation and the EIP-2935 contract.
  const ofvCode = run(srcChain, null, ISTHMUS_OPERATOR_FEE_DEPLOYMENT_HEX);
  const historyCode = run(srcChain, null, EIP2935_BLOCK_HASH_HISTORY_DEPLOYMENT_HEX);
  const ofvAt = codeNamespace(0x1b);
  const ofvChain = evmChain({ [ofvAt]: { code: ofvCode } });
  const ofv = feeVaultValues(ofvChain, ofvAt);
  if (
    ofv.feeVaultRecipient !== predeployAddress(0x19).padStart(64, "0") ||
    BigInt(`0x${ofv.feeVaultMinWithdrawalAmount}`) !== 0n ||
    BigInt(`0x${ofv.feeVaultWithdrawalNetwork}`) !== 1n
  ) {
    fail(`OperatorFeeVault: want recipient BaseFeeVault, minimum 0, network L2; got ${JSON.stringify(ofv)}`);
  }
  const isthmus = "the Isthmus upgrade's deployment (src/rollup/derive/upgradeBytecode.ts)";
  predeploys.push({
    name: "OperatorFeeVault",
    address: ofvAt,
    proxy: predeployAddress(0x1b),
    code: ofvCode,
    nonce: 0,
    storage: {},
    proxyStorage: {},
    storageRoles: [],
    codeWords: [],
    eip712: null,
    from: `${isthmus}; its immutables are the spec's: recipient BaseFeeVault, minimum 0, network L2`,
  });
  predeploys.sort((x, y) => (x.proxy! < y.proxy! ? -1 : 1));
  preinstalls.push({
    name: "HistoryStorage",
    address: HISTORY_STORAGE,
    proxy: null,
    code: historyCode,
    nonce: 1,
    storage: {},
    proxyStorage: {},
    storageRoles: [],
    codeWords: [],
    eip712: null,
    from: isthmus,
  });

  return {
    sourceSha256: src.sha256,
    crossSha256: cross.sha256,
    proxyCode,
    predeploys: [...predeploys, ...notProxied].map(withWords),
    preinstalls: preinstalls.map(withWords),
    nonceOnly: [
      { name: "BeaconBlockRootsSender", address: BEACON_ROOTS_SENDER, nonce: 1 },
      { name: "HistoryStorageSender", address: HISTORY_STORAGE_SENDER, nonce: 1 },
    ],
    precompiles,
  };
}

// ---- rendering ------------------------------------------------------------------------------------

/** A 32-byte word as a 0x-quantity (no leading zeros). */
const quantity = (w: string): string => `0x${BigInt(`0x${w}`).toString(16)}`;

function renderRecord(r: Readonly<Record<string, string>>, indent: string): string[] {
  const keys = Object.keys(r).sort();
  if (keys.length === 0) return ["{},"];
  return ["{", ...keys.map((k) => `${indent}  "${quantity(k)}": "${quantity(r[k]!)}",`), `${indent}},`];
}

function renderContract(c: OutContract): string[] {
  const field = (k: string, v: string) => `    ${k}: ${v}`;
  const lines = ["  {", field("name", `${JSON.stringify(c.name)},`), field("address", `"0x${c.address}",`)];
  lines.push(field("proxy", c.proxy === null ? "null," : `"0x${c.proxy}",`));
  lines.push(field("code", c.code === null ? "null," : `"0x${c.code}",`));
  lines.push(field("nonce", `${c.nonce},`));
  const [s0, ...sRest] = renderRecord(c.storage, "    ");
  lines.push(field("storage", s0!), ...sRest);
  const [p0, ...pRest] = renderRecord(c.proxyStorage, "    ");
  lines.push(field("proxyStorage", p0!), ...pRest);
  // Biome prints a one-element array of objects on one line, longer ones one element a line.
  const list = (key: string, items: string[]) => {
    if (items.length === 0) lines.push(field(key, "[],"));
    else if (items.length === 1) lines.push(field(key, `[${items[0]}],`));
    else lines.push(field(key, "["), ...items.map((x) => `      ${x},`), "    ],");
  };
  list(
    "storageRoles",
    c.storageRoles.map((r) => `{ at: "${r.at}", slot: "0x${r.slot.toString(16)}", role: "${r.role}" }`),
  );
  list(
    "codeWords",
    c.codeWords.map((w) => `{ role: "${w.role}", offsets: [${w.offsets.join(", ")}] }`),
  );
  if (c.eip712 === null) lines.push(field("eip712", "null,"));
  else {
    const e = c.eip712;
    lines.push(
      field("eip712", "{"),
      `      typeHash: "0x${e.typeHash}",`,
      `      nameHash: "0x${e.nameHash}",`,
      `      versionHash: ${e.versionHash === null ? "null" : `"0x${e.versionHash}"`},`,
      `      verifyingContract: "0x${e.verifyingContract}",`,
      "    },",
    );
  }
  lines.push("  },");
  return lines;
}

/** The generated module, already in Biome's format so `biome check` passes on it as written. */
export function renderOpGenesisAllocModule(): string {
  const b = buildOpGenesisBundle();
  const all = [...b.predeploys, ...b.preinstalls];
  const bytes = all.reduce((s, c) => s + (c.code === null ? 0 : c.code.length / 2), b.proxyCode.length / 2);
  const lines = [
    "/**",
    " * GENERATED FILE, do not edit: `npm run bundle:op-genesis` (scripts/bundleOpGenesis.ts) writes it from",
    " * fixtures/op-stack/superchain-registry/genesis/ink-mainnet.genesis.json.gz (upstream",
    ` * ${SNAPSHOT},`,
    " * superchain/extra/genesis/mainnet/ink.json.zst, recompressed; fixtures/op-stack/SOURCE.md §1), checked",
    " * against unichain-mainnet.genesis.json.gz. Protocol data: the OP Stack L2 predeploys (the ERC-1967 proxy",
    " * at 0x4200…0000–07ff, admin the ProxyAdmin 0x4200…0018; the implementations in the 0xc0d3c0d3… code",
    " * namespace with their initialised storage) and the preinstalls (specs protocol/preinstalls.md,",
    " * contracts-bedrock Preinstalls.sol), plus the Isthmus upgrade's OperatorFeeVault and EIP-2935 history",
    " * storage. `null` code: the implementation is Opal's own (L1Block, GasPriceOracle). Chain-specific values",
    " * are left out and named: `storageRoles` (slots of the proxy or code account) and `codeWords` (immutables,",
    " * byte offsets of 32-byte words in `code`, here holding Ink's values); `eip712` is the cached domain whose",
    " * chain id and separator `codeWords` hold. devGenesis.ts `opDevGenesis` fills them for the dev chain.",
    " * Input sha256 (decompressed):",
    ` * - ink-mainnet ${b.sourceSha256}`,
    ` * - unichain-mainnet ${b.crossSha256}`,
    ` * ${b.predeploys.length} predeploys, ${b.preinstalls.length} preinstalls; ${bytes} bytes of distinct code.`,
    " */",
    "",
    "/** A chain-specific immutable: the byte offsets of its 32-byte words in the runtime code. */",
    "export interface GenesisCodeWord {",
    "  readonly role:",
    '    | "chainId"',
    '    | "eip712DomainSeparator"',
    '    | "feeVaultRecipient"',
    '    | "feeVaultMinWithdrawalAmount"',
    '    | "feeVaultWithdrawalNetwork"',
    '    | "l1ChainId";',
    "  readonly offsets: readonly number[];",
    "}",
    "",
    "/** A chain-specific storage slot, of the proxy or of the account holding the code. */",
    "export interface GenesisStorageRole {",
    '  readonly at: "proxy" | "code";',
    "  readonly slot: string;",
    "  readonly role:",
    '    | "l1CrossDomainMessenger"',
    '    | "l1StandardBridge"',
    '    | "l1Erc721Bridge"',
    '    | "proxyAdminOwner"',
    '    | "governanceTokenOwner";',
    "}",
    "",
    "/** The cached EIP-712 domain of a contract: its separator is recomputed for the chain id. */",
    "export interface GenesisEip712Domain {",
    "  readonly typeHash: string;",
    "  readonly nameHash: string;",
    "  readonly versionHash: string | null;",
    "  readonly verifyingContract: string;",
    "}",
    "",
    "/** One contract of the genesis (0x-hex, lower case; storage slot → value, 32-byte words). */",
    "export interface GenesisContract {",
    "  readonly name: string;",
    "  /** The account holding the code: the implementation of a proxied predeploy. */",
    "  readonly address: string;",
    "  /** The 0x4200… proxy in front of it, null when not proxied. */",
    "  readonly proxy: string | null;",
    "  /** Runtime code; null: Opal's own implementation goes there. */",
    "  readonly code: string | null;",
    "  readonly nonce: number;",
    "  readonly storage: Readonly<Record<string, string>>;",
    "  /** Storage of the proxy besides its ERC-1967 admin and implementation slots. */",
    "  readonly proxyStorage: Readonly<Record<string, string>>;",
    "  readonly storageRoles: readonly GenesisStorageRole[];",
    "  readonly codeWords: readonly GenesisCodeWord[];",
    "  readonly eip712: GenesisEip712Domain | null;",
    "}",
    "",
    "/** contracts-bedrock Predeploys.sol PREDEPLOY_COUNT: the proxies span 0x4200…0000 through 0x4200…07ff. */",
    `export const PREDEPLOY_COUNT = ${PREDEPLOY_COUNT};`,
    "",
    "/** Addresses 0x00…00 through 0x00…ff hold 1 wei each (L2Genesis `dealEthToPrecompiles`). */",
    `export const PRECOMPILE_BALANCE_COUNT = ${b.precompiles};`,
    "",
    "/** ERC-1967 admin slot, bytes32(uint256(keccak256('eip1967.proxy.admin')) - 1). */",
    `export const EIP1967_ADMIN_SLOT = "0x${ADMIN_SLOT}";`,
    "",
    "/** ERC-1967 implementation slot, bytes32(uint256(keccak256('eip1967.proxy.implementation')) - 1). */",
    `export const EIP1967_IMPLEMENTATION_SLOT = "0x${IMPLEMENTATION_SLOT}";`,
    "",
    "/** The L2 ProxyAdmin predeploy, admin of every proxy. */",
    `export const PROXY_ADMIN_ADDRESS = "0x${PROXY_ADMIN}";`,
    "",
    "/** Runtime code of contracts-bedrock Proxy.sol, at every proxied 0x4200… address. */",
    "export const PROXY_RUNTIME_HEX =",
    `  "0x${b.proxyCode}";`,
    "",
    "/** The predeploys with code: the proxied ones (by proxy address), then WETH9 and GovernanceToken. */",
    "export const OP_GENESIS_PREDEPLOYS: readonly GenesisContract[] = [",
  ];
  for (const c of b.predeploys) lines.push(...renderContract(c));
  lines.push(
    "];",
    "",
    "/** The preinstalls (nonce 1, as L2Genesis `_setPreinstallCode` sets them). */",
    "export const OP_GENESIS_PREINSTALLS: readonly GenesisContract[] = [",
  );
  for (const c of b.preinstalls) lines.push(...renderContract(c));
  lines.push(
    "];",
    "",
    "/** An account that holds only a nonce. */",
    "export interface GenesisNonce {",
    "  readonly name: string;",
    "  readonly address: string;",
    "  readonly nonce: number;",
    "}",
    "",
    "/** Deployers at nonce 1, so that the Ecotone and Isthmus upgrade deposits do not collide with the preinstalls. */",
    "export const OP_GENESIS_NONCES: readonly GenesisNonce[] = [",
  );
  for (const n of b.nonceOnly) lines.push(`  { name: "${n.name}", address: "0x${n.address}", nonce: ${n.nonce} },`);
  lines.push("];", "");
  return lines.join("\n");
}

/** True when src/node/exec/opGenesisAlloc.ts equals what the fixtures generate. */
export function opGenesisAllocUpToDate(): boolean {
  return (
    existsSync(OP_GENESIS_ALLOC_FILE) && readFileSync(OP_GENESIS_ALLOC_FILE, "utf8") === renderOpGenesisAllocModule()
  );
}

function main(argv: string[]): number {
  const text = renderOpGenesisAllocModule();
  if (argv.includes("--check")) {
    const current = existsSync(OP_GENESIS_ALLOC_FILE) ? readFileSync(OP_GENESIS_ALLOC_FILE, "utf8") : "";
    if (current !== text) {
      console.error("src/node/exec/opGenesisAlloc.ts is out of date: run npm run bundle:op-genesis");
      return 1;
    }
    console.log("src/node/exec/opGenesisAlloc.ts is up to date");
    return 0;
  }
  writeFileSync(OP_GENESIS_ALLOC_FILE, text);
  console.log("wrote src/node/exec/opGenesisAlloc.ts");
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = main(process.argv.slice(2));
}
