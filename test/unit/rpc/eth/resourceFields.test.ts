/**
 * Fields of the eth namespace's resources (issue 23):
 * - `totalDifficulty` in the blocks eth_getBlockByNumber/Hash return (spec.md §2.4 lists it; geth
 *   wrote it until v1.14.9): the sum of the difficulties up to the block; headers never had it;
 * - `blockTimestamp` on every log, whichever path builds it (eth_getLogs, filters, the logs
 *   subscription, receipts, eth_simulateV1), and on mined tx objects; not on receipts themselves
 *   (geth's MarshalReceipt has no such field);
 * - `blobGasPrice` and `blobGasUsed` on a blob tx's receipt: the block's blob base fee (EIP-4844
 *   `fake_exponential(1, excess_blob_gas, update_fraction)`) and 131072 gas a blob;
 * - blob txs in either network form (the EIP-4844 wrapper before Osaka, EIP-7594's cell-proof
 *   wrapper from it) accepted by eth_sendRawTransaction on an L1 node, refused on an OP chain.
 */
import { strict as assert } from "node:assert";
import type { Blockchain, HeadChange } from "../../../../src/chain/blockchain.js";
import { loadKzg } from "../../../../src/crypto/kzg.js";
import { devAccounts, l1DevGenesis } from "../../../../src/node/exec/devGenesis.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { encodeBlob } from "../../../../src/rollup/derive/blobCodec.js";
import type { Dispatcher, RpcConnection } from "../../../../src/rpc/dispatch.js";
import { ethApi } from "../../../../src/rpc/eth/api.js";
import { EventHub } from "../../../../src/rpc/events.js";
import { Registry } from "../../../../src/rpc/registry.js";
import { ConnectionSubscriptions } from "../../../../src/rpc/subscriptions.js";
import { encodeBlobTxNetwork, kzgToVersionedHash } from "../../../../src/tx/blobNetwork.js";
import { encodeTx, txHash } from "../../../../src/tx/envelope.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type BlobTx, TxType } from "../../../../src/tx/tx.js";
import { BlobSidecarStore } from "../../../../src/txpool/blobSidecars.js";
import { TxPool } from "../../../../src/txpool/txPool.js";
import {
  type AllocEntry,
  addr,
  chainOf,
  dyn,
  ETHER,
  GWEI,
  key,
  L1_CHAIN_ID,
  l1Genesis,
  mine,
  opGenesis,
} from "../../txpool/fixtures.js";
import { ethDepsOf } from "./ethDeps.js";

const HTTP: RpcConnection = { ctx: { transport: "http", remoteAddr: "t" }, subs: null };

/** PUSH1 0; PUSH1 0; LOG0; STOP — one empty log per call. */
const LOGGER = hexToBytes("0x00000000000000000000000000000000000010c0");
const LOGGER_CODE = hexToBytes("0x60006000a000");
const GENESIS_DIFFICULTY = 0x400n;

interface Env {
  chain: Blockchain;
  pool: TxPool;
  events: EventHub;
  d: Dispatcher;
}

function envOf(genesis: unknown, blobs: BlobSidecarStore | null = null): Env {
  const chain = chainOf(genesis);
  const pool = new TxPool({}, { chain, acceptBlobs: blobs !== null });
  const events = new EventHub();
  const deps = ethDepsOf(chain, pool, { events, blobSidecars: blobs });
  return { chain, pool, events, d: new Registry(ethApi(deps)).forApis(["eth"]) };
}

async function rpc(
  d: Dispatcher,
  method: string,
  params: unknown[],
  conn = HTTP,
): Promise<{ result?: any; error?: any }> {
  return JSON.parse((await d.handleText(JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), conn)) as string);
}

const hex = (v: bigint | number): string => `0x${v.toString(16)}`;

function loggerChain(): Env {
  const alloc = new Map<Uint8Array, AllocEntry>([
    [addr(1), { balance: 10n * ETHER }],
    [LOGGER, { balance: 0n, code: LOGGER_CODE }],
  ]);
  return envOf({ ...(l1Genesis(alloc) as object), difficulty: hex(GENESIS_DIFFICULTY) });
}

/** EIP-4844 `fake_exponential`, as the EIP writes it. */
function fakeExponential(factor: bigint, numerator: bigint, denominator: bigint): bigint {
  let i = 1n;
  let output = 0n;
  let acc = factor * denominator;
  while (acc > 0n) {
    output += acc;
    acc = (acc * numerator) / (denominator * i);
    i += 1n;
  }
  return output / denominator;
}

