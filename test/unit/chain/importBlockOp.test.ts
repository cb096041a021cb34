/**
 * importBlock on tiny OP chains built here: genesis via writeAlloc, each block executed on a second
 * store to get its state/receipts/tx roots, then imported. The OP consensus checks are exercised
 * with values computed independently in this file:
 * - Isthmus withdrawalsRoot = storage root of L2ToL1MessagePasser 0x4200…0016 after the block
 *   (specs/protocol/isthmus/exec-engine.md, op-stack.md §3.6), recomputed with @ethereumjs/mpt;
 *   before Isthmus it is the empty-trie root;
 * - Jovian blobGasUsed = the block's DA footprint (specs/protocol/jovian/exec-engine.md
 *   #da-footprint-block-limit: Σ max(100, (-42_585_600 + 836_500·fastlzSize) // 1e6) · scalar over
 *   non-deposit txs; the FastLZ length is fastLz.ts, pinned by its own vectors);
 * - the withdrawals list of an L2 block must be empty (op-stack.md §3.6, "from Canyon the body list
 *   is empty");
 * - blob txs are invalid inside an OP block (op-stack.md §3.6);
 * - Canyon's create2Deployer appears only at the block whose timestamp equals canyonTime
 *   (op-geth consensus/misc/create2deployer.go `EnsureCreate2Deployer`: `*c.CanyonTime != timestamp`
 *   → nothing), with the code hash 0xb0550b5b…68b2.
 */
import { strict as assert } from "node:assert";
import { createMPT } from "@ethereumjs/mpt";
import { RLP } from "@ethereumjs/rlp";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { encodeBlock } from "../../../src/block/block.js";
import { EMPTY_OMMERS_HASH, type Header, headerHash } from "../../../src/block/header.js";
import { encodeReceipt, encodeReceiptsForRoot } from "../../../src/block/receipt.js";
import type { Withdrawal } from "../../../src/block/withdrawal.js";
import { type AllocAccount, writeAlloc } from "../../../src/chain/genesisState.js";
import {
  type ImportedBlock,
  type ImportFailure,
  importBlock,
  isImportFailure,
} from "../../../src/chain/importBlock.js";
import { privateKeyToAddress } from "../../../src/crypto/secp256k1.js";
import { executeBlock } from "../../../src/executor/executeBlock.js";
import { fastLzCompressedLength } from "../../../src/executor/op/fastLz.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { type ChainConfig, parseChainConfig, rulesAt } from "../../../src/spec/chainConfig.js";
import { Fork, OpFork } from "../../../src/spec/forks.js";
import { KvStateReader } from "../../../src/state/kvStateReader.js";
import { WorldState } from "../../../src/state/worldState.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { orderedTrieRoot } from "../../../src/trie/orderedRoot.js";
import { updateStateRoot } from "../../../src/trie/stateRoot.js";
import { encodeTx } from "../../../src/tx/envelope.js";
import { encodeL1BlockInfo, L1InfoFormat, newL1BlockInfo } from "../../../src/tx/l1BlockInfo.js";
import { signTx } from "../../../src/tx/signer.js";
import { type BlobTx, type DepositTx, type FeeMarketTx, type Tx, TxType } from "../../../src/tx/tx.js";
import { blobTx, DEV_KEY } from "../tx/builders.js";

const CHAIN_ID = 10;
const GAS_LIMIT = 30_000_000n;
const GENESIS_BASE_FEE = 1_000_000_000n;

const DEPOSITOR = hexToBytes("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");
const L1_BLOCK = hexToBytes("0x4200000000000000000000000000000000000015");
const MESSAGE_PASSER = hexToBytes("0x4200000000000000000000000000000000000016");
const SEQUENCER_FEE_VAULT = hexToBytes("0x4200000000000000000000000000000000000011");
const CREATE2_DEPLOYER = hexToBytes("0x13b0D85CcB8bf860b6b79AF3029fCA081AE9beF2");
const CREATE2_DEPLOYER_CODE_HASH = "0xb0550b5b431e30d38000efb7107aaa0ade03d48a7198a140edda9d27134468b2";
const RECIPIENT = hexToBytes("0x0000000000000000000000000000000000000b0b");
const SENDER = privateKeyToAddress(DEV_KEY);

