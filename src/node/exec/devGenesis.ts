/**
 * Dev chain genesis documents. `l1DevGenesis`: the single-node L1 chain of `opal-exec --dev`, as
 * geth's DeveloperGenesisBlock (core/genesis.go, params.AllDevChainProtocolChanges, v1.16.7): chain id
 * 1337, every fork through Osaka at genesis (Prague's blob numbers for Osaka, no BPO forks), 1 gwei
 * base fee, precompiles 0x01–0x11 and 0x100 holding 1 wei, the EIP-4788/2935/7002/7251 system
 * contracts (code below, from the EEST v5.4.0 Prague fixtures' `pre`), the mainnet deposit contract
 * address in the config (geth's dev genesis also leaves its code out), and funded dev accounts.
 * `opDevGenesis`: the `opal-exec genesis` OP Stack dev chain, with the predeploys and preinstalls of a
 * real OP genesis (`opPredeployAlloc`, data in opGenesisAlloc.ts).
 * Dev accounts are the BIP-44 keys m/44'/60'/0'/0/i of the well-known test mnemonic that
 * anvil and hardhat use, so tools and docs that know those accounts work unchanged.
 */
import { createHmac, pbkdf2Sync } from "node:crypto";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { encodeHoloceneExtraData, encodeJovianExtraData } from "../../block/opExtraData.js";
import { keccak256 } from "../../crypto/keccak.js";
import { privateKeyToAddress } from "../../crypto/secp256k1.js";
import {
  gasPriceOracleGenesisStorage,
  gasPriceOracleRuntimeCode,
  l1BlockRuntimeCode,
  l1BlockStorage,
} from "../../executor/op/predeploys.js";
import { toChecksumAddress } from "../../primitives/address.js";
import { concatBytes, utf8ToBytes } from "../../primitives/bytes.js";
import { bytesToHex, bytesToHexRaw, hexToBytes } from "../../primitives/hex.js";
import { bigintToBytes32, bytesToBigint } from "../../primitives/u256.js";
import { OpFork } from "../../spec/forks.js";
import {
  DA_FOOTPRINT_GAS_SCALAR_DEFAULT,
  type L1BlockInfo,
  L1InfoFormat,
  newL1BlockInfo,
} from "../../tx/l1BlockInfo.js";
import {
  EIP1967_ADMIN_SLOT,
  EIP1967_IMPLEMENTATION_SLOT,
  type GenesisCodeWord,
  type GenesisContract,
  type GenesisEip712Domain,
  type GenesisStorageRole,
  OP_GENESIS_NONCES,
  OP_GENESIS_PREDEPLOYS,
  OP_GENESIS_PREINSTALLS,
  PRECOMPILE_BALANCE_COUNT,
  PREDEPLOY_COUNT,
  PROXY_ADMIN_ADDRESS,
  PROXY_RUNTIME_HEX,
} from "./opGenesisAlloc.js";

export const DEV_CHAIN_ID = 1337n;
export const DEV_MNEMONIC = "test test test test test test test test test test test junk";
export const DEV_ACCOUNT_COUNT = 10;
/** 10,000 ether per dev account (anvil's default). */
export const DEV_BALANCE = 10_000n * 10n ** 18n;
/** geth params.InitialBaseFee. */
const INITIAL_BASE_FEE = 1_000_000_000n;
/** Ethereum mainnet deposit contract: AllDevChainProtocolChanges.DepositContractAddress. */
export const DEPOSIT_CONTRACT_ADDRESS = "0x00000000219ab540356cbb839cbe05303d7705fa";

/** A system contract of the dev genesis: address and runtime code (nonce 1, as geth allocates them). */
export interface SystemContract {
  readonly name: string;
  readonly address: string;
  readonly code: string;
}

