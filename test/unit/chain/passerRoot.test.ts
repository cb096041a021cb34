/**
 * Isthmus withdrawalsRoot on import through Blockchain: the L2ToL1MessagePasser's storage root the
 * header must carry is read as the import's trie batch leaves it, also while that batch is held for
 * the block's final write (ImportContext.persistLast), or written in parts before it (a sliced
 * import's trie batch of more than IMPORT_UNITS.trieOpsPerWrite rows). A block whose withdrawal
 * changes the passer's storage imports VALID on a second chain; the same block with another
 * withdrawalsRoot is INVALID.
 */
import { strict as assert } from "node:assert";
import { encodeBlock } from "../../../src/block/block.js";
import { Blockchain } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { IMPORT_UNITS } from "../../../src/chain/importBlock.js";
import { keccak256 } from "../../../src/crypto/keccak.js";
import { devAccounts, opDevGenesis } from "../../../src/node/exec/devGenesis.js";
import { opDevBlockParts } from "../../../src/node/exec/devSealer.js";
import { equalBytes } from "../../../src/primitives/bytes.js";
import { hexToBytes } from "../../../src/primitives/hex.js";
import type { WriteBatch } from "../../../src/storage/kv.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { encodeTx } from "../../../src/tx/envelope.js";
import { signTx } from "../../../src/tx/signer.js";
import { feeMarketTx } from "../tx/builders.js";

/** A store that counts its writes. */
class WriteCountingKv extends MemoryKv {
  writes = 0;
  override write(batch: WriteBatch): void {
    this.writes++;
    super.write(batch);
  }
}

const PASSER = hexToBytes("0x4200000000000000000000000000000000000016");
const CHAIN_ID = 901n;

/** initiateWithdrawal(address target, uint256 gasLimit, bytes data) with empty data. */
function withdrawalCall(target: Uint8Array): Uint8Array {
  const sel = keccak256(new TextEncoder().encode("initiateWithdrawal(address,uint256,bytes)")).subarray(0, 4);
  const out = new Uint8Array(4 + 32 * 4);
  out.set(sel, 0);
  out.set(target, 4 + 12);
  out[4 + 32 + 31] = 0x30; // gas limit 0x30000
  out[4 + 32 + 29] = 0x03;
  out[4 + 64 + 31] = 0x60; // offset of `data`
  return out; // data length 0
}

/** A Jovian dev genesis and a block on it whose withdrawal changes the passer's storage. */
function passerBlock() {
  const genesis = opDevGenesis({ chainId: CHAIN_ID, timestamp: 1_700_000_000, fork: "jovian" });
  const builder = Blockchain.init(new MemoryKv(), parseGenesis(genesis), genesis.config);
  const parent = builder.head;
  const parts = opDevBlockParts(builder.config, parent, parent.number + 1, parent.timestamp + 2);
  const from = devAccounts(1)[0]!;
  const tx = feeMarketTx({
    chainId: CHAIN_ID,
    nonce: 0n,
    maxPriorityFeePerGas: 1_000n,
    maxFeePerGas: 10n ** 10n,
    gasLimit: 300_000n,
    to: PASSER,
    value: 10n ** 15n,
    data: withdrawalCall(from.address),
  });
  const built = builder.buildBlock({
    parentHash: builder.headBlockHash,
    timestamp: parent.timestamp + 2,
    feeRecipient: hexToBytes("0x4200000000000000000000000000000000000011"),
    prevRandao: new Uint8Array(32),
    gasLimit: parent.gasLimit,
    extraData: parts.extraData,
    withdrawals: [],
    parentBeaconBlockRoot: new Uint8Array(32),
    forced: [...parts.forced, encodeTx(signTx(tx, from.privateKey))],
    pool: null,
  });
  if ("error" in built) throw new Error(built.error);
  assert.equal(built.body.transactions.length, 2);
  assert.ok(!equalBytes(built.header.withdrawalsRoot!, parent.withdrawalsRoot!), "the passer's storage changed");
  return { genesis, built, parentWithdrawalsRoot: parent.withdrawalsRoot };
}

describe("chain/Blockchain: Isthmus withdrawalsRoot on import", function () {
  this.timeout(60_000);
  const units = { ...IMPORT_UNITS };
  afterEach(() => Object.assign(IMPORT_UNITS, units));

  it("a block changing the message passer's storage imports VALID; another withdrawalsRoot is INVALID", () => {
    const { genesis, built, parentWithdrawalsRoot } = passerBlock();
    const bad = Blockchain.init(new MemoryKv(), parseGenesis(genesis), genesis.config);
    const wrong = { ...built.header, withdrawalsRoot: parentWithdrawalsRoot };
    const r = bad.insertBlock(encodeBlock({ header: wrong, body: built.body }));
    assert.equal(r.status, "INVALID");
    assert.match(r.error ?? "", /WITHDRAWALS_ROOT/);

    const verifier = Blockchain.init(new MemoryKv(), parseGenesis(genesis), genesis.config);
    const ok = verifier.insertBlock(encodeBlock({ header: built.header, body: built.body }));
    assert.equal(ok.status, "VALID", ok.error ?? "");
    assert.ok(equalBytes(ok.hash, built.hash));
  });

  it("the same through a sliced import whose trie batch is written in parts before the block's write", async () => {
    IMPORT_UNITS.trieOpsPerWrite = 2;
    const { genesis, built, parentWithdrawalsRoot } = passerBlock();
    const kv = new MemoryKv();
    const bad = Blockchain.init(kv, parseGenesis(genesis), genesis.config);
    const before = [...kv.iterate("hashedAccounts"), ...kv.iterate("accountTrie"), ...kv.iterate("storageTrie")];
    const wrong = { ...built.header, withdrawalsRoot: parentWithdrawalsRoot };
    const r = await bad.insertBlockSliced(encodeBlock({ header: wrong, body: built.body }));
    assert.equal(r.status, "INVALID");
    assert.match(r.error ?? "", /WITHDRAWALS_ROOT/);
    const after = [...kv.iterate("hashedAccounts"), ...kv.iterate("accountTrie"), ...kv.iterate("storageTrie")];
    assert.deepEqual(after, before, "the trie parts written are undone");

    const store = new WriteCountingKv();
    const verifier = Blockchain.init(store, parseGenesis(genesis), genesis.config);
    store.writes = 0;
    const ok = await verifier.insertBlockSliced(encodeBlock({ header: built.header, body: built.body }));
    assert.equal(ok.status, "VALID", ok.error ?? "");
    assert.ok(equalBytes(ok.hash, built.hash));
    assert.ok(store.writes > 3, `the trie batch went in parts: ${store.writes} writes`);
  });
});