/** keccak256(rlp("")): the root of an empty trie (Yellow Paper). */
const EMPTY_ROOT = keccak_256(Uint8Array.of(0x80));
/** sha256(""): the Isthmus requestsHash (isthmus/exec-engine.md). */
const EMPTY_REQUESTS_HASH = sha256(new Uint8Array(0));

/** PUSH1 0 CALLDATALOAD PUSH1 1 SSTORE STOP: stores the first calldata word at slot 1. */
const STORE_WORD_CODE = Uint8Array.of(0x60, 0x00, 0x35, 0x60, 0x01, 0x55, 0x00);

const ELASTICITY = 6;
const DENOMINATOR = 50;
const DENOMINATOR_CANYON = 250;

function configJson(opTimes: Record<string, number>, l1Times: Record<string, number>): Record<string, unknown> {
  const blocks = [
    "homesteadBlock",
    "eip150Block",
    "eip155Block",
    "eip158Block",
    "byzantiumBlock",
    "constantinopleBlock",
    "petersburgBlock",
    "istanbulBlock",
    "muirGlacierBlock",
    "berlinBlock",
    "londonBlock",
    "arrowGlacierBlock",
    "grayGlacierBlock",
    "mergeNetsplitBlock",
    "bedrockBlock",
  ];
  const json: Record<string, unknown> = {
    chainId: CHAIN_ID,
    terminalTotalDifficulty: 0,
    terminalTotalDifficultyPassed: true,
    optimism: {
      eip1559Elasticity: ELASTICITY,
      eip1559Denominator: DENOMINATOR,
      eip1559DenominatorCanyon: DENOMINATOR_CANYON,
    },
    ...l1Times,
    ...opTimes,
  };
  for (const b of blocks) json[b] = 0;
  return json;
}

/** All OP forks through `last` at 0, with op-geth's L1 times (shanghai = canyon, cancun = ecotone, prague = isthmus). */
function configUpTo(last: OpFork): ChainConfig {
  const names: [OpFork, string][] = [
    [OpFork.Regolith, "regolithTime"],
    [OpFork.Canyon, "canyonTime"],
    [OpFork.Delta, "deltaTime"],
    [OpFork.Ecotone, "ecotoneTime"],
    [OpFork.Fjord, "fjordTime"],
    [OpFork.Granite, "graniteTime"],
    [OpFork.Holocene, "holoceneTime"],
    [OpFork.Isthmus, "isthmusTime"],
    [OpFork.Jovian, "jovianTime"],
  ];
  const op: Record<string, number> = {};
  for (const [f, n] of names) if (f <= last) op[n] = 0;
  const l1: Record<string, number> = {};
  if (last >= OpFork.Canyon) l1.shanghaiTime = 0;
  if (last >= OpFork.Ecotone) l1.cancunTime = 0;
  if (last >= OpFork.Isthmus) l1.pragueTime = 0;
  return parseChainConfig(configJson(op, l1));
}

function u32(v: number): number[] {
  return [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff];
}

/** holocene/exec-engine.md (version 0, 9 bytes) and jovian/exec-engine.md (version 1, + u64 minBaseFee). */
function extraDataFor(op: OpFork): Uint8Array {
  if (op >= OpFork.Jovian)
    return Uint8Array.from([1, ...u32(DENOMINATOR_CANYON), ...u32(ELASTICITY), 0, 0, 0, 0, 0, 0, 0, 0]);
  if (op >= OpFork.Holocene) return Uint8Array.from([0, ...u32(DENOMINATOR_CANYON), ...u32(ELASTICITY)]);
  return new Uint8Array(0);
}

function readU32(b: Uint8Array, pos: number): bigint {
  return BigInt(((b[pos] << 24) >>> 0) + (b[pos + 1] << 16) + (b[pos + 2] << 8) + b[pos + 3]);
}

/**
 * EIP-1559 with the OP parameters (exec-engine.md#1559-parameters; holocene: the parent's extraData;
 * jovian: max(gasUsed, blobGasUsed) and the minimum base fee).
 */