// Protocol data: the runtime code each EIP specifies, byte for byte as in the EEST v5.4.0 Prague
// fixtures' `pre` (e.g. prague/eip7623_increase_calldata_cost/test_eip_7623.json); the test checks
// their code hashes.
export const SYSTEM_CONTRACTS: readonly SystemContract[] = Object.freeze([
  {
    name: "EIP-4788 beacon roots",
    address: "0x000f3df6d732807ef1319fb7b8bb8522d0beac02",
    code: "0x3373fffffffffffffffffffffffffffffffffffffffe14604d57602036146024575f5ffd5b5f35801560495762001fff810690815414603c575f5ffd5b62001fff01545f5260205ff35b5f5ffd5b62001fff42064281555f359062001fff015500",
  },
  {
    name: "EIP-2935 history storage",
    address: "0x0000f90827f1c53a10cb7a02335b175320002935",
    code: "0x3373fffffffffffffffffffffffffffffffffffffffe14604657602036036042575f35600143038111604257611fff81430311604257611fff9006545f5260205ff35b5f5ffd5b5f35611fff60014303065500",
  },
  {
    name: "EIP-7002 withdrawal requests",
    address: "0x00000961ef480eb55e80d19ad83579a64c007002",
    code: "0x3373fffffffffffffffffffffffffffffffffffffffe1460cb5760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff146101f457600182026001905f5b5f82111560685781019083028483029004916001019190604d565b909390049250505036603814608857366101f457346101f4575f5260205ff35b34106101f457600154600101600155600354806003026004013381556001015f35815560010160203590553360601b5f5260385f601437604c5fa0600101600355005b6003546002548082038060101160df575060105b5f5b8181146101835782810160030260040181604c02815460601b8152601401816001015481526020019060020154807fffffffffffffffffffffffffffffffff00000000000000000000000000000000168252906010019060401c908160381c81600701538160301c81600601538160281c81600501538160201c81600401538160181c81600301538160101c81600201538160081c81600101535360010160e1565b910180921461019557906002556101a0565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff14156101cd57505f5b6001546002828201116101e25750505f6101e8565b01600290035b5f555f600155604c025ff35b5f5ffd",
  },
  {
    name: "EIP-7251 consolidation requests",
    address: "0x0000bbddc7ce488642fb579f8b00f3a590007251",
    code: "0x3373fffffffffffffffffffffffffffffffffffffffe1460d35760115f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff1461019a57600182026001905f5b5f82111560685781019083028483029004916001019190604d565b9093900492505050366060146088573661019a573461019a575f5260205ff35b341061019a57600154600101600155600354806004026004013381556001015f358155600101602035815560010160403590553360601b5f5260605f60143760745fa0600101600355005b6003546002548082038060021160e7575060025b5f5b8181146101295782810160040260040181607402815460601b815260140181600101548152602001816002015481526020019060030154905260010160e9565b910180921461013b5790600255610146565b90505f6002555f6003555b5f54807fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff141561017357505f5b6001546001828201116101885750505f61018e565b01600190035b5f555f6001556074025ff35b5f5ffd",
  },
]);

export interface DevAccount {
  readonly address: Uint8Array;
  readonly privateKey: Uint8Array;
}

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HARDENED = 0x8000_0000;

function to32(v: bigint): Uint8Array {
  return Uint8Array.from(Buffer.from(v.toString(16).padStart(64, "0"), "hex"));
}

/**
 * BIP-32 child key derivation (private parent → private child). `parentPublic`: the parent's
 * compressed public key when the caller has it (a non-hardened child needs it; siblings share it).
 */
function childKey(
  key: Uint8Array,
  chainCode: Uint8Array,
  index: number,
  parentPublic?: Uint8Array,
): { key: Uint8Array; chainCode: Uint8Array } {
  const data = new Uint8Array(37);
  if (index >= HARDENED) data.set(key, 1);
  else data.set(parentPublic ?? secp256k1.getPublicKey(key, true), 0);
  new DataView(data.buffer).setUint32(33, index);
  const i = new Uint8Array(createHmac("sha512", chainCode).update(data).digest());
  const child = (bytesToBigint(i.subarray(0, 32)) + bytesToBigint(key)) % N;
  return { key: to32(child), chainCode: i.subarray(32) };
}