describe("rpc/eth: totalDifficulty, blockTimestamp, blobGasPrice, blob network forms", function () {
  this.timeout(120_000);

  it("blocks carry totalDifficulty, the difficulties summed up to them; headers do not", async () => {
    const e = loggerChain();
    mine(e.chain);
    for (const sel of ["0x0", "0x1", "latest"]) {
      const b = (await rpc(e.d, "eth_getBlockByNumber", [sel, false])).result;
      assert.equal(b.totalDifficulty, hex(GENESIS_DIFFICULTY), sel);
      const byHash = (await rpc(e.d, "eth_getBlockByHash", [b.hash, true])).result;
      assert.equal(byHash.totalDifficulty, hex(GENESIS_DIFFICULTY));
    }
    const keys = Object.keys((await rpc(e.d, "eth_getBlockByNumber", ["0x1", false])).result);
    assert.deepEqual(keys, [...keys].sort(), "geth marshals the block as a map: sorted keys");
    const h = (await rpc(e.d, "eth_getHeaderByNumber", ["0x1"])).result;
    assert.equal("totalDifficulty" in h, false);
  });

  it("every log carries its block's timestamp, whichever path builds it; receipts themselves do not", async () => {
    const e = loggerChain();
    const sent: string[] = [];
    const ws: RpcConnection = {
      ctx: { transport: "ws", remoteAddr: "t" },
      subs: new ConnectionSubscriptions((t) => sent.push(t)),
    };
    const proc = { created: [] as never[] };
    const subId = JSON.parse(
      (await e.d.handleText(
        JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "eth_subscribe",
          params: ["logs", { address: bytesToHex(LOGGER) }],
        }),
        ws,
        proc,
      )) as string,
    ).result;
    ws.subs!.activate(proc.created);
    const filter = (await rpc(e.d, "eth_newFilter", [{ address: bytesToHex(LOGGER) }])).result;

    const parent = e.chain.head;
    const tx = dyn(1, 0, { to: LOGGER, gas: 60_000n });
    assert.equal((await e.pool.add([tx]))[0].error, null);
    const built = mine(e.chain, { pool: e.pool, timestampDelta: 7 });
    const change: HeadChange = { oldHead: parent, newHead: built.header, removed: [], added: [built.header] };
    e.events.emitHeadChange(change);
    const ts = hex(built.header.timestamp);
    assert.equal(ts, hex(parent.timestamp + 7));

    const logsOf: Record<string, any[]> = {
      eth_getLogs: (await rpc(e.d, "eth_getLogs", [{ fromBlock: "0x0", toBlock: "latest" }])).result,
      eth_getFilterChanges: (await rpc(e.d, "eth_getFilterChanges", [filter])).result,
      eth_getFilterLogs: (await rpc(e.d, "eth_getFilterLogs", [filter])).result,
      subscription: sent
        .map((s) => JSON.parse(s).params)
        .filter((p) => p.subscription === subId)
        .map((p) => p.result),
      eth_getTransactionReceipt: (await rpc(e.d, "eth_getTransactionReceipt", [bytesToHex(txHash(tx))])).result.logs,
      eth_getBlockReceipts: (await rpc(e.d, "eth_getBlockReceipts", ["latest"])).result[0].logs,
    };
    for (const [path, logs] of Object.entries(logsOf)) {
      assert.equal(logs.length, 1, path);
      assert.equal(logs[0].blockTimestamp, ts, path);
      assert.equal(logs[0].blockNumber, "0x1", path);
    }
    const receipt = (await rpc(e.d, "eth_getTransactionReceipt", [bytesToHex(txHash(tx))])).result;
    assert.equal("blockTimestamp" in receipt, false, "geth's receipt has no blockTimestamp of its own");
    assert.equal((await rpc(e.d, "eth_getTransactionByHash", [bytesToHex(txHash(tx))])).result.blockTimestamp, ts);

    // eth_simulateV1: the simulated block's logs carry the simulated block's timestamp.
    const sim = await rpc(e.d, "eth_simulateV1", [
      { blockStateCalls: [{ calls: [{ from: bytesToHex(addr(1)), to: bytesToHex(LOGGER) }] }] },
      "latest",
    ]);
    assert.equal(sim.error, undefined, JSON.stringify(sim.error));
    const block = sim.result[0];
    assert.equal(block.calls[0].logs.length, 1);
    assert.equal(block.calls[0].logs[0].blockTimestamp, block.timestamp);
  });

  it("a blob tx's receipt carries blobGasPrice (the block's blob base fee) and blobGasUsed", async () => {
    // Cancun: target 393216 blob gas a block, update fraction 3338477 (EIP-4844). Three fractions
    // of excess left after block 1's update make its blob base fee fake_exponential(1, 3 × f, f).
    const fraction = 3_338_477n;
    const excess1 = 3n * fraction;
    const alloc = new Map<Uint8Array, AllocEntry>([[addr(1), { balance: 10n * ETHER }]]);
    const e = envOf({ ...(l1Genesis(alloc) as object), excessBlobGas: hex(excess1 + 393_216n) });
    const blobFee = fakeExponential(1n, excess1, fraction);
    assert.ok(blobFee > 1n);
    const blobTx = signTx(
      {
        type: TxType.Blob,
        chainId: L1_CHAIN_ID,
        nonce: 0n,
        maxPriorityFeePerGas: GWEI,
        maxFeePerGas: 10n * GWEI,
        gasLimit: 21_000n,
        to: addr(2),
        value: 0n,
        data: new Uint8Array(0),
        accessList: [],
        maxFeePerBlobGas: 1000n,
        // A versioned hash: the version byte 0x01 first (no sidecar is needed to execute it).
        blobVersionedHashes: [new Uint8Array(32).fill(1)],
        yParity: 0,
        r: 0n,
        s: 0n,
      } as BlobTx,
      key(1),
    );
    const plain = dyn(1, 1);
    const built = mine(e.chain, { forced: [encodeTx(blobTx), encodeTx(plain)] });
    assert.equal(built.header.excessBlobGas, Number(excess1));
    const receipts = (await rpc(e.d, "eth_getBlockReceipts", ["latest"])).result;
    assert.equal(receipts[0].blobGasPrice, hex(blobFee));
    assert.equal(receipts[0].blobGasUsed, hex(131_072));
    assert.equal(receipts[0].type, "0x3");
    assert.equal("blobGasPrice" in receipts[1], false, "not on a non-blob receipt");
    assert.equal("blobGasUsed" in receipts[1], false);
    const one = (await rpc(e.d, "eth_getTransactionReceipt", [bytesToHex(txHash(blobTx))])).result;
    assert.equal(one.blobGasPrice, hex(blobFee));
  });

  describe("blob txs in network form through eth_sendRawTransaction", () => {
    const dev = devAccounts(1)[0]!;

    function networkTx(version: 0 | 1, nonce = 0n): { raw: Uint8Array; canonical: Uint8Array; hash: Uint8Array } {
      const kzg = loadKzg();
      const blob = encodeBlob(Uint8Array.of(7, 7, Number(nonce), version));
      const commitment = kzg.blobToKzgCommitment(blob);
      const proofs =
        version === 0 ? [kzg.computeBlobKzgProof(blob, commitment)] : kzg.computeCellsAndKzgProofs(blob)[1];
      const tx = signTx(
        {
          type: TxType.Blob,
          chainId: 1337n,
          nonce,
          maxPriorityFeePerGas: GWEI,
          maxFeePerGas: 10n * GWEI,
          gasLimit: 21_000n,
          to: addr(2),
          value: 0n,
          data: new Uint8Array(0),
          accessList: [],
          maxFeePerBlobGas: 10n * GWEI,
          blobVersionedHashes: [kzgToVersionedHash(commitment)],
          yParity: 0,
          r: 0n,
          s: 0n,
        } as BlobTx,
        dev.privateKey,
      );
      const raw = encodeBlobTxNetwork({
        tx,
        wrapperVersion: version,
        blobs: [blob],
        commitments: [commitment],
        proofs,
      });
      return { raw, canonical: encodeTx(tx), hash: txHash(tx) };
    }

    function devEnv(osakaTime: number | null): Env {
      const g = l1DevGenesis(30_000_000n, [dev], { osakaTime });
      const chain = chainOf(g);
      return envOf(g, new BlobSidecarStore(64, chain));
    }

    it("before Osaka: the EIP-4844 wrapper is pooled and its sidecar kept; the cell-proof wrapper is refused", async () => {
      const e = devEnv(null);
      const v0 = networkTx(0);
      const r = await rpc(e.d, "eth_sendRawTransaction", [bytesToHex(v0.raw)]);
      assert.equal(r.result, bytesToHex(v0.hash));
      assert.deepEqual(e.pool.get(v0.hash)?.encoded, v0.canonical, "the pool holds the canonical form");
      const v1 = networkTx(1, 1n);
      const wrong = await rpc(e.d, "eth_sendRawTransaction", [bytesToHex(v1.raw)]);
      assert.deepEqual(wrong.error, { code: -32000, message: "unexpected sidecar version, want: 0, got: 1" });
    });

    it("from Osaka: the cell-proof wrapper is pooled; a blob tx without its sidecar is refused", async () => {
      const e = devEnv(0);
      const v1 = networkTx(1);
      const r = await rpc(e.d, "eth_sendRawTransaction", [bytesToHex(v1.raw)]);
      assert.equal(r.result, bytesToHex(v1.hash));
      const bare = networkTx(1, 1n).canonical;
      const noSidecar = await rpc(e.d, "eth_sendRawTransaction", [bytesToHex(bare)]);
      assert.deepEqual(noSidecar.error, { code: -32000, message: "missing sidecar in blob transaction" });
      const v0 = networkTx(0, 1n);
      const wrong = await rpc(e.d, "eth_sendRawTransaction", [bytesToHex(v0.raw)]);
      assert.deepEqual(wrong.error, { code: -32000, message: "unexpected sidecar version, want: 1, got: 0" });
    });

    it("on an OP chain a blob tx is refused in either form: transaction type not supported", async () => {
      const e = envOf(opGenesis(new Map([[addr(1), { balance: ETHER }]])));
      for (const form of [networkTx(0).raw, networkTx(1).raw, networkTx(1).canonical]) {
        const r = await rpc(e.d, "eth_sendRawTransaction", [bytesToHex(form)]);
        assert.deepEqual(r.error, { code: -32000, message: "transaction type not supported" });
      }
    });
  });
});