function nextBaseFee(parent: Header, parentOp: OpFork, childOp: OpFork): bigint {
  let elasticity = BigInt(ELASTICITY);
  let denominator = BigInt(childOp >= OpFork.Canyon ? DENOMINATOR_CANYON : DENOMINATOR);
  let minBaseFee = 0n;
  let used = BigInt(parent.gasUsed);
  if (parentOp >= OpFork.Holocene) {
    denominator = readU32(parent.extraData, 1);
    elasticity = readU32(parent.extraData, 5);
    if (parentOp >= OpFork.Jovian) {
      minBaseFee = (readU32(parent.extraData, 9) << 32n) | readU32(parent.extraData, 13);
      if (BigInt(parent.blobGasUsed ?? 0) > used) used = BigInt(parent.blobGasUsed ?? 0);
    }
  }
  const fee = parent.baseFeePerGas as bigint;
  const target = parent.gasLimit / elasticity;
  let next = fee;
  if (used > target) {
    const d = (fee * (used - target)) / target / denominator;
    next = fee + (d < 1n ? 1n : d);
  } else if (used < target) {
    next = fee - (fee * (target - used)) / target / denominator;
  }
  return next < minBaseFee ? minBaseFee : next;
}

/** Storage root of `slots` (secure trie: keccak(slot32) → rlp(minimal value)), by @ethereumjs/mpt. */
async function storageRoot(slots: readonly [bigint, bigint][]): Promise<Uint8Array> {
  const trie = await createMPT({ useKeyHashing: true });
  for (const [slot, value] of slots) {
    const key = hexToBytes(`0x${slot.toString(16).padStart(64, "0")}`);
    await trie.put(key, RLP.encode(value));
  }
  return trie.root();
}

/** jovian/exec-engine.md#da-footprint-block-limit, from the encoded txs of the block. */
function daFootprint(txs: readonly Uint8Array[], scalar: bigint): bigint {
  let total = 0n;
  for (const raw of txs) {
    if (raw[0] === 0x7e) continue;
    const flz = BigInt(fastLzCompressedLength(raw));
    const scaled = -42_585_600n + 836_500n * flz;
    // Floor division; a negative estimate is below the 100-byte minimum either way.
    let est = scaled < 0n ? -1n : scaled / 1_000_000n;
    if (est < 100n) est = 100n;
    total += est * scalar;
  }
  return total;
}

function word(v: bigint): Uint8Array {
  return hexToBytes(`0x${v.toString(16).padStart(64, "0")}`);
}

/** Pseudo-random (incompressible) bytes: a keccak chain. */
function noise(n: number): Uint8Array {
  const out = new Uint8Array(n);
  let h = keccak_256(Uint8Array.of(1));
  for (let i = 0; i < n; i += 32) {
    out.set(h.subarray(0, Math.min(32, n - i)), i);
    h = keccak_256(h);
  }
  return out;
}

const DA_SCALAR = 400;

function l1InfoDeposit(op: OpFork, seq: bigint): DepositTx {
  const common = {
    number: 100n,
    timestamp: 1_700_000_000n,
    baseFee: 30_000_000_000n,
    sequenceNumber: seq,
    hash: new Uint8Array(32).fill(0x11),
  };
  const info =
    op < OpFork.Ecotone
      ? newL1BlockInfo({ ...common, format: L1InfoFormat.Bedrock, l1FeeOverhead: 188n, l1FeeScalar: 684_000n })
      : newL1BlockInfo({
          ...common,
          format:
            op >= OpFork.Jovian
              ? L1InfoFormat.Jovian
              : op >= OpFork.Isthmus
                ? L1InfoFormat.Isthmus
                : L1InfoFormat.Ecotone,
          blobBaseFee: 1n,
          baseFeeScalar: 1_368,
          blobBaseFeeScalar: 810_949,
          operatorFeeScalar: 1_000_000,
          operatorFeeConstant: 10n,
          daFootprintGasScalar: DA_SCALAR,
        });
  const sourceHash = new Uint8Array(32);
  sourceHash[31] = Number(seq);
  return {
    type: TxType.Deposit,
    sourceHash,
    from: DEPOSITOR,
    to: L1_BLOCK,
    mint: 0n,
    value: 0n,
    gasLimit: 1_000_000n,
    isSystemTx: op < OpFork.Regolith,
    data: encodeL1BlockInfo(info),
  };
}