/** The first `count` accounts of `mnemonic` at m/44'/60'/0'/0/i (BIP-39 seed, no passphrase). */
export function devAccounts(count = DEV_ACCOUNT_COUNT, mnemonic = DEV_MNEMONIC): DevAccount[] {
  const seed = pbkdf2Sync(mnemonic.normalize("NFKD"), "mnemonic", 2048, 64, "sha512");
  const master = new Uint8Array(createHmac("sha512", "Bitcoin seed").update(seed).digest());
  let node: { key: Uint8Array; chainCode: Uint8Array } = {
    key: master.subarray(0, 32),
    chainCode: master.subarray(32),
  };
  for (const i of [44 + HARDENED, 60 + HARDENED, HARDENED, 0]) node = childKey(node.key, node.chainCode, i);
  const out: DevAccount[] = [];
  // PERF: one public key of the parent for all its children, not one per child (~40% of the time).
  const parentPublic = secp256k1.getPublicKey(node.key, true);
  for (let i = 0; i < count; i++) {
    const k = childKey(node.key, node.chainCode, i, parentPublic).key;
    out.push({ address: privateKeyToAddress(k), privateKey: k });
  }
  return out;
}

const qty = (v: bigint | number): string => `0x${v.toString(16)}`;

function fundedAlloc(accounts: readonly DevAccount[], balance: bigint): Record<string, unknown> {
  const alloc: Record<string, unknown> = {};
  for (const a of accounts) alloc[bytesToHex(a.address)] = { balance: qty(balance) };
  return alloc;
}

/** Every block-numbered L1 fork at genesis (geth's pre-Shanghai fork blocks, all at 0): dev and test chains. */
export const BLOCK_FORKS_AT_ZERO = {
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
};

/** Options of `l1DevGenesis`. */
export interface L1DevGenesisOptions {
  /**
   * When Osaka activates (Unix seconds; default 0, at genesis, as geth --dev since v1.16.7 whose
   * AllDevChainProtocolChanges sets OsakaTime 0); null: a Prague chain without Osaka.
   */
  readonly osakaTime?: number | null;
}

/** geth params.DefaultPragueBlobConfig, which DefaultOsakaBlobConfig repeats (v1.16.7). */
const PRAGUE_BLOBS = { target: 6, max: 9, baseFeeUpdateFraction: 5007716 };

/** The `--dev` L1 genesis (geth DeveloperGenesisBlock with Opal's funded accounts). */
export function l1DevGenesis(
  gasLimit: bigint,
  accounts: readonly DevAccount[] = devAccounts(),
  opts: L1DevGenesisOptions = {},
): Record<string, unknown> {
  const osakaTime = opts.osakaTime === undefined ? 0 : opts.osakaTime;
  const alloc: Record<string, unknown> = {};
  // geth v1.16.7 DeveloperGenesisBlock: ECRecover 0x01 through BLS12_MAP_FP2_TO_G2 0x11, and P256Verify 0x100.
  for (const i of [...Array.from({ length: 0x11 }, (_, k) => k + 1), 0x100]) {
    alloc[`0x${i.toString(16).padStart(40, "0")}`] = { balance: "0x1" };
  }
  for (const c of SYSTEM_CONTRACTS) alloc[c.address] = { balance: "0x0", nonce: "0x1", code: c.code };
  Object.assign(alloc, fundedAlloc(accounts, DEV_BALANCE));
  return l1ForksGenesis(Number(DEV_CHAIN_ID), alloc, {
    gasLimit,
    osakaTime,
    config: { depositContractAddress: DEPOSIT_CONTRACT_ADDRESS },
  });
}

