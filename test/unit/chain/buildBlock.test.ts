/**
 * Blockchain.buildBlock checked against the importer: a block built on one chain must import as
 * VALID into a second chain from the same genesis (same roots, receipts, gas, header fields) — on a
 * plain L1 Cancun chain (a Prague genesis needs the EIP-7002/7251 contracts) with pool txs, and on an OP Jovian chain with a forced L1-info deposit.
 */
import { strict as assert } from "node:assert";
import { encodeBlock } from "../../../src/block/block.js";
import { encodeJovianExtraData } from "../../../src/block/opExtraData.js";
import { Blockchain, type TxSource } from "../../../src/chain/blockchain.js";
import { parseGenesis } from "../../../src/chain/genesis.js";
import { privateKeyToAddress } from "../../../src/crypto/secp256k1.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { encodeTx } from "../../../src/tx/envelope.js";
import { encodeL1BlockInfo } from "../../../src/tx/l1BlockInfo.js";
import { signTx } from "../../../src/tx/signer.js";
import { type FeeMarketTx, type Tx, TxType } from "../../../src/tx/tx.js";
import { l1Genesis as l1GenesisOf, opGenesis as opGenesisOf } from "../../utils/genesis.js";
import { jovianL1Info, l1InfoDeposit } from "../txpool/fixtures.js";

const KEY = hexToBytes(`0x${"42".repeat(32)}`);
const SENDER = privateKeyToAddress(KEY);
const TO = hexToBytes("0x00000000000000000000000000000000000000aa");

const FUNDED = new Map([[SENDER, { balance: 1000n * 10n ** 18n }]]);
const l1Genesis = (): unknown => l1GenesisOf(FUNDED);
const opGenesis = (): unknown => opGenesisOf(FUNDED);

function chainOf(json: unknown): Blockchain {
  return Blockchain.init(new MemoryKv(), parseGenesis(json), (json as { config: unknown }).config);
}

function transfers(n: number, chainId: bigint, maxFee: bigint): Tx[] {
  const out: Tx[] = [];
  for (let i = 0; i < n; i++) {
    const tx: FeeMarketTx = {
      type: TxType.FeeMarket,
      chainId,
      nonce: BigInt(i),
      maxPriorityFeePerGas: 2n,
      maxFeePerGas: maxFee,
      gasLimit: 21_000n,
      to: TO,
      value: 1000n + BigInt(i),
      data: new Uint8Array(0),
      accessList: [],
      yParity: 0,
      r: 0n,
      s: 0n,
    };
    out.push(signTx(tx, KEY));
  }
  return out;
}

function sourceOf(txs: Tx[]): TxSource {
  let i = 0;
  return {
    next: () => (i < txs.length ? { tx: txs[i++], sender: SENDER } : null),
    reject: () => {
      i = txs.length;
    },
  };
}

describe("chain/buildBlock", function () {
  this.timeout(60_000);

  it("L1 Cancun: a built block with pool txs imports VALID elsewhere", () => {
    const a = chainOf(l1Genesis());
    const b = chainOf(l1Genesis());
    const built = a.buildBlock({
      parentHash: a.headBlockHash,
      timestamp: 0x20,
      feeRecipient: TO,
      prevRandao: new Uint8Array(32).fill(3),
      gasLimit: a.head.gasLimit,
      extraData: new Uint8Array(0),
      withdrawals: [],
      parentBeaconBlockRoot: new Uint8Array(32).fill(4),
      forced: [],
      pool: sourceOf(transfers(5, 1337n, 10n ** 10n)),
    });
    assert.ok(!("error" in built), "error" in built ? built.error : "");
    assert.equal(built.body.transactions.length, 5);
    assert.equal(built.header.gasUsed, 5 * 21_000);
    assert.equal(built.fees, 5n * 21_000n * 2n);
    const r = b.insertBlock(encodeBlock({ header: built.header, body: built.body }));
    assert.equal(r.status, "VALID", r.error ?? "");
    assert.equal(bytesToHex(r.hash), bytesToHex(built.hash));
    // On the building chain the block is already known.
    assert.equal(a.insertBlock(encodeBlock({ header: built.header, body: built.body })).status, "KNOWN");
  });

  it("OP Jovian: forced L1-info deposit then pool txs; imports VALID elsewhere", () => {
    const a = chainOf(opGenesis());
    const b = chainOf(opGenesis());
    const info = encodeL1BlockInfo(jovianL1Info({ baseFee: 10n ** 9n, blobBaseFee: 1n }));
    const deposit = l1InfoDeposit(info);
    const built = a.buildBlock({
      parentHash: a.headBlockHash,
      timestamp: 0x12,
      feeRecipient: hexToBytes("0x4200000000000000000000000000000000000011"),
      prevRandao: new Uint8Array(32).fill(3),
      gasLimit: 30_000_000n,
      extraData: encodeJovianExtraData(250, 6, 0n),
      withdrawals: [],
      parentBeaconBlockRoot: new Uint8Array(32).fill(4),
      forced: [deposit],
      pool: sourceOf(transfers(3, 901n, 10n ** 10n)),
    });
    assert.ok(!("error" in built), "error" in built ? built.error : "");
    assert.equal(built.body.transactions.length, 4);
    assert.ok((built.header.blobGasUsed ?? 0) > 0, "Jovian DA footprint in blobGasUsed");
    const r = b.insertBlock(encodeBlock({ header: built.header, body: built.body }));
    assert.equal(r.status, "VALID", r.error ?? "");
    assert.equal(r.receipts?.[0].depositNonce, 0);
  });

  it("a forced tx that cannot apply fails the build and leaves the state at the parent", () => {
    const a = chainOf(l1Genesis());
    const [tx] = transfers(1, 1337n, 10n ** 10n);
    const bad = { ...tx, nonce: 5n } as Tx;
    const built = a.buildBlock({
      parentHash: a.headBlockHash,
      timestamp: 0x20,
      feeRecipient: TO,
      prevRandao: new Uint8Array(32),
      gasLimit: a.head.gasLimit,
      extraData: new Uint8Array(0),
      withdrawals: [],
      parentBeaconBlockRoot: new Uint8Array(32),
      forced: [encodeTx(signTx(bad as FeeMarketTx, KEY))],
      pool: null,
    });
    assert.ok("error" in built);
    // geth's message, with the tx's and the state's nonce.
    assert.match(built.error, /^nonce too high: address 0x[0-9a-fA-F]{40}, tx: 5 state: 0$/);
    assert.equal(built.forcedIndex, 0);
    assert.equal(bytesToHex(a.stateBlockHash), bytesToHex(a.headBlockHash));
  });
});