interface Built {
  header: Header;
  transactions: Uint8Array[];
  withdrawals: Withdrawal[] | null;
}

interface BuildOpts {
  /** Isthmus+: the withdrawalsRoot to write (the test computes it); default the empty root. */
  withdrawalsRoot?: Uint8Array;
}

class TestChain {
  readonly kv = new MemoryKv();
  private readonly scratch = new MemoryKv();
  head: Header;
  nonce = 0n;

  constructor(
    readonly cfg: ChainConfig,
    alloc: readonly AllocAccount[],
  ) {
    const root = writeAlloc(this.kv, alloc);
    writeAlloc(this.scratch, alloc);
    const rules = rulesAt(cfg, 0, 0);
    const fork = rules.fork;
    this.head = {
      parentHash: new Uint8Array(32),
      ommersHash: EMPTY_OMMERS_HASH,
      coinbase: new Uint8Array(20),
      stateRoot: root,
      transactionsRoot: EMPTY_ROOT,
      receiptsRoot: EMPTY_ROOT,
      logsBloom: new Uint8Array(256),
      difficulty: 0n,
      number: 0,
      gasLimit: GAS_LIMIT,
      gasUsed: 0,
      timestamp: 0,
      extraData: extraDataFor(rules.op as OpFork),
      mixHash: new Uint8Array(32),
      nonce: new Uint8Array(8),
      baseFeePerGas: GENESIS_BASE_FEE,
      withdrawalsRoot: fork >= Fork.Shanghai ? EMPTY_ROOT : null,
      blobGasUsed: fork >= Fork.Cancun ? 0 : null,
      excessBlobGas: fork >= Fork.Cancun ? 0 : null,
      parentBeaconBlockRoot: fork >= Fork.Cancun ? new Uint8Array(32) : null,
      requestsHash: fork >= Fork.Prague ? EMPTY_REQUESTS_HASH : null,
    };
  }

  userTx(over: Partial<FeeMarketTx> = {}): FeeMarketTx {
    const tx: FeeMarketTx = {
      type: TxType.FeeMarket,
      chainId: BigInt(CHAIN_ID),
      nonce: this.nonce++,
      maxPriorityFeePerGas: 1n,
      maxFeePerGas: 10_000_000_000n,
      gasLimit: 200_000n,
      to: RECIPIENT,
      value: 1n,
      data: new Uint8Array(0),
      accessList: [],
      yParity: 0,
      r: 0n,
      s: 0n,
      ...over,
    };
    return signTx(tx, DEV_KEY);
  }