/**
 * A genesis with every L1 fork through Prague at block 0, and Osaka at `osakaTime` (default: none),
 * with geth's blob schedules; `config` adds fields to the chain config. The shape of geth's dev
 * genesis, for `--dev` and for tools that run code on a plain L1 EVM.
 */
export function l1ForksGenesis(
  chainId: number,
  alloc: Record<string, unknown>,
  o: { gasLimit?: bigint; osakaTime?: number | null; config?: Record<string, unknown> } = {},
): Record<string, unknown> {
  const osakaTime = o.osakaTime ?? null;
  return {
    config: {
      chainId,
      ...BLOCK_FORKS_AT_ZERO,
      terminalTotalDifficulty: 0,
      shanghaiTime: 0,
      cancunTime: 0,
      pragueTime: 0,
      ...(osakaTime === null ? {} : { osakaTime }),
      ...o.config,
      blobSchedule: {
        cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
        prague: PRAGUE_BLOBS,
        ...(osakaTime === null ? {} : { osaka: PRAGUE_BLOBS }),
      },
    },
    nonce: "0x0",
    timestamp: "0x0",
    extraData: "0x",
    gasLimit: qty(o.gasLimit ?? 30_000_000n),
    difficulty: "0x0",
    baseFeePerGas: qty(INITIAL_BASE_FEE),
    alloc,
  };
}

/**
 * Fee parameters of the synthetic L1 origin on OP dev chains: OP Mainnet's post-Ecotone scalars,
 * a 1 gwei L1 base fee and a 1 wei blob base fee (the Bedrock format's overhead and scalar are OP
 * Mainnet's pre-Ecotone values). No operator fee.
 */
export const DEV_L1_ORIGIN = Object.freeze({
  baseFee: 1_000_000_000n,
  blobBaseFee: 1n,
  baseFeeScalar: 1368,
  blobBaseFeeScalar: 810_949,
  l1FeeOverhead: 188n,
  l1FeeScalar: 684_000n,
});

const DEV_L1_HASH_TAG = utf8ToBytes("opal dev L1 origin");

/**
 * The synthetic L1 origin `number` of OP dev blocks, in calldata `format`: hash keccak("opal dev L1
 * origin" ‖ number), sequence number 0 (one L1 block per L2 block), the `DEV_L1_ORIGIN` fees.
 */
export function devL1Info(format: L1InfoFormat, number: bigint, timestamp: bigint): L1BlockInfo {
  const bedrock = format === L1InfoFormat.Bedrock;
  return newL1BlockInfo({
    format,
    number,
    timestamp,
    baseFee: DEV_L1_ORIGIN.baseFee,
    blobBaseFee: bedrock ? 0n : DEV_L1_ORIGIN.blobBaseFee,
    hash: keccak256(concatBytes(DEV_L1_HASH_TAG, bigintToBytes32(number))),
    l1FeeOverhead: bedrock ? DEV_L1_ORIGIN.l1FeeOverhead : 0n,
    l1FeeScalar: bedrock ? DEV_L1_ORIGIN.l1FeeScalar : 0n,
    baseFeeScalar: bedrock ? 0 : DEV_L1_ORIGIN.baseFeeScalar,
    blobBaseFeeScalar: bedrock ? 0 : DEV_L1_ORIGIN.blobBaseFeeScalar,
    daFootprintGasScalar: format === L1InfoFormat.Jovian ? DA_FOOTPRINT_GAS_SCALAR_DEFAULT : 0,
  });
}

/**
 * A few OP predeploy proxies of the dev genesis by name (the genesis holds all of them, opGenesisAlloc.ts);
 * behind L1Block and GasPriceOracle sit Opal's own contracts (contracts/).
 */
