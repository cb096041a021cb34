/**
 * Network-upgrade transactions: the deposits the rollup node puts into the first L2 block of a
 * hard fork, after the L1-info deposit and the user deposits (op-stack.md §2.8, §2.12). SPEC:
 * specs/protocol/{ecotone,fjord,isthmus,jovian}/derivation.md "Network upgrade automation
 * transactions"; op-node rollup/derive/{ecotone,fjord,isthmus,jovian}_upgrade_transactions.go.
 *
 * Every one is a deposit with mint 0, value 0, isSystemTx false and a source hash of domain 2 over
 * its intent string. The pattern per fork: deploy the new implementation from a fixed deployer at
 * nonce 0 (so its address is CREATE(deployer, 0)), point the predeploy proxy at it with
 * `upgradeTo(address)` sent from the zero address, then call the fork's `setX()` from the depositor.
 * Deployment bytecode is protocol data, bundled in upgradeBytecode.ts.
 *
 * Interop (`interopUpgradeTxs`) follows specs/interop/derivation.md as of ethereum-optimism/specs
 * e1d1aee8 (2025-05-06), which kona's interop_tx_0..3 fixtures (op-rs/kona cdb9be24, hardforks
 * interop.rs) encode: all four deposits in the activation block. Later spec revisions (specs #707,
 * 2025-05-28, in force at fd72cf79) move the CrossL2Inbox pair to the first block in which the
 * chain's dependency set has two or more active chains; that schedule is not implemented.
 *
 * Karst (`karstUpgradeTxs`) is data: the 31 deposits of the Karst NUT bundle (karstNutBundle.ts,
 * generated from the bundle file), with the qualified-intent source hashes and the one-time upgrade
 * gas of op-node v1.19.1; see the comments there.
 */

import { keccak256 } from "../../crypto/keccak.js";
import { concatBytes, EMPTY_BYTES, padLeft, utf8ToBytes } from "../../primitives/bytes.js";
import { hexToBytes } from "../../primitives/hex.js";
import { encodeRlp } from "../../rlp/encode.js";
import { GAS_PRICE_ORACLE_ADDRESS, L1_BLOCK_ADDRESS, L1_INFO_DEPOSITOR } from "../../spec/opAddresses.js";
import { DepositSourceDomain, depositSourceHash } from "../../tx/depositSourceHash.js";
import { encodeTx } from "../../tx/envelope.js";
import { type DepositTx, TxType } from "../../tx/tx.js";
import { isForkActivationBlock, type RollupConfig, type RollupFork } from "../config/rollupConfig.js";
import { KARST_NUT_BUNDLE_TXS, KARST_NUT_BUNDLE_VERSION, type NutBundleTx } from "./karstNutBundle.js";
import {
  ECOTONE_GAS_PRICE_ORACLE_DEPLOYMENT_HEX,
  ECOTONE_L1_BLOCK_DEPLOYMENT_HEX,
  EIP2935_BLOCK_HASH_HISTORY_DEPLOYMENT_HEX,
  EIP4788_BEACON_ROOTS_DEPLOYMENT_HEX,
  FJORD_GAS_PRICE_ORACLE_DEPLOYMENT_HEX,
  INTEROP_CROSS_L2_INBOX_DEPLOYMENT_HEX,
  INTEROP_L2_TO_L2_CROSS_DOMAIN_MESSENGER_DEPLOYMENT_HEX,
  ISTHMUS_GAS_PRICE_ORACLE_DEPLOYMENT_HEX,
  ISTHMUS_L1_BLOCK_DEPLOYMENT_HEX,
  ISTHMUS_OPERATOR_FEE_DEPLOYMENT_HEX,
  JOVIAN_GAS_PRICE_ORACLE_DEPLOYMENT_HEX,
  JOVIAN_L1_BLOCK_DEPLOYMENT_HEX,
} from "./upgradeBytecode.js";

/** `upgradeTo(address)` of the ERC-1967 proxies. */
const UPGRADE_TO_SELECTOR = hexToBytes("0x3659cfe6");
/** GasPriceOracle fork switches: `setEcotone()`, `setFjord()`, `setIsthmus()`, `setJovian()`. */
const SET_ECOTONE = hexToBytes("0x22b90ab3");
const SET_FJORD = hexToBytes("0x8e98b106");
const SET_ISTHMUS = hexToBytes("0x291b0383");
const SET_JOVIAN = hexToBytes("0xb3d72079");