  /** Builds the next valid block on `head` at `timestamp` (executed on the scratch store). */
  build(timestamp: number, userTxs: readonly Tx[], opts: BuildOpts = {}): Built {
    const parent = this.head;
    const number = parent.number + 1;
    const rules = rulesAt(this.cfg, number, timestamp);
    const op = rules.op as OpFork;
    const parentOp = rulesAt(this.cfg, parent.number, parent.timestamp).op as OpFork;
    const fork = rules.fork;
    const txs: Tx[] = [l1InfoDeposit(op, BigInt(number)), ...userTxs];
    const transactions = txs.map((t) => encodeTx(t));
    const header: Header = {
      parentHash: headerHash(parent),
      ommersHash: EMPTY_OMMERS_HASH,
      coinbase: SEQUENCER_FEE_VAULT,
      stateRoot: new Uint8Array(32),
      transactionsRoot: orderedTrieRoot(transactions),
      receiptsRoot: new Uint8Array(32),
      logsBloom: new Uint8Array(256),
      difficulty: 0n,
      number,
      gasLimit: GAS_LIMIT,
      gasUsed: 0,
      timestamp,
      extraData: extraDataFor(op),
      mixHash: new Uint8Array(32).fill(0x42),
      nonce: new Uint8Array(8),
      baseFeePerGas: nextBaseFee(parent, parentOp, op),
      withdrawalsRoot: fork >= Fork.Shanghai ? (opts.withdrawalsRoot ?? EMPTY_ROOT) : null,
      blobGasUsed:
        fork >= Fork.Cancun ? (op >= OpFork.Jovian ? Number(daFootprint(transactions, BigInt(DA_SCALAR))) : 0) : null,
      excessBlobGas: fork >= Fork.Cancun ? 0 : null,
      parentBeaconBlockRoot: fork >= Fork.Cancun ? new Uint8Array(32).fill(0xbe) : null,
      requestsHash: fork >= Fork.Prague ? EMPTY_REQUESTS_HASH : null,
    };
    const withdrawals = fork >= Fork.Shanghai ? [] : null;
    const state = new WorldState(new KvStateReader(this.scratch), this.scratch);
    const res = executeBlock(
      state,
      { header, txs, senders: txs.map((t) => (t.type === TxType.Deposit ? t.from : SENDER)), ommers: [], withdrawals },
      {
        rules,
        chainId: BigInt(CHAIN_ID),
        // EIP-4844/7516: fake_exponential(MIN_BASE_FEE_PER_BLOB_GAS = 1, excessBlobGas = 0, …) = 1 from
        // Cancun (Ecotone) on; op-geth core/evm.go NewEVMBlockContext: CalcBlobFee(header.ExcessBlobGas).
        blobBaseFee: fork >= Fork.Cancun ? 1n : 0n,
        maxBlobGas: 0,
        depositContract: null,
        blockHash: () => 0n,
        intermediateRoot: null,
        // op-geth EnsureCreate2Deployer: exactly the block whose timestamp is canyonTime.
        canyonActivation: this.cfg.canyonTime === timestamp,
      },
    );
    if ("error" in res) assert.fail(`building block ${number}: ${res.error} at ${res.txIndex}`);
    const c = state.commitBlock();
    this.scratch.write(c.batch);
    const r = updateStateRoot(this.scratch, c.changeset);
    this.scratch.write(r.batch);
    header.stateRoot = r.root;
    header.gasUsed = res.gasUsed;
    header.receiptsRoot = orderedTrieRoot(encodeReceiptsForRoot(res.receipts, rules));
    header.logsBloom = res.logsBloom;
    return { header, transactions, withdrawals };
  }

  import(
    b: Built,
    header: Partial<Header> = {},
    body: Partial<Omit<Built, "header">> = {},
  ): ImportedBlock | ImportFailure {
    const rlp = encodeBlock({
      header: { ...b.header, ...header },
      body: {
        transactions: body.transactions ?? b.transactions,
        ommers: [],
        withdrawals: body.withdrawals ?? b.withdrawals,
      },
    });
    return importBlock({ kv: this.kv, cfg: this.cfg, blockHash: () => 0n }, this.head, rlp);
  }

  accept(b: Built): void {
    const r = this.import(b);
    if (isImportFailure(r)) assert.fail(`block ${b.header.number}: ${r.error}`);
    this.head = r.header;
  }

  codeHashAt(address: Uint8Array): string | null {
    const acc = new KvStateReader(this.kv).account(keccak_256(address));
    return acc === null ? null : bytesToHex(acc.codeHash);
  }
}

function rejected(r: ImportedBlock | ImportFailure, code: string | RegExp): void {
  assert.ok(isImportFailure(r), "block was accepted");
  if (typeof code === "string") assert.equal(r.error, code);
  else assert.match(r.error, code);
}

const FUNDED: AllocAccount = { address: SENDER, nonce: 0n, balance: 10n ** 20n, code: new Uint8Array(0), storage: [] };

function passer(storage: [bigint, bigint][]): AllocAccount {
  return { address: MESSAGE_PASSER, nonce: 1n, balance: 0n, code: STORE_WORD_CODE, storage };
}

const A_WITHDRAWAL: Withdrawal = { index: 0n, validatorIndex: 1n, address: RECIPIENT, amount: 1_000n };