export const OP_DEV_PREDEPLOYS: Readonly<Record<string, string>> = Object.freeze({
  GasPriceOracle: "0x420000000000000000000000000000000000000f",
  L1Block: "0x4200000000000000000000000000000000000015",
  L2ToL1MessagePasser: "0x4200000000000000000000000000000000000016",
  SequencerFeeVault: "0x4200000000000000000000000000000000000011",
  BaseFeeVault: "0x4200000000000000000000000000000000000019",
  L1FeeVault: "0x420000000000000000000000000000000000001a",
  OperatorFeeVault: "0x420000000000000000000000000000000000001b",
});

/** The OP forks `opDevGenesis` can put last at genesis (`opal-exec genesis --fork`). */
export const OP_DEV_GENESIS_FORKS = ["isthmus", "jovian", "karst"] as const;
export type OpDevGenesisFork = (typeof OP_DEV_GENESIS_FORKS)[number];

export interface OpDevGenesisOptions {
  readonly chainId: bigint;
  /** Genesis timestamp, Unix seconds (default now: a rollup node starting on it does not replay hours of empty blocks). */
  readonly timestamp?: number;
  readonly gasLimit?: bigint;
  readonly accounts?: readonly DevAccount[];
  /** The newest OP fork active at genesis, every earlier one too (default isthmus). */
  readonly fork?: OpDevGenesisFork;
  /**
   * Owner of the L2 ProxyAdmin (and so of every predeploy proxy) and of the GovernanceToken, and the
   * fee vaults' recipient (default: the first dev account).
   */
  readonly owner?: Uint8Array;
  /** Chain id of the L1 (OptimismMintableERC721Factory's remote chain; default 1337, the `--dev` L1's). */
  readonly l1ChainId?: bigint;
  /** The L1 contracts the L2 messenger and bridges point at (default none: the zero address). */
  readonly l1Contracts?: OpDevL1Contracts;
}

/** L1 counterparts of the L2 messenger and bridges (their `otherMessenger` / `otherBridge`). */
export interface OpDevL1Contracts {
  readonly crossDomainMessenger?: Uint8Array;
  readonly standardBridge?: Uint8Array;
  readonly erc721Bridge?: Uint8Array;
}

/** A fee vault's immutables (contracts-bedrock FeeVault.sol: RECIPIENT, MIN_WITHDRAWAL_AMOUNT, WITHDRAWAL_NETWORK). */
export interface OpFeeVaultConfig {
  readonly recipient: Uint8Array;
  readonly minWithdrawalAmount: bigint;
  /** 0: withdraw to L1 (through the L2StandardBridge), 1: pay the recipient on L2. */
  readonly withdrawalNetwork: bigint;
}

/** The fee vaults whose immutables a genesis chooses (the OperatorFeeVault's are fixed by the Isthmus spec). */
export type OpFeeVaultName = "SequencerFeeVault" | "BaseFeeVault" | "L1FeeVault";

/**
 * The fee vaults' settings on dev chains, op-deployer's defaults (state/deploy_config.go: a 10 ether
 * minimum, withdrawal network "local", i.e. L2): `withdraw()` pays the recipient on L2, which also
 * suits the devnet, whose L1 portal takes deposits only.
 */
export const OP_DEV_FEE_VAULT = Object.freeze({ minWithdrawalAmount: 10n * 10n ** 18n, withdrawalNetwork: 1n });

const word = (v: bigint): string => v.toString(16).padStart(64, "0");

/** `c.code` with its chain-specific immutables set (opGenesisAlloc.ts `codeWords`). */
function codeFor(c: GenesisContract, values: Readonly<Record<GenesisCodeWord["role"], string>>): string {
  let hex = c.code!;
  for (const w of c.codeWords) {
    const v = values[w.role];
    if (v.length !== 64) throw new Error(`opPredeployAlloc: ${c.name} has no ${w.role} value`);
    for (const o of w.offsets) hex = `${hex.slice(0, 2 + o * 2)}${v}${hex.slice(2 + o * 2 + 64)}`;
  }
  return hex;
}