/** OperatorFeeVault predeploy proxy. */
const OPERATOR_FEE_VAULT_ADDRESS = hexToBytes("0x420000000000000000000000000000000000001b");
/** Interop predeploy proxies (specs/interop/predeploys.md): CrossL2Inbox, L2ToL2CrossDomainMessenger. */
const CROSS_L2_INBOX_ADDRESS = hexToBytes("0x4200000000000000000000000000000000000022");
const L2_TO_L2_CROSS_DOMAIN_MESSENGER_ADDRESS = hexToBytes("0x4200000000000000000000000000000000000023");
/** Sender of the proxy updates. */
const ZERO_ADDRESS = new Uint8Array(20);
/** EIP-4788 beacon-roots deployer (its pre-signed deployment tx's sender, as the EIP gives it). */
const EIP4788_DEPLOYER = hexToBytes("0x0b799c86a49deeb90402691f1041aa3af2d3c875");
/** EIP-2935 block-hash-history deployer (as the EIP gives it). */
const EIP2935_DEPLOYER = hexToBytes("0x3462413af4609098e1e27a490f554f260213d685");

/** Upgrade deployer `0x4210000000000000000000000000000000000000 + n`. */
function deployer(n: number): Uint8Array {
  const a = hexToBytes("0x4210000000000000000000000000000000000000");
  a[19] = n;
  return a;
}

/** Interop upgrade deployer `0x4220000000000000000000000000000000000000 + n`. */
function interopDeployer(n: number): Uint8Array {
  const a = hexToBytes("0x4220000000000000000000000000000000000000");
  a[19] = n;
  return a;
}

/** keccak256(uint256_be(2) ‖ keccak256(utf8(intent))): the source hash of an upgrade deposit. */
export function upgradeSourceHash(intent: string): Uint8Array {
  return depositSourceHash(DepositSourceDomain.Upgrade, keccak256(utf8ToBytes(intent)));
}

/** CREATE address of `from` at nonce 0: keccak256(rlp([from, 0]))[12:]. */
function createdAt(from: Uint8Array): Uint8Array {
  return keccak256(encodeRlp([from, EMPTY_BYTES])).slice(12);
}

function upgradeToCalldata(implementation: Uint8Array): Uint8Array {
  return concatBytes(UPGRADE_TO_SELECTOR, padLeft(implementation, 32));
}

/** One upgrade deposit: intent (→ source hash), sender, target (null = create), gas, data. */
interface UpgradeDeposit {
  readonly intent: string;
  readonly from: Uint8Array;
  readonly to: Uint8Array | null;
  readonly gas: bigint;
  readonly data: Uint8Array;
}

function deploy(intent: string, from: Uint8Array, gas: bigint, bytecodeHex: string): UpgradeDeposit {
  return { intent, from, to: null, gas, data: hexToBytes(bytecodeHex) };
}

function proxyUpdate(intent: string, proxy: Uint8Array, implementationDeployer: Uint8Array): UpgradeDeposit {
  return {
    intent,
    from: ZERO_ADDRESS,
    to: proxy,
    gas: 50_000n,
    data: upgradeToCalldata(createdAt(implementationDeployer)),
  };
}

function gpoCall(intent: string, gas: bigint, selector: Uint8Array): UpgradeDeposit {
  return { intent, from: L1_INFO_DEPOSITOR, to: GAS_PRICE_ORACLE_ADDRESS, gas, data: selector };
}

function encodeAll(list: readonly UpgradeDeposit[]): Uint8Array[] {
  return list.map((d) => {
    const tx: DepositTx = {
      type: TxType.Deposit,
      sourceHash: upgradeSourceHash(d.intent),
      from: d.from,
      to: d.to,
      mint: 0n,
      value: 0n,
      gasLimit: d.gas,
      isSystemTx: false,
      data: d.data,
    };
    return encodeTx(tx);
  });
}

