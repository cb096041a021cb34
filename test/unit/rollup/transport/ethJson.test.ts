/**
 * L1 RPC JSON: op-node's 19 block/header verification fixtures (op-service/sources/testdata) behave
 * as their metadata says (failures with op-node's reason), trusted parsing skips the checks, txs of
 * every type rebuilt from their RPC objects re-encode to the same bytes (and the fixtures' tx hashes
 * match), receipts verify against their root, and eth_getProof answers against a state root.
 */
import { strict as assert } from "node:assert";
import { readdirSync } from "node:fs";
import type { Receipt } from "../../../../src/block/receipt.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { encodeRlp, uintToRlpBytes } from "../../../../src/rlp/encode.js";
import {
  decodeRawReceipts,
  L1VerifyError,
  parseAccountProof,
  parseL1Block,
  parseL1Header,
  parseRpcReceipt,
  parseRpcTx,
  receiptsRoot,
  txHashes,
  verifyAccountProof,
  verifyReceipts,
} from "../../../../src/rollup/transport/ethJson.js";
import { qty, receiptJson, txJson } from "../../../../src/rpc/format.js";
import { encodeAccount } from "../../../../src/trie/account.js";
import { MemoryTrie } from "../../../../src/trie/memoryTrie.js";
import { encodeTx, txHash } from "../../../../src/tx/envelope.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type SignedTx, type Tx, TxType } from "../../../../src/tx/tx.js";
import { fixturePath, readJson } from "../../../utils/fixtures.js";

const DIR = fixturePath("op-stack", "op-service-l1-rpc");

interface Meta {
  name: string;
  fail?: boolean;
  reason?: string;
}

function cases(kind: "blocks" | "headers"): { meta: Meta; data: Record<string, unknown> }[] {
  return readdirSync(`${DIR}/${kind}`)
    .filter((f) => f.endsWith("_metadata.json"))
    .sort()
    .map((f) => ({
      meta: readJson<Meta>(`${DIR}/${kind}/${f}`),
      data: readJson<Record<string, unknown>>(`${DIR}/${kind}/${f.replace("_metadata.json", "_data.json")}`),
    }));
}

const KEY = hexToBytes("0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318");
const A = hexToBytes("0x00000000000000000000000000000000000000aa");
const B = hexToBytes("0x00000000000000000000000000000000000000bb");
const PLACE = { blockHash: new Uint8Array(32).fill(1), blockNumber: 5, blockTimestamp: 77, index: 0, baseFee: 7n };

function sampleTxs(): Tx[] {
  const base = { nonce: 3n, gasLimit: 50_000n, value: 10n ** 18n, data: Uint8Array.of(1, 2, 3) };
  const al = [{ address: A, storageKeys: [new Uint8Array(32).fill(2)] }];
  const fee = { chainId: 1n, maxPriorityFeePerGas: 2n, maxFeePerGas: 100n, accessList: al };
  const signed: SignedTx[] = [
    signTx({ type: TxType.Legacy, ...base, gasPrice: 9n, to: null, v: 0n, r: 0n, s: 0n }, KEY),
    signTx({ type: TxType.Legacy, ...base, gasPrice: 9n, to: B, v: 0n, r: 0n, s: 0n }, KEY, 1n),
    signTx(
      { type: TxType.AccessList, ...base, chainId: 1n, gasPrice: 9n, to: B, accessList: al, yParity: 0, r: 0n, s: 0n },
      KEY,
    ),
    signTx({ type: TxType.FeeMarket, ...base, ...fee, to: null, yParity: 0, r: 0n, s: 0n }, KEY),
    signTx(
      {
        type: TxType.Blob,
        ...base,
        ...fee,
        to: B,
        maxFeePerBlobGas: 5n,
        blobVersionedHashes: [new Uint8Array(32).fill(1)],
        yParity: 0,
        r: 0n,
        s: 0n,
      },
      KEY,
    ),
    signTx(
      {
        type: TxType.SetCode,
        ...base,
        ...fee,
        to: B,
        authorizationList: [{ chainId: 0n, address: A, nonce: 4n, yParity: 1, r: 123n, s: 456n }],
        yParity: 0,
        r: 0n,
        s: 0n,
      },
      KEY,
    ),
  ];
  const deposit: Tx = {
    type: TxType.Deposit,
    sourceHash: new Uint8Array(32).fill(7),
    from: A,
    to: B,
    mint: 5n,
    value: 1n,
    gasLimit: 1_000_000n,
    isSystemTx: true,
    data: Uint8Array.of(9),
  };
  return [...signed, deposit];
}