/** The separator of an EIP-712 domain cached in code, for `chainId`. */
function domainSeparator(d: GenesisEip712Domain, chainId: bigint): string {
  const parts = [d.typeHash, d.nameHash, ...(d.versionHash === null ? [] : [d.versionHash])].map(hexToBytes);
  const verifying = bigintToBytes32(BigInt(d.verifyingContract));
  return bytesToHexRaw(keccak256(concatBytes(...parts, bigintToBytes32(chainId), verifying)));
}

/** Options of `opPredeployAlloc`: the values op-deployer's L2Genesis takes from a chain's deploy config. */
export interface OpPredeployAllocOptions {
  readonly chainId: bigint;
  /** OptimismMintableERC721Factory's REMOTE_CHAIN_ID. */
  readonly l1ChainId: bigint;
  /** Owner of the L2 ProxyAdmin, and so admin of every predeploy proxy. */
  readonly proxyAdminOwner: Uint8Array;
  /** Owner of the GovernanceToken at 0x4200…0042; null: no token (L2Genesis without `enableGovernance`). */
  readonly governanceTokenOwner: Uint8Array | null;
  readonly feeVaults: Readonly<Record<OpFeeVaultName, OpFeeVaultConfig>>;
  readonly l1Contracts: OpDevL1Contracts;
  /** L1Block's storage (the L1 attributes at genesis) and GasPriceOracle's (its fork flags), in their proxies. */
  readonly l1BlockStorage: readonly (readonly [bigint, bigint])[];
  readonly gasPriceOracleStorage: readonly (readonly [bigint, bigint])[];
}

/**
 * The OP Stack L2 genesis accounts of a real chain (opGenesisAlloc.ts, from op-deployer's Ink
 * mainnet genesis), initialised for this chain as op-deployer's L2Genesis does: the 1-wei
 * precompile balances; the proxy at every 0x4200…0000–07ff address but WETH9 and GovernanceToken,
 * admin the ProxyAdmin, pointing at the 0xc0d3c0d3… implementation where there is one; the
 * initialised proxy storage (messenger and bridges pointing at `l1Contracts`, the ProxyAdmin's
 * owner); the fee vaults' recipient, minimum and network and the OptimismMintableERC721Factory's
 * L1 chain id, as immutables written into their code; Permit2's, EAS's and GovernanceToken's cached
 * EIP-712 chain id and domain separator for `chainId`; the preinstalls at nonce 1 and their
 * deployers' nonces. L1Block and GasPriceOracle: Opal's contracts behind the proxies (the real ones
 * replace them through `upgradeTo` when a later fork's upgrade deposits run), with the given storage.
 */