describe("chain/importBlock on OP chains", () => {
  describe("Isthmus: withdrawalsRoot is the L2ToL1MessagePasser storage root", () => {
    it("a block writing the passer's storage: only the post-block storage root is accepted", async () => {
      const chain = new TestChain(configUpTo(OpFork.Isthmus), [FUNDED, passer([[0n, 5n]])]);
      const before = await storageRoot([[0n, 5n]]);
      const after = await storageRoot([
        [0n, 5n],
        [1n, 0xabcdn],
      ]);
      assert.notDeepEqual(before, after);
      const b = chain.build(1, [chain.userTx({ to: MESSAGE_PASSER, data: word(0xabcdn) })], { withdrawalsRoot: after });
      rejected(chain.import(b, { withdrawalsRoot: EMPTY_ROOT }), "WITHDRAWALS_ROOT");
      rejected(chain.import(b, { withdrawalsRoot: before }), "WITHDRAWALS_ROOT");
      // The rejections rewound the store: the right block still imports, and the state is its own.
      chain.accept(b);
      assert.equal(bytesToHex(chain.head.withdrawalsRoot as Uint8Array), bytesToHex(after));

      // A next block that does not touch the passer carries the same (current) root, not the empty one.
      const b2 = chain.build(2, [chain.userTx()], { withdrawalsRoot: after });
      rejected(chain.import(b2, { withdrawalsRoot: EMPTY_ROOT }), "WITHDRAWALS_ROOT");
      chain.accept(b2);
    });

    it("no passer account or storage: the empty-trie root", () => {
      const chain = new TestChain(configUpTo(OpFork.Isthmus), [FUNDED]);
      const b = chain.build(1, [chain.userTx()], { withdrawalsRoot: EMPTY_ROOT });
      rejected(chain.import(b, { withdrawalsRoot: new Uint8Array(32).fill(1) }), "WITHDRAWALS_ROOT");
      chain.accept(b);
    });

    it("a non-empty withdrawals list is rejected on L2", async () => {
      const chain = new TestChain(configUpTo(OpFork.Isthmus), [FUNDED, passer([[0n, 5n]])]);
      const b = chain.build(1, [chain.userTx()], { withdrawalsRoot: await storageRoot([[0n, 5n]]) });
      rejected(chain.import(b, {}, { withdrawals: [A_WITHDRAWAL] }), "WITHDRAWALS_ON_L2");
      chain.accept(b);
    });

    it("a blob tx inside the block is invalid", () => {
      const chain = new TestChain(configUpTo(OpFork.Isthmus), [FUNDED]);
      const b = chain.build(1, [chain.userTx()]);
      const blob: BlobTx = signTx(blobTx({ chainId: BigInt(CHAIN_ID), nonce: 0n, maxFeePerGas: 10n ** 10n }), DEV_KEY);
      const transactions = [b.transactions[0], encodeTx(blob)];
      const r = chain.import(b, { transactionsRoot: orderedTrieRoot(transactions) }, { transactions });
      rejected(r, /^TX_INVALID\[1\]: TYPE_NOT_SUPPORTED/);
    });
  });

  describe("BLOBBASEFEE on OP chains", () => {
    // BLOBBASEFEE; PUSH1 0; SSTORE; STOP
    const PROBE = hexToBytes("0x00000000000000000000000000000000000b10bf");
    const PROBE_CODE = Uint8Array.of(0x4a, 0x60, 0x00, 0x55, 0x00);

    // importBlock (src/chain/importBlock.ts, env.blobBaseFee) passes 0n when the chain config has no
    // blob schedule, which is every OP chain (parseChainConfig fills no defaults for them), so the
    // opcode pushes 0 where EIP-4844/7516 and op-geth push 1 (excessBlobGas is always 0 on L2).
    it("pushes 1 (the EIP-4844 blob base fee at excessBlobGas 0), as op-geth does", () => {
      const probe: AllocAccount = { address: PROBE, nonce: 1n, balance: 0n, code: PROBE_CODE, storage: [] };
      const chain = new TestChain(configUpTo(OpFork.Isthmus), [FUNDED, probe]);
      const b = chain.build(1, [chain.userTx({ to: PROBE, value: 0n })]);
      chain.accept(b);
      const stored = new KvStateReader(chain.kv).storage(keccak_256(PROBE), keccak_256(new Uint8Array(32)));
      assert.equal(stored, 1n);
    });
  });

  describe("before Isthmus (Holocene): withdrawalsRoot is the empty-trie root", () => {
    it("even when the passer's storage changes", async () => {
      const chain = new TestChain(configUpTo(OpFork.Holocene), [FUNDED, passer([[0n, 5n]])]);
      const b = chain.build(1, [chain.userTx({ to: MESSAGE_PASSER, data: word(7n) })]);
      const passerRoot = await storageRoot([
        [0n, 5n],
        [1n, 7n],
      ]);
      rejected(chain.import(b, { withdrawalsRoot: passerRoot }), "WITHDRAWALS_ROOT");
      chain.accept(b);
      assert.deepEqual(chain.head.withdrawalsRoot, EMPTY_ROOT);
    });

    it("a non-empty withdrawals list is rejected on L2 (even with its own correct root)", () => {
      const chain = new TestChain(configUpTo(OpFork.Holocene), [FUNDED]);
      const b = chain.build(1, [chain.userTx()]);
      const root = orderedTrieRoot([
        RLP.encode([A_WITHDRAWAL.index, A_WITHDRAWAL.validatorIndex, A_WITHDRAWAL.address, A_WITHDRAWAL.amount]),
      ]);
      rejected(chain.import(b, { withdrawalsRoot: root }, { withdrawals: [A_WITHDRAWAL] }), "WITHDRAWALS_ON_L2");
      chain.accept(b);
    });
  });

  describe("Jovian: blobGasUsed is the DA footprint", () => {
    it("the footprint of a large incompressible tx is above the 100-byte minimum (formula, not floor)", () => {
      const chain = new TestChain(configUpTo(OpFork.Jovian), [FUNDED]);
      const raw = encodeTx(chain.userTx({ data: noise(600) }));
      const flz = fastLzCompressedLength(raw);
      assert.ok(flz > 600);
      const est = (-42_585_600 + 836_500 * flz) / 1_000_000;
      assert.ok(est > 100);
      assert.equal(daFootprint([raw], 400n), BigInt(Math.floor(est)) * 400n);
    });

    it("a wrong blobGasUsed is rejected; the footprint is accepted", () => {
      const chain = new TestChain(configUpTo(OpFork.Jovian), [FUNDED]);
      const b = chain.build(1, [chain.userTx({ data: noise(600) }), chain.userTx()]);
      const want = daFootprint(b.transactions, BigInt(DA_SCALAR));
      // One large tx and one empty tx (which counts the 100-byte minimum): deposits count 0.
      assert.equal(want, daFootprint([b.transactions[1]], BigInt(DA_SCALAR)) + 100n * BigInt(DA_SCALAR));
      assert.equal(BigInt(b.header.blobGasUsed as number), want);
      rejected(chain.import(b, { blobGasUsed: Number(want) + 1 }), "BLOB_GAS_USED");
      rejected(chain.import(b, { blobGasUsed: Number(want) - DA_SCALAR }), "BLOB_GAS_USED");
      rejected(chain.import(b, { blobGasUsed: 0 }), "BLOB_GAS_USED");
      chain.accept(b);
      // The next block's base fee meters max(gasUsed, blobGasUsed) of this one (nextBaseFee above), and
      // here the DA footprint is the larger, so a base fee from gasUsed alone would be rejected.
      assert.ok((b.header.blobGasUsed as number) > b.header.gasUsed);
      const b2 = chain.build(2, []);
      chain.accept(b2);
    });

    it("a deposits-only Jovian block has blobGasUsed 0", () => {
      const chain = new TestChain(configUpTo(OpFork.Jovian), [FUNDED]);
      const b = chain.build(1, []);
      assert.equal(b.header.blobGasUsed, 0);
      rejected(chain.import(b, { blobGasUsed: 400 }), "BLOB_GAS_USED");
      chain.accept(b);
    });

    it("the Isthmus withdrawalsRoot rule still holds", async () => {
      const chain = new TestChain(configUpTo(OpFork.Jovian), [FUNDED, passer([])]);
      const after = await storageRoot([[1n, 3n]]);
      const b = chain.build(1, [chain.userTx({ to: MESSAGE_PASSER, data: word(3n) })], { withdrawalsRoot: after });
      rejected(chain.import(b, { withdrawalsRoot: EMPTY_ROOT }), "WITHDRAWALS_ROOT");
      chain.accept(b);
    });
  });

  describe("Canyon activation: the create2Deployer code", () => {
    function canyonAt2(): TestChain {
      const json = configJson({ regolithTime: 0, canyonTime: 2 }, { shanghaiTime: 2 });
      return new TestChain(parseChainConfig(json), [FUNDED]);
    }

    it("appears exactly at the block whose timestamp equals canyonTime, and stays", () => {
      const chain = canyonAt2();
      chain.accept(chain.build(1, [chain.userTx()]));
      assert.equal(chain.codeHashAt(CREATE2_DEPLOYER), null);
      chain.accept(chain.build(2, [chain.userTx()]));
      assert.equal(chain.codeHashAt(CREATE2_DEPLOYER), CREATE2_DEPLOYER_CODE_HASH);
      chain.accept(chain.build(3, [chain.userTx()]));
      assert.equal(chain.codeHashAt(CREATE2_DEPLOYER), CREATE2_DEPLOYER_CODE_HASH);
    });

    it("is never set when no block has timestamp canyonTime", () => {
      const chain = canyonAt2();
      chain.accept(chain.build(1, []));
      chain.accept(chain.build(3, []));
      assert.equal(chain.codeHashAt(CREATE2_DEPLOYER), null);
    });

    it("a Canyon block carries depositReceiptVersion in its receipts root; Regolith does not", () => {
      const chain = canyonAt2();
      const b1 = chain.build(1, []);
      chain.accept(b1);
      const b2 = chain.build(2, []);
      chain.accept(b2);
      // Independently: the deposit receipt hashed for the root is 0x7e ‖ rlp([status, cumGas, bloom, logs]) at
      // Regolith and 0x7e ‖ rlp([..., depositNonce, 1]) from Canyon (deposits.md#deposit-receipt).
      const gas1 = b1.header.gasUsed;
      const gas2 = b2.header.gasUsed;
      const bloom = new Uint8Array(256);
      const regolithReceipt = Uint8Array.from([0x7e, ...RLP.encode([1, gas1, bloom, []])]);
      const canyonReceipt = Uint8Array.from([0x7e, ...RLP.encode([1, gas2, bloom, [], 1, 1])]);
      assert.deepEqual(b1.header.receiptsRoot, orderedTrieRoot([regolithReceipt]));
      assert.deepEqual(b2.header.receiptsRoot, orderedTrieRoot([canyonReceipt]));
    });

    it("hands on the root's receipt bytes for storage only where they are the consensus encoding", () => {
      const chain = canyonAt2();
      // Regolith: the deposit hashed without its nonce, which its consensus encoding carries: not
      // handed on. The user tx's bytes are the same either way.
      const r1 = chain.import(chain.build(1, [chain.userTx()]));
      if (isImportFailure(r1)) assert.fail(r1.error);
      chain.head = r1.header;
      assert.equal(r1.receipts[0]!.type, TxType.Deposit);
      assert.notEqual(r1.receipts[0]!.depositNonce, null);
      assert.equal(r1.receiptsEncoded[0], null);
      assert.deepEqual(r1.receiptsEncoded[1], encodeReceipt(r1.receipts[1]!));
      // Canyon: the deposit hashes with nonce and version, exactly its consensus encoding.
      const r2 = chain.import(chain.build(2, [chain.userTx()]));
      if (isImportFailure(r2)) assert.fail(r2.error);
      assert.equal(r2.receiptsEncoded.length, 2);
      for (const [i, r] of r2.receipts.entries())
        assert.deepEqual(r2.receiptsEncoded[i], encodeReceipt(r), `receipt ${i}`);
    });
  });
});