function rpcTx(tx: Tx, index = 0): Record<string, unknown> {
  return txJson(tx, { hash: txHash(tx), from: A }, { ...PLACE, index });
}

describe("rollup/l1Json", () => {
  describe("op-node block fixtures (verify)", () => {
    for (const { meta, data } of cases("blocks")) {
      it(meta.name, () => {
        if (meta.fail) {
          assert.throws(
            () => parseL1Block(data, true),
            (e: unknown) => e instanceof L1VerifyError && e.message.includes(meta.reason ?? ""),
          );
        } else {
          const b = parseL1Block(data, true);
          // Rebuilt txs hash to the RPC's hashes.
          const want = (data.transactions as { hash: string }[]).map((t) => t.hash);
          assert.deepEqual(txHashes(b.txs).map(bytesToHex), want);
          assert.equal(b.withdrawals === null, data.withdrawals === undefined);
        }
      });
    }
  });

  describe("op-node header fixtures (verify)", () => {
    for (const { meta, data } of cases("headers")) {
      it(meta.name, () => {
        if (meta.fail) {
          assert.throws(
            () => parseL1Header(data, true),
            (e: unknown) => e instanceof L1VerifyError && e.field === "hash",
          );
        } else {
          assert.equal(bytesToHex(parseL1Header(data, true).hash), data.hash);
        }
      });
    }
  });

  it("trusted parsing skips the hash and list checks", () => {
    for (const { meta, data } of cases("blocks")) {
      if (meta.name.endsWith("-nil")) continue; // a missing tx/withdrawal is malformed either way
      assert.equal(bytesToHex(parseL1Block(data, false).hash), data.hash);
    }
    for (const { data } of cases("headers")) assert.equal(bytesToHex(parseL1Header(data, false).hash), data.hash);
  });

  it("names the malformed field", () => {
    const { data } = cases("blocks").find((c) => c.meta.name === "post-shanghai-success")!;
    const bad = { ...data, gasUsed: "0x01" };
    assert.throws(
      () => parseL1Block(bad, false),
      (e: unknown) => e instanceof L1VerifyError && e.field === "gasUsed",
    );
    const txs = [...(data.transactions as Record<string, unknown>[])];
    txs[2] = { ...txs[2], r: undefined };
    assert.throws(
      () => parseL1Block({ ...data, transactions: txs }, false),
      (e: unknown) => e instanceof L1VerifyError && e.field === "transactions[2].r",
    );
  });

  it("rebuilds txs of types 0-4 and 0x7e from RPC objects, byte for byte", () => {
    for (const tx of sampleTxs()) {
      const back = parseRpcTx(rpcTx(tx));
      assert.equal(bytesToHex(encodeTx(back)), bytesToHex(encodeTx(tx)), `type ${tx.type}`);
    }
    // yParity and v must agree on typed txs.
    const j = rpcTx(sampleTxs()[3]!);
    assert.throws(
      () => parseRpcTx({ ...j, v: j.yParity === "0x0" ? "0x1" : "0x0" }),
      (e: unknown) => e instanceof L1VerifyError && e.field === "tx.yParity",
    );
    assert.throws(
      () => parseRpcTx({ ...j, type: "0x5" }),
      (e: unknown) => e instanceof L1VerifyError && e.field === "tx.type",
    );
  });

  it("receipts: metadata and root checks, raw receipts", () => {
    const txs = sampleTxs().slice(0, 3);
    const hashes = txHashes(txs);
    const blockHash = new Uint8Array(32).fill(0xbb);
    const log = { address: A, topics: [new Uint8Array(32).fill(3)], data: Uint8Array.of(1) };
    const receipts: Receipt[] = txs.map((tx, i) => ({
      type: tx.type,
      status: i === 1 ? 0 : 1,
      postState: null,
      cumulativeGasUsed: 21_000 * (i + 1),
      logsBloom: new Uint8Array(256).fill(i),
      logs: i === 2 ? [log, log] : [log],
      depositNonce: null,
      depositReceiptVersion: null,
    }));
    const root = receiptsRoot(receipts);
    const block = { hash: blockHash, number: 5 };
    let logIndex = 0;
    const json = receipts.map((r, i) => {
      const o = receiptJson(
        r,
        txs[i]!,
        { hash: hashes[i]!, from: A },
        {
          blockHash,
          blockNumber: 5,
          blockTimestamp: 77,
          index: i,
          firstLogIndex: logIndex,
          previousCumulativeGas: i === 0 ? 0 : receipts[i - 1]!.cumulativeGasUsed,
          baseFee: 7n,
          blobBaseFee: null,
          l1: null,
        },
      );
      logIndex += r.logs.length;
      return o;
    });
    const parsed = json.map((o, i) => parseRpcReceipt(o, `receipts[${i}]`));
    verifyReceipts(block, root, hashes, parsed);
    const fails = (rs: unknown[], field: string, r = root, hs = hashes): void =>
      assert.throws(
        () =>
          verifyReceipts(
            block,
            r,
            hs,
            rs.map((o, i) => (o === null ? null : parseRpcReceipt(o, `receipts[${i}]`))),
          ),
        (e: unknown) => e instanceof L1VerifyError && e.field === field,
      );
    fails(json.slice(1), "receipts");
    fails([json[0], null, json[2]], "receipts[1]");
    fails([json[1], json[0], json[2]], "receipts[0].transactionIndex");
    fails([json[0], { ...json[1], gasUsed: "0x1" }, json[2]], "receipts[1].gasUsed");
    fails([json[0], { ...json[1], status: "0x1" }, json[2]], "receiptsRoot");
    fails([json[0], { ...json[1], blockHash: bytesToHex(new Uint8Array(32)) }, json[2]], "receipts[1].blockHash");
    const logs = (json[2]!.logs as Record<string, unknown>[]).map((l) => ({ ...l, logIndex: qty(7) }));
    fails([json[0], json[1], { ...json[2], logs }], "receipts[2].logs[0].logIndex");
    fails([], "receiptsRoot", root, []);
    verifyReceipts(block, receiptsRoot([]), [], []);

    const raw = receipts.map((r) => {
      const typed = r.type !== 0;
      const body = encodeRlp([
        r.status === 1 ? Uint8Array.of(1) : new Uint8Array(0),
        uintToRlpBytes(r.cumulativeGasUsed),
        r.logsBloom,
        r.logs.map((l) => [l.address, l.topics, l.data]),
      ]);
      return bytesToHex(typed ? Uint8Array.of(r.type, ...body) : body);
    });
    verifyReceipts(block, root, hashes, decodeRawReceipts(block, raw, hashes));
    assert.throws(() => decodeRawReceipts(block, raw.slice(1), hashes), L1VerifyError);
  });

  it("eth_getProof answers verify against the state root", () => {
    const slot = new Uint8Array(32);
    slot[31] = 1;
    const storage = new MemoryTrie({ secure: true });
    storage.put(slot, encodeRlp(uintToRlpBytes(0x2an)));
    storage.put(new Uint8Array(32).fill(9), encodeRlp(uintToRlpBytes(5n)));
    const codeHash = keccak256(Uint8Array.of(0x60));
    const state = new MemoryTrie({ secure: true });
    state.put(A, encodeAccount(7n, 1000n, storage.rootHash(), codeHash));
    state.put(B, encodeAccount(1n, 1n));
    const absentSlot = new Uint8Array(32).fill(4);
    const json = {
      address: bytesToHex(A),
      nonce: "0x7",
      balance: "0x3e8",
      storageHash: bytesToHex(storage.rootHash()),
      codeHash: bytesToHex(codeHash),
      accountProof: state.proof(A).map(bytesToHex),
      storageProof: [
        { key: bytesToHex(slot), value: "0x2a", proof: storage.proof(slot).map(bytesToHex) },
        { key: bytesToHex(absentSlot), value: "0x0", proof: storage.proof(absentSlot).map(bytesToHex) },
      ],
    };
    verifyAccountProof(parseAccountProof(json), state.rootHash());
    const bad = (o: Record<string, unknown>, field: string): void =>
      assert.throws(
        () => verifyAccountProof(parseAccountProof(o), state.rootHash()),
        (e: unknown) => e instanceof L1VerifyError && e.field === field,
      );
    bad({ ...json, balance: "0x3e9" }, "accountProof");
    bad({ ...json, storageProof: [{ ...json.storageProof[0], value: "0x2b" }] }, "storageProof[0].value");
    bad({ ...json, accountProof: [] }, "accountProof");
    // An account the trie lacks proves only the empty account.
    const C = hexToBytes("0x00000000000000000000000000000000000000cc");
    const empty = {
      address: bytesToHex(C),
      nonce: "0x0",
      balance: "0x0",
      storageHash: bytesToHex(new MemoryTrie().rootHash()),
      codeHash: bytesToHex(keccak256(new Uint8Array(0))),
      accountProof: state.proof(C).map(bytesToHex),
      storageProof: [],
    };
    verifyAccountProof(parseAccountProof(empty), state.rootHash());
    bad({ ...empty, balance: "0x1" }, "accountProof");
  });
});