/** The 6 Ecotone upgrade deposits (SPEC: specs/protocol/ecotone/derivation.md), encoded, in order. */
export function ecotoneUpgradeTxs(): Uint8Array[] {
  const l1BlockDeployer = deployer(0);
  const gpoDeployer = deployer(1);
  return encodeAll([
    deploy("Ecotone: L1 Block Deployment", l1BlockDeployer, 375_000n, ECOTONE_L1_BLOCK_DEPLOYMENT_HEX),
    deploy("Ecotone: Gas Price Oracle Deployment", gpoDeployer, 1_000_000n, ECOTONE_GAS_PRICE_ORACLE_DEPLOYMENT_HEX),
    proxyUpdate("Ecotone: L1 Block Proxy Update", L1_BLOCK_ADDRESS, l1BlockDeployer),
    proxyUpdate("Ecotone: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_ADDRESS, gpoDeployer),
    gpoCall("Ecotone: Gas Price Oracle Set Ecotone", 80_000n, SET_ECOTONE),
    // EIP-4788 beacon-roots contract: its deployment with the EIP's sender and gas (0x3d090).
    deploy(
      "Ecotone: beacon block roots contract deployment",
      EIP4788_DEPLOYER,
      0x3d090n,
      EIP4788_BEACON_ROOTS_DEPLOYMENT_HEX,
    ),
  ]);
}

/** The 3 Fjord upgrade deposits (SPEC: specs/protocol/fjord/derivation.md), encoded, in order. */
export function fjordUpgradeTxs(): Uint8Array[] {
  const gpoDeployer = deployer(2);
  return encodeAll([
    deploy("Fjord: Gas Price Oracle Deployment", gpoDeployer, 1_450_000n, FJORD_GAS_PRICE_ORACLE_DEPLOYMENT_HEX),
    proxyUpdate("Fjord: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_ADDRESS, gpoDeployer),
    gpoCall("Fjord: Gas Price Oracle Set Fjord", 90_000n, SET_FJORD),
  ]);
}

/** The 8 Isthmus upgrade deposits (SPEC: specs/protocol/isthmus/derivation.md), encoded, in order. */
export function isthmusUpgradeTxs(): Uint8Array[] {
  const l1BlockDeployer = deployer(3);
  const gpoDeployer = deployer(4);
  const vaultDeployer = deployer(5);
  return encodeAll([
    deploy("Isthmus: L1 Block Deployment", l1BlockDeployer, 425_000n, ISTHMUS_L1_BLOCK_DEPLOYMENT_HEX),
    deploy("Isthmus: Gas Price Oracle Deployment", gpoDeployer, 1_625_000n, ISTHMUS_GAS_PRICE_ORACLE_DEPLOYMENT_HEX),
    deploy("Isthmus: Operator Fee Vault Deployment", vaultDeployer, 500_000n, ISTHMUS_OPERATOR_FEE_DEPLOYMENT_HEX),
    proxyUpdate("Isthmus: L1 Block Proxy Update", L1_BLOCK_ADDRESS, l1BlockDeployer),
    proxyUpdate("Isthmus: Gas Price Oracle Proxy Update", GAS_PRICE_ORACLE_ADDRESS, gpoDeployer),
    proxyUpdate("Isthmus: Operator Fee Vault Proxy Update", OPERATOR_FEE_VAULT_ADDRESS, vaultDeployer),
    gpoCall("Isthmus: Gas Price Oracle Set Isthmus", 90_000n, SET_ISTHMUS),
    // EIP-2935 block-hash-history contract, with the EIP's sender.
    deploy(
      "Isthmus: EIP-2935 Contract Deployment",
      EIP2935_DEPLOYER,
      250_000n,
      EIP2935_BLOCK_HASH_HISTORY_DEPLOYMENT_HEX,
    ),
  ]);
}

/**
 * The 5 Jovian upgrade deposits (SPEC: specs/protocol/jovian/derivation.md), encoded, in order.
 * Unlike the earlier forks, each proxy update directly follows its deployment.
 */
export function jovianUpgradeTxs(): Uint8Array[] {
  const l1BlockDeployer = deployer(6);
  const gpoDeployer = deployer(7);
  return encodeAll([
    deploy("Jovian: L1Block Deployment", l1BlockDeployer, 447_315n, JOVIAN_L1_BLOCK_DEPLOYMENT_HEX),
    proxyUpdate("Jovian: L1Block Proxy Update", L1_BLOCK_ADDRESS, l1BlockDeployer),
    deploy("Jovian: GasPriceOracle Deployment", gpoDeployer, 1_750_714n, JOVIAN_GAS_PRICE_ORACLE_DEPLOYMENT_HEX),
    proxyUpdate("Jovian: GasPriceOracle Proxy Update", GAS_PRICE_ORACLE_ADDRESS, gpoDeployer),
    gpoCall("Jovian: Gas Price Oracle Set Jovian", 90_000n, SET_JOVIAN),
  ]);
}

/**
 * The 4 Interop upgrade deposits (SPEC: specs/interop/derivation.md "Network Upgrade
 * Transactions" at specs e1d1aee8, see the header), encoded, in order: each deployment from
 * 0x4220…0000/0001 directly followed by its proxy update, CrossL2Inbox first.
 */
export function interopUpgradeTxs(): Uint8Array[] {
  const inboxDeployer = interopDeployer(0);
  const messengerDeployer = interopDeployer(1);
  return encodeAll([
    deploy("Interop: CrossL2Inbox Deployment", inboxDeployer, 420_000n, INTEROP_CROSS_L2_INBOX_DEPLOYMENT_HEX),
    proxyUpdate("Interop: CrossL2Inbox Proxy Update", CROSS_L2_INBOX_ADDRESS, inboxDeployer),
    deploy(
      "Interop: L2ToL2CrossDomainMessenger Deployment",
      messengerDeployer,
      1_100_000n,
      INTEROP_L2_TO_L2_CROSS_DOMAIN_MESSENGER_DEPLOYMENT_HEX,
    ),
    proxyUpdate(
      "Interop: L2ToL2CrossDomainMessenger Proxy Update",
      L2_TO_L2_CROSS_DOMAIN_MESSENGER_ADDRESS,
      messengerDeployer,
    ),
  ]);
}

/**
 * The intent string whose keccak makes the source hash of tx `index` of a fork's NUT bundle:
 * `"<Fork> <index>: <intent>"`, the fork's name with its first letter upper-cased
 * (`"Karst 0: ConditionalDeployer Deployment"`).
 *
 * Evidence (the Karst spec, specs/protocol/karst/derivation.md, says the node prepends "Karst: ";
 * the code that ran at activation does not):
 * - op-node rollup/derive/upgrade_transaction.go `toDepositTransactions` formats
 *   `"%s %d: %s"` with `capitalizeForkName(fork)`, commented as mirroring kona's
 *   hardforks/build_helpers.rs `capitalize` "so the qualified intent strings (and therefore source
 *   hashes) agree across implementations". The earlier op-node reader (go:embed of the bundle inside
 *   op-node/rollup/derive, before optimism #20051 of 2026-04-13 moved it to op-core) used the fork
 *   name as is ("karst 0: …").
 * - kona-hardforks build.rs passes `capitalize("karst")` as the bundle's fork name since optimism
 *   #20157 (2026-04-28; optimism rust/ history as vendored in mantle-v2), its doc saying the name
 *   "must match the capitalized form used by op-node"; op-alloy-consensus nuts/mod.rs
 *   `to_deposit_transactions` formats `"{fork_name} {i}: {intent}"`.
 * - optimism #21289 (2026-06-08) describes op-node's hash input as `"<Capitalized> <i>: <intent>"`;
 *   #21441 (2026-06-16, the upgrade-gas fix op-node v1.19.1 ships) finds op-node and kona sharing
 *   the gas bug, "so they currently agree" on the chain past the activation block; kona-client, the
 *   fault-proof program Karst makes the respected game type, proves op-node's activation block
 *   byte for byte (kona tests/proofs TestActivationBlockNUTBundle).
 * So op-node v1.19.x (June 2026, after both changes) hashes the capitalized form.
 */
export function nutIntent(fork: string, index: number, intent: string): string {
  return `${fork.charAt(0).toUpperCase()}${fork.slice(1)} ${index}: ${intent}`;
}

/** The bundle schema op-node v1.19 reads (upgrade_transaction.go `nutBundleVersion`). */
const NUT_BUNDLE_VERSION = "1.0.0";

/**
 * The encoded deposits of a NUT bundle of `fork` (op-node `nutBundle.toDepositTransactions`): per
 * tx, source hash over `nutIntent(fork, i, intent)`, the bundle's from/to/gas/data, mint 0, value 0,
 * not a system tx. Refuses another schema version or a tx without intent, as op-node does.
 */
export function nutBundleDepositTxs(fork: string, version: string, txs: readonly NutBundleTx[]): Uint8Array[] {
  if (version !== NUT_BUNDLE_VERSION) throw new Error(`unsupported NUT bundle version: got ${version}`);
  return encodeAll(
    txs.map((t, i) => {
      if (t.intent.length === 0) throw new Error(`${fork} NUT bundle tx ${i}: missing intent`);
      return {
        intent: nutIntent(fork, i, t.intent),
        from: hexToBytes(t.from),
        to: t.to === null ? null : hexToBytes(t.to),
        gas: BigInt(t.gasLimit),
        data: hexToBytes(t.data),
      };
    }),
  );
}

/**
 * The 31 Karst upgrade deposits (SPEC: specs/protocol/karst/derivation.md; op-node
 * upgrade_transaction.go `UpgradeTransactions(forks.Karst)`), encoded, in bundle order: each from
 * the bundle's sender to its target (null = create) with its gas and data, mint 0, value 0, not a
 * system tx, source hash over `nutIntent("karst", i, intent)`.
 */
export function karstUpgradeTxs(): Uint8Array[] {
  return nutBundleDepositTxs("karst", KARST_NUT_BUNDLE_VERSION, KARST_NUT_BUNDLE_TXS);
}

/**
 * The Karst bundle's upgrade gas: the sum of its gas limits (op-node `nutBundle.totalGas`), added to
 * the activation block's gas limit so the deposits need not fit the system config's.
 */
export function karstUpgradeGas(): bigint {
  let total = 0n;
  for (const t of KARST_NUT_BUNDLE_TXS) total += BigInt(t.gasLimit);
  return total;
}

/**
 * The one-time upgrade gas of the L2 block at `l2Timestamp`: the Karst bundle's in the Karst
 * activation block, else 0. op-node v1.19.1 attributes.go: `GasLimit = sysConfig.GasLimit +
 * upgradeGas` (only NUT-bundle forks, from Karst on, have upgrade gas).
 */
export function upgradeGasAt(cfg: RollupConfig, l2Timestamp: number): bigint {
  return isForkActivationBlock(cfg, "karst", l2Timestamp) ? karstUpgradeGas() : 0n;
}

/**
 * The upgrade gas to take off the gas limit of the block at `l2Timestamp` when its system config
 * is read back from it (op-node payload_util.go `PayloadToSystemConfig`, from optimism #21441 of
 * 2026-06-16, in op-node v1.19.1 "the Karst gas limit fix"): at the Karst activation block the
 * header holds system-config gas limit + upgrade gas, and without the strip the next block would
 * read the sum back as its base and keep it forever. `keep_karst_upgrade_gas` opts out, keeping the
 * sum until a setGasLimit (op-node rollup.Config.StripsKarstUpgradeGas; superchain-registry #1259
 * sets it for the sepolia and mainnet superchains, whose Karst history was made without the strip).
 * A setGasLimit in the next block's L1 origin is applied after this, so it wins (op-node
 * TestPayloadToSystemConfigUpgradeGas).
 */
export function upgradeGasToStrip(cfg: RollupConfig, l2Timestamp: number): bigint {
  if (cfg.keepKarstUpgradeGas) return 0n;
  return upgradeGasAt(cfg, l2Timestamp);
}

/** Forks with upgrade transactions, in activation order, with their builders. */
const UPGRADES: readonly (readonly [RollupFork, () => Uint8Array[]])[] = [
  ["ecotone", ecotoneUpgradeTxs],
  ["fjord", fjordUpgradeTxs],
  ["isthmus", isthmusUpgradeTxs],
  ["jovian", jovianUpgradeTxs],
  ["karst", karstUpgradeTxs],
  ["interop", interopUpgradeTxs],
];

/**
 * The upgrade transactions of the L2 block at `l2Timestamp`: those of every fork whose activation
 * block it is (`isForkActivationBlock`), in fork order; empty for any other block. Several forks
 * can activate in one block, then their txs are concatenated (op-node attributes.go).
 */
export function upgradeTxsAt(cfg: RollupConfig, l2Timestamp: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const [fork, txs] of UPGRADES) {
    if (isForkActivationBlock(cfg, fork, l2Timestamp)) out.push(...txs());
  }
  return out;
}
