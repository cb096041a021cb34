/**
 * Opal's devnet L1 contracts (contracts/l1/*.sol, compiled into src/node/devnet/l1Contracts.ts) on an
 * in-process L1 chain whose genesis holds them already initialised (`l1DevnetContractsAlloc`):
 * deposits made through the OptimismPortal decode with the rollup node's own `depositsFromReceipts`
 * into exactly the deposit that was asked for (aliasing a contract caller), and the SystemConfig's
 * setters emit `ConfigUpdate` logs that the node's `applyConfigUpdateLogs` applies without a
 * warning, to the values that were set. That the generated module matches a fresh compile of
 * contracts/l1/*.sol: test/e2e/node/devnet/l1Contracts.test.ts.
 */
import { strict as assert } from "node:assert";
import type { Receipt } from "../../../../src/block/receipt.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import {
  L1_CONTRACTS_SOLC_VERSION,
  L1_CONTRACTS_SOURCES_SHA256,
  type L1DevnetContractsOptions,
  l1DevnetContractsAlloc,
  l1DevnetGenesisSystemConfig,
  OPTIMISM_PORTAL_RUNTIME_HEX,
  OPTIMISM_PORTAL_SELECTORS,
  SYSTEM_CONFIG_RUNTIME_HEX,
  SYSTEM_CONFIG_SELECTORS,
  SYSTEM_CONFIG_STORAGE,
  systemConfigStorage,
} from "../../../../src/node/devnet/l1Contracts.js";
import { type DevAccount, devAccounts } from "../../../../src/node/exec/devGenesis.js";
import { concatBytes, utf8ToBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { bigintToBytes32, bytesToBigint } from "../../../../src/primitives/u256.js";
import { networkRollupConfig } from "../../../../src/rollup/config/network.js";
import type { RollupConfig } from "../../../../src/rollup/config/rollupConfig.js";
import { UNSAFE_BLOCK_SIGNER_SLOT } from "../../../../src/rollup/config/runtimeConfig.js";
import { depositsFromReceipts } from "../../../../src/rollup/derive/depositLog.js";
import {
  applyConfigUpdateLogs,
  ecotoneScalars,
  operatorFeeParams,
  type SystemConfig,
} from "../../../../src/rollup/derive/systemConfig.js";
import type { L1BlockRef } from "../../../../src/rollup/refs.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type DepositTx, type FeeMarketTx, TxType } from "../../../../src/tx/tx.js";
import { L1Miner } from "../../../utils/actions/l1Miner.js";

const PORTAL = "0x00000000000000000000000000000000000d0517";
const SYSTEM_CONFIG = "0x0000000000000000000000000000000000005c5c";
const PORTAL_BYTES = hexToBytes(PORTAL);
const SYSTEM_CONFIG_BYTES = hexToBytes(SYSTEM_CONFIG);
/** Forwarders (see `forwarderCode`); the second one's alias wraps around 2^160. */
const FORWARDER = hexToBytes("0x00000000000000000000000000000000f0f0f0f0");
const HIGH_FORWARDER = hexToBytes("0xffff00000000000000000000000000000000f0f0");
const ALIAS_OFFSET = 0x1111000000000000000000000000000000001111n;
const ADDRESS_MASK = (1n << 160n) - 1n;

const ACCOUNTS = devAccounts();
const OWNER = ACCOUNTS[0]!;
const USER = ACCOUNTS[1]!;
const BATCHER = ACCOUNTS[2]!.address;
const SIGNER = ACCOUNTS[3]!.address;
const BATCH_INBOX = hexToBytes("0xff00000000000000000000000000000000000901");

const OPTS: L1DevnetContractsOptions = {
  portal: PORTAL,
  systemConfig: SYSTEM_CONFIG,
  owner: OWNER.address,
  batcher: BATCHER,
  unsafeBlockSigner: SIGNER,
  gasLimit: 30_000_000n,
  basefeeScalar: 1368,
  blobbasefeeScalar: 810_949,
  batchInbox: BATCH_INBOX,
  startBlock: 7n,
};

const BASE_CFG = networkRollupConfig("op-mainnet")!;
const ECOTONE_CFG: RollupConfig = { ...BASE_CFG, ecotoneTime: 0 };
const BEDROCK_CFG: RollupConfig = { ...BASE_CFG, ecotoneTime: null };

/**
 * Runtime code that calls PORTAL with its own calldata and value and reverts when that call fails:
 * a contract depositor. CALLDATACOPY(0, 0, size); CALL(gas, portal, value, 0, size, 0, 0).
 */
function forwarderCode(): Uint8Array {
  return concatBytes(
    hexToBytes("0x365f5f37" + "5f5f365f3473"),
    PORTAL_BYTES,
    hexToBytes("0x5af1" + "602657" + "5f5ffd" + "5b00"),
  );
}

function alias(a: Uint8Array): Uint8Array {
  return bigintToBytes32((bytesToBigint(a) + ALIAS_OFFSET) & ADDRESS_MASK).slice(12);
}

// ---- ABI ----

function word(v: bigint): Uint8Array {
  return bigintToBytes32(v);
}

function addressWord(a: Uint8Array): Uint8Array {
  return concatBytes(new Uint8Array(12), a);
}

/** Calldata: selector, the static head words, then (when given) one `bytes` argument last. */
function callData(selector: string, head: readonly Uint8Array[], bytes?: Uint8Array): Uint8Array {
  const parts = [hexToBytes(selector), ...head];
  if (bytes !== undefined) {
    parts.push(word(BigInt(32 * (head.length + 1))), word(BigInt(bytes.length)), bytes);
    parts.push(new Uint8Array((32 - (bytes.length % 32)) % 32));
  }
  return concatBytes(...parts);
}

function sc(sig: keyof typeof SYSTEM_CONFIG_SELECTORS, ...args: bigint[]): Uint8Array {
  return callData(SYSTEM_CONFIG_SELECTORS[sig], args.map(word));
}

function depositCall(to: Uint8Array, value: bigint, gasLimit: bigint, isCreation: boolean, data: Uint8Array) {
  return callData(
    OPTIMISM_PORTAL_SELECTORS["depositTransaction(address,uint256,uint64,bool,bytes)"],
    [addressWord(to), word(value), word(gasLimit), word(isCreation ? 1n : 0n)],
    data,
  );
}

// ---- the chain ----

class Devnet {
  readonly miner: L1Miner;
  private readonly nonces = new Map<string, bigint>();

  constructor(opts: L1DevnetContractsOptions = OPTS) {
    const alloc: Record<string, unknown> = { ...l1DevnetContractsAlloc(opts) };
    alloc[bytesToHex(FORWARDER)] = { balance: "0x0", code: bytesToHex(forwarderCode()) };
    alloc[bytesToHex(HIGH_FORWARDER)] = { balance: "0x0", code: bytesToHex(forwarderCode()) };
    this.miner = new L1Miner(alloc);
  }

  tx(from: DevAccount, to: Uint8Array, data: Uint8Array, value = 0n, gas = 1_000_000n): Uint8Array {
    const key = bytesToHex(from.address);
    const nonce = this.nonces.get(key) ?? 0n;
    this.nonces.set(key, nonce + 1n);
    const unsigned: FeeMarketTx = {
      type: TxType.FeeMarket,
      chainId: this.miner.chainId,
      nonce,
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerGas: 100_000_000_000n,
      gasLimit: gas,
      to,
      value,
      data,
      accessList: [],
      yParity: 0,
      r: 0n,
      s: 0n,
    };
    return encodeTx(signTx(unsigned, from.privateKey));
  }

  /** Mines `txs` into one block: its reference and receipts. */
  async mine(txs: readonly Uint8Array[]): Promise<{ ref: L1BlockRef; receipts: Receipt[] }> {
    const ref = await this.miner.mine(txs);
    const receipts = this.miner.exec.chain.store.receipts(ref.hash);
    assert.ok(receipts !== null);
    assert.equal(receipts.length, txs.length);
    return { ref, receipts };
  }

  async call(to: Uint8Array, data: Uint8Array): Promise<bigint> {
    const out = await this.miner.exec.rpc.call<string>("eth_call", [
      { to: bytesToHex(to), data: bytesToHex(data) },
      "latest",
    ]);
    return bytesToBigint(hexToBytes(out));
  }

  async get(sig: keyof typeof SYSTEM_CONFIG_SELECTORS): Promise<bigint> {
    return this.call(SYSTEM_CONFIG_BYTES, hexToBytes(SYSTEM_CONFIG_SELECTORS[sig]));
  }

  async storageAt(address: Uint8Array, slot: Uint8Array): Promise<bigint> {
    const out = await this.miner.exec.rpc.call<string>("eth_getStorageAt", [
      bytesToHex(address),
      bytesToHex(slot),
      "latest",
    ]);
    return BigInt(out);
  }

  async balance(address: Uint8Array): Promise<bigint> {
    return BigInt(await this.miner.exec.rpc.call<string>("eth_getBalance", [bytesToHex(address), "latest"]));
  }
}

function hexOf(b: Uint8Array | null): string | null {
  return b === null ? null : bytesToHex(b);
}

/** The fields of a deposit the portal was asked for (sourceHash aside). */
function fieldsOf(d: DepositTx) {
  return {
    from: bytesToHex(d.from),
    to: hexOf(d.to),
    mint: d.mint,
    value: d.value,
    gasLimit: d.gasLimit,
    isSystemTx: d.isSystemTx,
    data: bytesToHex(d.data),
  };
}

describe("rollup/l1Contracts (devnet OptimismPortal and SystemConfig)", function () {
  this.timeout(60_000);

  describe("generated module", () => {
    it("records the compiler and sources, and selectors that match their signatures", () => {
      assert.match(L1_CONTRACTS_SOLC_VERSION, /^0\.8\.37\+commit\./);
      assert.match(L1_CONTRACTS_SOURCES_SHA256, /^[0-9a-f]{64}$/);
      assert.match(OPTIMISM_PORTAL_RUNTIME_HEX, /^0x[0-9a-f]+$/);
      assert.match(SYSTEM_CONFIG_RUNTIME_HEX, /^0x[0-9a-f]+$/);
      for (const table of [OPTIMISM_PORTAL_SELECTORS, SYSTEM_CONFIG_SELECTORS]) {
        for (const [sig, sel] of Object.entries(table)) {
          assert.equal(sel, bytesToHex(keccak256(utf8ToBytes(sig)).subarray(0, 4)), sig);
        }
      }
      // The portal ABI is the one the OP specs give.
      assert.equal(OPTIMISM_PORTAL_SELECTORS["depositTransaction(address,uint256,uint64,bool,bytes)"], "0xe9e05c42");
    });

    it("packs the SystemConfig genesis storage by the solc layout", () => {
      const words = new Map(systemConfigStorage({ ...OPTS, eip1559Denominator: 250, eip1559Elasticity: 6 }));
      assert.equal(words.get(SYSTEM_CONFIG_STORAGE.owner.slot), bytesToBigint(OWNER.address));
      assert.equal(words.get(SYSTEM_CONFIG_STORAGE.batcherHash.slot), bytesToBigint(BATCHER));
      assert.equal(words.has(SYSTEM_CONFIG_STORAGE.overhead.slot), false, "zero words are left out");
      assert.equal(
        words.get(SYSTEM_CONFIG_STORAGE.scalar.slot),
        (1n << 248n) | (810_949n << 32n) | 1368n,
        "version-1 Ecotone scalar",
      );
      // gasLimit u64 | basefeeScalar u32 | blobbasefeeScalar u32 | denominator u32 | elasticity u32 share a slot.
      assert.equal(SYSTEM_CONFIG_STORAGE.gasLimit.slot, SYSTEM_CONFIG_STORAGE.eip1559Elasticity.slot);
      assert.equal(
        words.get(SYSTEM_CONFIG_STORAGE.gasLimit.slot),
        30_000_000n | (1368n << 64n) | (810_949n << 96n) | (250n << 128n) | (6n << 160n),
      );
      assert.equal(words.get(bytesToBigint(UNSAFE_BLOCK_SIGNER_SLOT)), bytesToBigint(SIGNER));
      assert.equal(words.get(SYSTEM_CONFIG_STORAGE.startBlock.slot), 7n);
    });

    it("rejects values that do not fit and bad addresses", () => {
      assert.throws(() => systemConfigStorage({ ...OPTS, basefeeScalar: 2 ** 32 }), RangeError);
      assert.throws(() => systemConfigStorage({ ...OPTS, gasLimit: 1n << 64n }), RangeError);
      assert.throws(() => systemConfigStorage({ ...OPTS, daFootprintGasScalar: 65_536 }), RangeError);
      assert.throws(() => systemConfigStorage({ ...OPTS, batcher: new Uint8Array(19) }), RangeError);
      assert.throws(() => systemConfigStorage({ ...OPTS, eip1559Denominator: 250 }), RangeError);
      assert.throws(() => systemConfigStorage({ ...OPTS, eip1559Elasticity: 6 }), RangeError);
      assert.throws(() => l1DevnetContractsAlloc({ ...OPTS, portal: "0x1234" }), RangeError);
      assert.throws(() => l1DevnetContractsAlloc({ ...OPTS, systemConfig: PORTAL }), RangeError);
    });

    it("gives the matching L2 genesis system config", () => {
      const g = l1DevnetGenesisSystemConfig({ ...OPTS, operatorFeeScalar: 7, operatorFeeConstant: 9n });
      assert.equal(bytesToHex(g.batcherAddr), bytesToHex(BATCHER));
      assert.deepEqual(ecotoneScalars(g), { baseFeeScalar: 1368, blobBaseFeeScalar: 810_949 });
      assert.deepEqual(operatorFeeParams(g), { scalar: 7, constant: 9n });
      assert.equal(g.gasLimit, 30_000_000n);
    });
  });

  describe("genesis", () => {
    it("holds the contracts initialised: getters and the unsafe block signer slot", async () => {
      const d = new Devnet();
      const code = await d.miner.exec.rpc.call<string>("eth_getCode", [SYSTEM_CONFIG, "latest"]);
      assert.equal(code, SYSTEM_CONFIG_RUNTIME_HEX);
      assert.equal(await d.miner.exec.rpc.call<string>("eth_getCode", [PORTAL, "latest"]), OPTIMISM_PORTAL_RUNTIME_HEX);
      assert.equal(await d.get("owner()"), bytesToBigint(OWNER.address));
      assert.equal(await d.get("batcherHash()"), bytesToBigint(BATCHER));
      assert.equal(await d.get("batchInbox()"), bytesToBigint(BATCH_INBOX));
      assert.equal(await d.get("startBlock()"), 7n);
      assert.equal(await d.get("gasLimit()"), 30_000_000n);
      assert.equal(await d.get("overhead()"), 0n);
      assert.equal(await d.get("scalar()"), (1n << 248n) | (810_949n << 32n) | 1368n);
      assert.equal(await d.get("basefeeScalar()"), 1368n);
      assert.equal(await d.get("blobbasefeeScalar()"), 810_949n);
      assert.equal(await d.get("eip1559Denominator()"), 0n);
      assert.equal(await d.get("unsafeBlockSigner()"), bytesToBigint(SIGNER));
      assert.equal(await d.get("UNSAFE_BLOCK_SIGNER_SLOT()"), bytesToBigint(UNSAFE_BLOCK_SIGNER_SLOT));
      assert.equal(await d.storageAt(SYSTEM_CONFIG_BYTES, UNSAFE_BLOCK_SIGNER_SLOT), bytesToBigint(SIGNER));
    });
  });

  describe("OptimismPortal", () => {
    it("emits deposits that decode to exactly what was sent, aliasing contract callers", async () => {
      const d = new Devnet();
      const target = ACCOUNTS[5]!.address;
      const data = hexToBytes("0xdeadbeef0102");
      const initCode = hexToBytes("0x600a600c600039600a6000f3602a60005260206000f3");
      const txs = [
        // EOA call with value and data, at exactly the minimum gas limit.
        d.tx(USER, PORTAL_BYTES, depositCall(target, 5n, 21_000n + 40n * 6n, false, data), 1_000n),
        // EOA contract creation.
        d.tx(USER, PORTAL_BYTES, depositCall(new Uint8Array(20), 0n, 500_000n, true, initCode), 0n),
        // Plain ether to the portal: receive() deposits to the sender with 100k gas.
        d.tx(USER, PORTAL_BYTES, new Uint8Array(0), 7n, 100_000n),
        // A contract caller: `from` is its alias.
        d.tx(USER, FORWARDER, depositCall(target, 0n, 100_000n, false, data), 3n),
        // A contract sending plain ether: receive() targets the contract, `from` is its alias.
        d.tx(USER, FORWARDER, new Uint8Array(0), 11n, 200_000n),
        // The alias wraps modulo 2^160.
        d.tx(USER, HIGH_FORWARDER, depositCall(target, 1n, 30_000n, false, new Uint8Array(0)), 2n),
      ];
      const { ref, receipts } = await d.mine(txs);
      assert.deepEqual(
        receipts.map((r) => r.status),
        txs.map(() => 1),
      );
      const deposits = depositsFromReceipts(receipts, ref.hash, PORTAL_BYTES);
      const user = bytesToHex(USER.address);
      const to = bytesToHex(target);
      assert.deepEqual(deposits.map(fieldsOf), [
        { from: user, to, mint: 1_000n, value: 5n, gasLimit: 21_240n, isSystemTx: false, data: bytesToHex(data) },
        {
          from: user,
          to: null,
          mint: 0n,
          value: 0n,
          gasLimit: 500_000n,
          isSystemTx: false,
          data: bytesToHex(initCode),
        },
        { from: user, to: user, mint: 7n, value: 7n, gasLimit: 100_000n, isSystemTx: false, data: "0x" },
        {
          from: bytesToHex(alias(FORWARDER)),
          to,
          mint: 3n,
          value: 0n,
          gasLimit: 100_000n,
          isSystemTx: false,
          data: bytesToHex(data),
        },
        {
          from: bytesToHex(alias(FORWARDER)),
          to: bytesToHex(FORWARDER),
          mint: 11n,
          value: 11n,
          gasLimit: 100_000n,
          isSystemTx: false,
          data: "0x",
        },
        {
          from: bytesToHex(alias(HIGH_FORWARDER)),
          to,
          mint: 2n,
          value: 1n,
          gasLimit: 30_000n,
          isSystemTx: false,
          data: "0x",
        },
      ]);
      assert.equal(bytesToHex(alias(HIGH_FORWARDER)), "0x1110000000000000000000000000000000010201");
      // Every minted wei stays with the portal.
      assert.equal(await d.balance(PORTAL_BYTES), 1_000n + 7n + 3n + 11n + 2n);
    });

    it("rejects a creation with a target, a gas limit under the minimum and oversized data", async () => {
      const d = new Devnet();
      const target = ACCOUNTS[5]!.address;
      const big = new Uint8Array(120_001).fill(1);
      const txs = [
        d.tx(USER, PORTAL_BYTES, depositCall(target, 0n, 100_000n, true, new Uint8Array(1))),
        d.tx(USER, PORTAL_BYTES, depositCall(target, 0n, 21_000n + 40n * 4n - 1n, false, new Uint8Array(4))),
        d.tx(USER, PORTAL_BYTES, depositCall(target, 0n, 10_000_000n, false, big), 0n, 5_000_000n),
        // The forwarder reverts when the portal does.
        d.tx(USER, FORWARDER, depositCall(target, 0n, 20_999n, false, new Uint8Array(0)), 1n),
      ];
      const { ref, receipts } = await d.mine(txs);
      assert.deepEqual(
        receipts.map((r) => r.status),
        [0, 0, 0, 0],
      );
      assert.deepEqual(depositsFromReceipts(receipts, ref.hash, PORTAL_BYTES), []);
      assert.equal(
        await d.call(PORTAL_BYTES, callData(OPTIMISM_PORTAL_SELECTORS["minimumGasLimit(uint64)"], [word(10n)])),
        21_400n,
      );
    });
  });

  describe("SystemConfig", () => {
    const genesis: SystemConfig = l1DevnetGenesisSystemConfig(OPTS);
    const newBatcher = ACCOUNTS[6]!.address;
    const newSigner = ACCOUNTS[7]!.address;
    const setters = (): Uint8Array[] => [
      sc("setBatcherHash(bytes32)", bytesToBigint(newBatcher)),
      sc("setGasConfigEcotone(uint32,uint32)", 2_000n, 700_000n),
      sc("setGasLimit(uint64)", 60_000_000n),
      sc("setUnsafeBlockSigner(address)", bytesToBigint(newSigner)),
      sc("setEIP1559Params(uint32,uint32)", 250n, 6n),
      sc("setOperatorFeeScalars(uint32,uint64)", 0xabcdefn, 0x0123456789abcdefn),
      sc("setMinBaseFee(uint64)", 1_000_000n),
      sc("setDAFootprintGasScalar(uint16)", 400n),
    ];

    it("owner setters emit ConfigUpdate logs that derivation applies", async () => {
      const d = new Devnet();
      const txs = setters().map((data) => d.tx(OWNER, SYSTEM_CONFIG_BYTES, data));
      const { ref, receipts } = await d.mine(txs);
      assert.deepEqual(
        receipts.map((r) => r.status),
        txs.map(() => 1),
      );
      const { config, warnings } = applyConfigUpdateLogs(
        genesis,
        receipts,
        SYSTEM_CONFIG_BYTES,
        ECOTONE_CFG,
        ref.timestamp,
      );
      assert.deepEqual(warnings, []);
      assert.equal(bytesToHex(config.batcherAddr), bytesToHex(newBatcher));
      assert.equal(bytesToHex(config.overhead), bytesToHex(new Uint8Array(32)));
      assert.deepEqual(ecotoneScalars(config), { baseFeeScalar: 2_000, blobBaseFeeScalar: 700_000 });
      assert.equal(config.gasLimit, 60_000_000n);
      assert.equal(bytesToHex(config.eip1559Params), "0x000000fa00000006");
      assert.deepEqual(operatorFeeParams(config), { scalar: 0xabcdef, constant: 0x0123456789abcdefn });
      assert.equal(config.minBaseFee, 1_000_000n);
      assert.equal(config.daFootprintGasScalar, 400);

      // The getters and the unsafe block signer slot agree.
      assert.equal(await d.get("batcherHash()"), bytesToBigint(newBatcher));
      assert.equal(await d.get("scalar()"), (1n << 248n) | (700_000n << 32n) | 2_000n);
      assert.equal(await d.get("basefeeScalar()"), 2_000n);
      assert.equal(await d.get("blobbasefeeScalar()"), 700_000n);
      assert.equal(await d.get("gasLimit()"), 60_000_000n);
      assert.equal(await d.get("eip1559Denominator()"), 250n);
      assert.equal(await d.get("eip1559Elasticity()"), 6n);
      assert.equal(await d.get("operatorFeeScalar()"), 0xabcdefn);
      assert.equal(await d.get("operatorFeeConstant()"), 0x0123456789abcdefn);
      assert.equal(await d.get("minBaseFee()"), 1_000_000n);
      assert.equal(await d.get("daFootprintGasScalar()"), 400n);
      assert.equal(await d.get("unsafeBlockSigner()"), bytesToBigint(newSigner));
      assert.equal(await d.storageAt(SYSTEM_CONFIG_BYTES, UNSAFE_BLOCK_SIGNER_SLOT), bytesToBigint(newSigner));
      // Untouched values stay.
      assert.equal(await d.get("owner()"), bytesToBigint(OWNER.address));
      assert.equal(await d.get("batchInbox()"), bytesToBigint(BATCH_INBOX));
      assert.equal(await d.get("startBlock()"), 7n);
    });

    it("setGasConfig emits the legacy overhead and scalar", async () => {
      const d = new Devnet();
      const { ref, receipts } = await d.mine([
        d.tx(OWNER, SYSTEM_CONFIG_BYTES, sc("setGasConfig(uint256,uint256)", 188n, 684_000n)),
      ]);
      assert.equal(receipts[0]!.status, 1);
      const pre = applyConfigUpdateLogs(genesis, receipts, SYSTEM_CONFIG_BYTES, BEDROCK_CFG, ref.timestamp);
      assert.deepEqual(pre.warnings, []);
      assert.equal(bytesToBigint(pre.config.overhead), 188n);
      assert.equal(bytesToBigint(pre.config.scalar), 684_000n);
      // Under Ecotone the overhead is dropped and the version-0 scalar reads as the base fee scalar.
      const post = applyConfigUpdateLogs(genesis, receipts, SYSTEM_CONFIG_BYTES, ECOTONE_CFG, ref.timestamp);
      assert.deepEqual(post.warnings, []);
      assert.equal(bytesToBigint(post.config.overhead), 0n);
      assert.deepEqual(ecotoneScalars(post.config), { baseFeeScalar: 684_000, blobBaseFeeScalar: 0 });
      assert.equal(await d.get("overhead()"), 188n);
      assert.equal(await d.get("scalar()"), 684_000n);
    });

    it("non-owner calls and invalid values revert", async () => {
      const d = new Devnet();
      const txs = [
        ...setters().map((data) => d.tx(USER, SYSTEM_CONFIG_BYTES, data)),
        d.tx(USER, SYSTEM_CONFIG_BYTES, sc("setGasConfig(uint256,uint256)", 188n, 684_000n)),
        d.tx(USER, SYSTEM_CONFIG_BYTES, sc("transferOwnership(address)", bytesToBigint(USER.address))),
        d.tx(OWNER, SYSTEM_CONFIG_BYTES, sc("setEIP1559Params(uint32,uint32)", 0n, 6n)),
        d.tx(OWNER, SYSTEM_CONFIG_BYTES, sc("setEIP1559Params(uint32,uint32)", 250n, 0n)),
        d.tx(OWNER, SYSTEM_CONFIG_BYTES, sc("setGasConfig(uint256,uint256)", 0n, 1n << 248n)),
        d.tx(OWNER, SYSTEM_CONFIG_BYTES, sc("transferOwnership(address)", 0n)),
      ];
      const { ref, receipts } = await d.mine(txs);
      assert.deepEqual(
        receipts.map((r) => r.status),
        txs.map(() => 0),
      );
      const { config, warnings } = applyConfigUpdateLogs(
        genesis,
        receipts,
        SYSTEM_CONFIG_BYTES,
        ECOTONE_CFG,
        ref.timestamp,
      );
      assert.deepEqual(warnings, []);
      assert.equal(config, genesis);
      assert.equal(await d.storageAt(SYSTEM_CONFIG_BYTES, UNSAFE_BLOCK_SIGNER_SLOT), bytesToBigint(SIGNER));
      assert.equal(await d.get("owner()"), bytesToBigint(OWNER.address));
    });

    it("transferOwnership hands the setters to the new owner", async () => {
      const d = new Devnet();
      const txs = [
        d.tx(OWNER, SYSTEM_CONFIG_BYTES, sc("transferOwnership(address)", bytesToBigint(USER.address))),
        d.tx(OWNER, SYSTEM_CONFIG_BYTES, sc("setGasLimit(uint64)", 40_000_000n)),
        d.tx(USER, SYSTEM_CONFIG_BYTES, sc("setGasLimit(uint64)", 50_000_000n)),
      ];
      const { ref, receipts } = await d.mine(txs);
      assert.deepEqual(
        receipts.map((r) => r.status),
        [1, 0, 1],
      );
      const { config } = applyConfigUpdateLogs(genesis, receipts, SYSTEM_CONFIG_BYTES, ECOTONE_CFG, ref.timestamp);
      assert.equal(config.gasLimit, 50_000_000n);
      assert.equal(await d.get("owner()"), bytesToBigint(USER.address));
    });
  });
});
