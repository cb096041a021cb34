/**
 * Canyon's create2Deployer: the embedded code is the canonical one (its keccak256 is the code hash
 * op-geth consensus/misc/create2deployer.go and op-reth pin, 0xb0550b5b…68b2, 1584 bytes in op-reth's
 * `CREATE_2_DEPLOYER_BYTECODE: [u8; 1584]`), and executeBlock writes it at
 * 0x13b0D85CcB8bf860b6b79AF3029fCA081AE9beF2 only when told the block is the Canyon activation block
 * (specs/protocol/superchain-upgrades.md; op-stack.md §3.7). The timestamp rule itself (only the
 * block whose timestamp equals canyonTime) is exercised through importBlock in
 * test/unit/chain/importBlockOp.test.ts.
 */
import { strict as assert } from "node:assert";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { EMPTY_OMMERS_HASH, type Header } from "../../../../src/block/header.js";
import { writeAlloc } from "../../../../src/chain/genesisState.js";
import { executeBlock } from "../../../../src/executor/executeBlock.js";
import {
  CREATE2_DEPLOYER_ADDRESS,
  CREATE2_DEPLOYER_CODE,
  CREATE2_DEPLOYER_CODE_HASH,
} from "../../../../src/executor/op/create2Deployer.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { OpFork, opRules } from "../../../../src/spec/forks.js";
import { KvStateReader } from "../../../../src/state/kvStateReader.js";
import { WorldState } from "../../../../src/state/worldState.js";
import { MemoryKv } from "../../../../src/storage/memory.js";

const SPEC_CODE_HASH = "0xb0550b5b431e30d38000efb7107aaa0ade03d48a7198a140edda9d27134468b2";
const SPEC_ADDRESS = hexToBytes("0x13b0D85CcB8bf860b6b79AF3029fCA081AE9beF2");
const KECCAK_EMPTY = "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";

function header(): Header {
  return {
    parentHash: new Uint8Array(32),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: hexToBytes("0x4200000000000000000000000000000000000011"),
    stateRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    receiptsRoot: new Uint8Array(32),
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: 7,
    gasLimit: 30_000_000n,
    gasUsed: 0,
    timestamp: 2_000,
    extraData: new Uint8Array(0),
    mixHash: new Uint8Array(32),
    nonce: new Uint8Array(8),
    baseFeePerGas: 1_000n,
    withdrawalsRoot: null,
    blobGasUsed: null,
    excessBlobGas: null,
    parentBeaconBlockRoot: null,
    requestsHash: null,
  };
}

function runEmptyBlock(canyonActivation: boolean | undefined, balance: bigint, kv = new MemoryKv()): WorldState {
  if (balance > 0n) {
    writeAlloc(kv, [{ address: SPEC_ADDRESS, nonce: 0n, balance, code: new Uint8Array(0), storage: [] }]);
  }
  const state = new WorldState(new KvStateReader(kv), kv);
  const r = executeBlock(
    state,
    { header: header(), txs: [], senders: [], ommers: [], withdrawals: [] },
    {
      rules: opRules(OpFork.Canyon),
      chainId: 10n,
      blobBaseFee: 1n,
      maxBlobGas: 0,
      depositContract: null,
      blockHash: () => 0n,
      intermediateRoot: null,
      ...(canyonActivation === undefined ? {} : { canyonActivation }),
    },
  );
  assert.ok(!("error" in r));
  return state;
}

describe("executor/op/create2Deployer", () => {
  it("the embedded code hashes (independent keccak) to the spec's code hash and is 1584 bytes", () => {
    assert.equal(bytesToHex(keccak_256(CREATE2_DEPLOYER_CODE)), SPEC_CODE_HASH);
    assert.equal(CREATE2_DEPLOYER_CODE.length, 1584);
    assert.equal(CREATE2_DEPLOYER_CODE_HASH.toLowerCase(), SPEC_CODE_HASH);
    assert.equal(CREATE2_DEPLOYER_ADDRESS, BigInt(bytesToHex(SPEC_ADDRESS)));
  });

  it("the activation block sets the code at the canonical address and keeps the balance", () => {
    const state = runEmptyBlock(true, 77n);
    const acc = state.account(CREATE2_DEPLOYER_ADDRESS);
    assert.equal(bytesToHex(keccak_256(state.code(acc))), SPEC_CODE_HASH);
    assert.equal(bytesToHex(acc.codeHash), SPEC_CODE_HASH);
    assert.equal(acc.balance, 77n);
    assert.equal(acc.nonce, 0n);
  });

  it("the activation block creates the account when it did not exist, and the code is committed", () => {
    const kv = new MemoryKv();
    const state = runEmptyBlock(true, 0n, kv);
    kv.write(state.commitBlock().batch);
    const stored = new KvStateReader(kv).account(keccak_256(SPEC_ADDRESS));
    assert.ok(stored !== null);
    assert.equal(bytesToHex(stored.codeHash), SPEC_CODE_HASH);
    assert.equal(bytesToHex(keccak_256(new KvStateReader(kv).code(stored.codeHash))), SPEC_CODE_HASH);
  });

  for (const flag of [false, undefined]) {
    it(`any other block (canyonActivation ${flag}) leaves the address without code`, () => {
      const state = runEmptyBlock(flag, 5n);
      const acc = state.account(CREATE2_DEPLOYER_ADDRESS);
      assert.equal(state.code(acc).length, 0);
      assert.equal(bytesToHex(acc.codeHash), KECCAK_EMPTY);
    });
  }
});