export function opPredeployAlloc(o: OpPredeployAllocOptions): Record<string, unknown> {
  const alloc: Record<string, Record<string, unknown>> = {};
  for (let i = 0; i < PRECOMPILE_BALANCE_COUNT; i++)
    alloc[`0x${i.toString(16).padStart(40, "0")}`] = { balance: "0x1" };
  const addressValue = (a: Uint8Array | undefined): bigint => (a === undefined ? 0n : bytesToBigint(a));
  const roleValue: Readonly<Record<GenesisStorageRole["role"], bigint>> = {
    l1CrossDomainMessenger: addressValue(o.l1Contracts.crossDomainMessenger),
    l1StandardBridge: addressValue(o.l1Contracts.standardBridge),
    l1Erc721Bridge: addressValue(o.l1Contracts.erc721Bridge),
    proxyAdminOwner: bytesToBigint(o.proxyAdminOwner),
    governanceTokenOwner: addressValue(o.governanceTokenOwner ?? undefined),
  };
  const notProxied = new Set(OP_GENESIS_PREDEPLOYS.filter((c) => c.proxy === null).map((c) => c.address));
  for (let i = 0; i < PREDEPLOY_COUNT; i++) {
    const addr = `0x42${i.toString(16).padStart(38, "0")}`;
    if (notProxied.has(addr)) continue;
    const storage: Record<string, string> = { [EIP1967_ADMIN_SLOT]: PROXY_ADMIN_ADDRESS };
    alloc[addr] = { balance: "0x0", code: PROXY_RUNTIME_HEX, storage };
  }
  const opal: Readonly<Record<string, { code: Uint8Array; storage: readonly (readonly [bigint, bigint])[] }>> = {
    L1Block: { code: l1BlockRuntimeCode(), storage: o.l1BlockStorage },
    GasPriceOracle: { code: gasPriceOracleRuntimeCode(), storage: o.gasPriceOracleStorage },
  };
  const chainWords = (c: GenesisContract): Record<GenesisCodeWord["role"], string> => {
    const vault = o.feeVaults[c.name as OpFeeVaultName] as OpFeeVaultConfig | undefined;
    return {
      chainId: word(o.chainId),
      eip712DomainSeparator: c.eip712 === null ? "" : domainSeparator(c.eip712, o.chainId),
      feeVaultRecipient: vault === undefined ? "" : word(bytesToBigint(vault.recipient)),
      feeVaultMinWithdrawalAmount: vault === undefined ? "" : word(vault.minWithdrawalAmount),
      feeVaultWithdrawalNetwork: vault === undefined ? "" : word(vault.withdrawalNetwork),
      l1ChainId: word(o.l1ChainId),
    };
  };
  for (const c of [...OP_GENESIS_PREDEPLOYS, ...OP_GENESIS_PREINSTALLS]) {
    if (c.name === "GovernanceToken" && o.governanceTokenOwner === null) continue;
    const own = opal[c.name];
    const account: Record<string, unknown> = {
      balance: "0x0",
      ...(c.nonce === 0 ? {} : { nonce: qty(c.nonce) }),
      code: own === undefined ? codeFor(c, chainWords(c)) : bytesToHex(own.code),
      storage: { ...c.storage },
    };
    alloc[c.address] = account;
    const proxyStorage = c.proxy === null ? null : (alloc[c.proxy]!.storage as Record<string, string>);
    if (proxyStorage !== null) {
      proxyStorage[EIP1967_IMPLEMENTATION_SLOT] = c.address;
      Object.assign(proxyStorage, c.proxyStorage);
      for (const [k, v] of own?.storage ?? []) proxyStorage[qty(k)] = qty(v);
    }
    for (const r of c.storageRoles) {
      const into = r.at === "proxy" ? proxyStorage! : (account.storage as Record<string, string>);
      into[r.slot] = qty(roleValue[r.role]);
    }
  }
  for (const n of OP_GENESIS_NONCES) alloc[n.address] = { balance: "0x0", nonce: qty(n.nonce) };
  return alloc;
}

/** OP EIP-1559 parameters of the OP Stack's dev and production chains. */
const OP_ELASTICITY = 6;
const OP_DENOMINATOR = 50;
const OP_DENOMINATOR_CANYON = 250;

/**
 * The `opal-exec genesis` document: an OP Stack L2 with every OP fork through Isthmus (or `o.fork`:
 * Jovian, Karst) at genesis, the full predeploy and preinstall set of a real OP genesis
 * (`opPredeployAlloc`: proxies, implementations, preinstalls; owner, vault recipient and L1 chain as
 * `o` gives them) with Opal's compiled L1Block and GasPriceOracle behind their proxies (the GPO's
 * Ecotone/Fjord/Isthmus(/Jovian) flags set, L1Block holding the synthetic L1 origin 0 of `devL1Info`
 * in the fork's calldata format), and the funded dev accounts. Holocene at genesis puts the EIP-1559 parameters in
 * extraData, Jovian its 17-byte form (with a zero minimum base fee). Karst also sets `osakaTime`,
 * as op-geth's and op-reth's superchain configs pin Osaka to Karst (op-reth chainspec
 * superchain/chain_metadata.rs: "Osaka activates with Karst").
 */
export function opDevGenesis(o: OpDevGenesisOptions): Record<string, unknown> {
  const fork = o.fork ?? "isthmus";
  const op = fork === "karst" ? OpFork.Karst : fork === "jovian" ? OpFork.Jovian : OpFork.Isthmus;
  const timestamp = o.timestamp ?? Math.floor(Date.now() / 1000);
  const accounts = o.accounts ?? devAccounts();
  // L1Block starts with the synthetic origin 0, so fee estimates work before the first block.
  const format = op >= OpFork.Jovian ? L1InfoFormat.Jovian : L1InfoFormat.Isthmus;
  const owner = o.owner ?? accounts[0]?.address ?? new Uint8Array(20);
  const vault: OpFeeVaultConfig = { recipient: owner, ...OP_DEV_FEE_VAULT };
  const alloc = opPredeployAlloc({
    chainId: o.chainId,
    l1ChainId: o.l1ChainId ?? DEV_CHAIN_ID,
    proxyAdminOwner: owner,
    governanceTokenOwner: owner,
    feeVaults: { SequencerFeeVault: vault, BaseFeeVault: vault, L1FeeVault: vault },
    l1Contracts: o.l1Contracts ?? {},
    l1BlockStorage: l1BlockStorage(devL1Info(format, 0n, BigInt(timestamp))),
    gasPriceOracleStorage: gasPriceOracleGenesisStorage(op),
  });
  Object.assign(alloc, fundedAlloc(accounts, DEV_BALANCE));
  return {
    config: {
      chainId: Number(o.chainId),
      ...BLOCK_FORKS_AT_ZERO,
      bedrockBlock: 0,
      terminalTotalDifficulty: 0,
      terminalTotalDifficultyPassed: true,
      shanghaiTime: 0,
      cancunTime: 0,
      pragueTime: 0,
      regolithTime: 0,
      canyonTime: 0,
      deltaTime: 0,
      ecotoneTime: 0,
      fjordTime: 0,
      graniteTime: 0,
      holoceneTime: 0,
      isthmusTime: 0,
      ...(op >= OpFork.Jovian ? { jovianTime: 0 } : {}),
      ...(op >= OpFork.Karst ? { karstTime: 0, osakaTime: 0 } : {}),
      optimism: {
        eip1559Elasticity: OP_ELASTICITY,
        eip1559Denominator: OP_DENOMINATOR,
        eip1559DenominatorCanyon: OP_DENOMINATOR_CANYON,
      },
    },
    nonce: "0x0",
    timestamp: qty(timestamp),
    extraData: bytesToHex(
      op >= OpFork.Jovian
        ? encodeJovianExtraData(OP_DENOMINATOR_CANYON, OP_ELASTICITY, 0n)
        : encodeHoloceneExtraData(OP_DENOMINATOR_CANYON, OP_ELASTICITY),
    ),
    gasLimit: qty(o.gasLimit ?? 30_000_000n),
    difficulty: "0x0",
    baseFeePerGas: qty(INITIAL_BASE_FEE),
    alloc,
  };
}

/** anvil-style listing of the dev accounts: checksummed address and private key. */
export function formatDevAccounts(accounts: readonly DevAccount[], balanceWei: bigint = DEV_BALANCE): string {
  const eth = balanceWei / 10n ** 18n;
  const lines = ["", "Available Accounts", "=================="];
  for (const [i, a] of accounts.entries()) lines.push(`(${i}) ${toChecksumAddress(a.address)} (${eth} ETH)`);
  lines.push("", "Private Keys", "==================");
  for (const [i, a] of accounts.entries()) lines.push(`(${i}) ${bytesToHex(a.privateKey)}`);
  lines.push("");
  return lines.join("\n");
}
