/**
 * The dev L1 of the devnet (`opal-exec --dev --dev.beacon`), an Osaka chain as geth --dev is: blob
 * transactions arrive in the EIP-7594 network form (wrapper version 1, 128 cell proofs a blob; the
 * version-0 form is refused with geth's text), their sidecars are verified (a bad proof is refused)
 * and the tx is sealed; the beacon API serves them by slot to Opal's own beacon client, which checks
 * them against their versioned hashes and the blob KZG proofs the beacon API computes, and through
 * the post-Fulu /eth/v1/beacon/blobs endpoint op-node asks first; the batcher's TxSender sends the
 * cell-proof form to it unasked; safe and finalized lag the head by `--dev.safe-lag` and
 * `--dev.finalized-lag`.
 */
import { strict as assert } from "node:assert";
import { TxSender } from "../../../../src/batcher/txSender.js";
import { loadKzg } from "../../../../src/crypto/kzg.js";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import { decodeBlob, encodeBlob } from "../../../../src/rollup/derive/blobCodec.js";
import { BeaconClient } from "../../../../src/rollup/l1/beaconClient.js";
import { RpcClient } from "../../../../src/rollup/transport/rpcClient.js";
import { encodeBlobTxNetwork, kzgToVersionedHash } from "../../../../src/tx/blobNetwork.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type BlobTx, TxType } from "../../../../src/tx/tx.js";
import { configOf, tempDir } from "../../../utils/node.js";

async function rpc(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<{ result?: unknown; error?: { message: string } }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as { result?: unknown; error?: { message: string } };
}

describe("node: the dev L1's blob transactions and beacon API", function () {
  this.timeout(60_000);
  const dir = tempDir("devblobs");
  let node: ExecNode;
  let url = "";
  let beaconUrl = "";

  before(async () => {
    node = await ExecNode.start(
      configOf([
        "--dev",
        "--dev.period",
        "1",
        "--dev.beacon",
        "--dev.beacon.port",
        "0",
        "--dev.safe-lag",
        "2",
        "--dev.finalized-lag",
        "4",
        "--datadir",
        dir.path,
        "--http",
      ]),
      { print: () => undefined },
    );
    url = `http://127.0.0.1:${node.httpServer!.address().port}`;
    beaconUrl = `http://127.0.0.1:${node.devBeacon!.address().port}`;
  });

  after(async () => {
    await node.stop();
    dir.remove();
  });

  function blobTx(
    payloads: Uint8Array[],
    nonce: bigint,
    breakProof = false,
    wrapperVersion: 0 | 1 = 1,
    on: ExecNode = node,
  ): { raw: Uint8Array; hashes: Uint8Array[] } {
    const kzg = loadKzg();
    const blobs = payloads.map((p) => encodeBlob(p));
    const commitments = blobs.map((b) => kzg.blobToKzgCommitment(b));
    const proofs =
      wrapperVersion === 0
        ? blobs.map((b, i) => kzg.computeBlobKzgProof(b, commitments[i]!))
        : blobs.flatMap((b) => kzg.computeCellsAndKzgProofs(b)[1]);
    if (breakProof) proofs.reverse();
    const hashes = commitments.map((c) => kzgToVersionedHash(c));
    const tx: BlobTx = {
      type: TxType.Blob,
      chainId: on.chain.config.chainId,
      nonce,
      maxPriorityFeePerGas: 1_000_000_000n,
      maxFeePerGas: 100_000_000_000n,
      gasLimit: 21_000n,
      to: hexToBytes("0xff00000000000000000000000000000000000901"),
      value: 0n,
      data: new Uint8Array(0),
      accessList: [],
      maxFeePerBlobGas: 1_000_000_000n,
      blobVersionedHashes: hashes,
      yParity: 0,
      r: 0n,
      s: 0n,
    };
    const signed = signTx(tx, on.devKeys[0]!.privateKey);
    return { raw: encodeBlobTxNetwork({ tx: signed, wrapperVersion, blobs, commitments, proofs }), hashes };
  }

  it("seals a cell-proof blob tx and serves its blobs by slot; the blob-proof form and a bad proof are refused", async () => {
    const bad = blobTx([Uint8Array.of(1, 2, 3), Uint8Array.of(4)], 0n, true);
    const refused = await rpc(url, "eth_sendRawTransaction", [bytesToHex(bad.raw)]);
    assert.equal(refused.error?.message, "invalid blob sidecar: KZG cell proofs do not verify");
    // geth v1.17.0 validateBlobTx: the head is Osaka, so only wrapper version 1.
    const v0 = blobTx([Uint8Array.of(1, 2, 3)], 0n, false, 0);
    const legacy = await rpc(url, "eth_sendRawTransaction", [bytesToHex(v0.raw)]);
    assert.equal(legacy.error?.message, "unexpected sidecar version, want: 1, got: 0");

    const payloads = [new Uint8Array(5000).fill(7), Uint8Array.of(9, 9, 9)];
    const { raw, hashes } = blobTx(payloads, 0n);
    const sent = await rpc(url, "eth_sendRawTransaction", [bytesToHex(raw)]);
    assert.ok(typeof sent.result === "string", JSON.stringify(sent));
    let receipt = null as { blockNumber: string; blockHash: string } | null;
    for (let i = 0; i < 50 && receipt === null; i++) {
      receipt = (await rpc(url, "eth_getTransactionReceipt", [sent.result])).result as typeof receipt;
      if (receipt === null) await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(receipt !== null, "the blob tx was sealed");
    const block = (await rpc(url, "eth_getBlockByHash", [receipt.blockHash, false])).result as { timestamp: string };
    const beacon = new BeaconClient({ url: beaconUrl });
    assert.match(await beacon.checkHealth(), /opal/i);
    const ref = {
      number: Number(BigInt(receipt.blockNumber)),
      hash: hexToBytes(receipt.blockHash),
      timestamp: Number(BigInt(block.timestamp)),
    };
    const blobs = await beacon.getBlobs(ref, [
      { index: 1, versionedHash: hashes[1]! },
      { index: 0, versionedHash: hashes[0]! },
    ]);
    assert.deepEqual(decodeBlob(blobs[0]!), payloads[1]);
    assert.deepEqual(decodeBlob(blobs[1]!), payloads[0]);
    // The post-Fulu getBlobs: block order, filtered by versioned hash (repeated keys, as op-node sends).
    const slot =
      ref.timestamp -
      Number(
        BigInt(((await rpc(url, "eth_getBlockByNumber", ["0x0", false])).result as { timestamp: string }).timestamp),
      );
    const all = (await (await fetch(`${beaconUrl}/eth/v1/beacon/blobs/${slot}`)).json()) as {
      data: string[];
      execution_optimistic: boolean;
      finalized: boolean;
    };
    assert.deepEqual(
      all.data.map((b) => decodeBlob(hexToBytes(b))),
      payloads,
    );
    assert.equal(all.execution_optimistic, false);
    const one = (await (
      await fetch(`${beaconUrl}/eth/v1/beacon/blobs/${slot}?versioned_hashes=${bytesToHex(hashes[1]!)}`)
    ).json()) as { data: string[] };
    assert.deepEqual(
      one.data.map((b) => decodeBlob(hexToBytes(b))),
      [payloads[1]],
    );
    assert.equal((await fetch(`${beaconUrl}/eth/v1/beacon/blobs/999999999`)).status, 404);

    const genesis = (await (await fetch(`${beaconUrl}/eth/v1/beacon/genesis`)).json()) as {
      data: { genesis_time: string };
    };
    const g0 = (await rpc(url, "eth_getBlockByNumber", ["0x0", false])).result as { timestamp: string };
    assert.equal(genesis.data.genesis_time, String(Number(BigInt(g0.timestamp))));
    const spec = (await (await fetch(`${beaconUrl}/eth/v1/config/spec`)).json()) as {
      data: { SECONDS_PER_SLOT: string };
    };
    assert.equal(spec.data.SECONDS_PER_SLOT, "1");
    assert.equal((await fetch(`${beaconUrl}/eth/v1/beacon/blob_sidecars/999999999`)).status, 404);
  });

  it("a dev L1 without --dev.beacon takes blob txs in network form too (every L1 node keeps sidecars)", async () => {
    const plainDir = tempDir("devblobs-plain");
    const plain = await ExecNode.start(configOf(["--dev", "--dev.period", "0", "--datadir", plainDir.path, "--http"]), {
      print: () => undefined,
    });
    try {
      assert.equal(plain.devBeacon, null);
      const plainUrl = `http://127.0.0.1:${plain.httpServer!.address().port}`;
      const { raw } = blobTx([Uint8Array.of(5, 6, 7)], 0n, false, 1, plain);
      const sent = await rpc(plainUrl, "eth_sendRawTransaction", [bytesToHex(raw)]);
      assert.ok(typeof sent.result === "string", JSON.stringify(sent));
      let receipt = null as { blobGasUsed?: string } | null;
      for (let i = 0; i < 50 && receipt === null; i++) {
        receipt = (await rpc(plainUrl, "eth_getTransactionReceipt", [sent.result])).result as typeof receipt;
        if (receipt === null) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(receipt !== null, "the blob tx was sealed");
      assert.equal(receipt.blobGasUsed, "0x20000");
    } finally {
      await plain.stop();
      plainDir.remove();
    }
  });

  it("the batcher's TxSender posts cell-proof blobs to the Osaka dev L1; the beacon client reads them back", async () => {
    const sender = new TxSender(new RpcClient(url), {
      privateKey: node.devKeys[1]!.privateKey,
      chainId: node.chain.config.chainId,
      numConfirmations: 1,
      resubmissionTimeoutMs: 20_000,
      feeBumpPercent: 10,
      maxAttempts: 2,
      pollMs: 50,
    });
    const payloads = [new Uint8Array(2000).fill(3), Uint8Array.of(0, 1, 2)];
    const sent = await sender.sendBlobs(hexToBytes("0xff00000000000000000000000000000000000901"), payloads);
    const tx = (await rpc(url, "eth_getTransactionByHash", [sent.hash])).result as {
      blobVersionedHashes: string[];
      blockHash: string;
    };
    const block = (await rpc(url, "eth_getBlockByHash", [tx.blockHash, false])).result as { timestamp: string };
    const beacon = new BeaconClient({ url: beaconUrl });
    const got = await beacon.getBlobs(
      { number: sent.blockNumber, hash: hexToBytes(tx.blockHash), timestamp: Number(BigInt(block.timestamp)) },
      tx.blobVersionedHashes.map((h, index) => ({ index, versionedHash: hexToBytes(h) })),
    );
    assert.deepEqual(
      got.map((b) => decodeBlob(b)),
      payloads,
    );
  });

  it("safe and finalized lag the head", async () => {
    for (let i = 0; i < 60 && node.chain.head.number < 6; i++) await new Promise((r) => setTimeout(r, 100));
    const n = (tag: string) =>
      rpc(url, "eth_getBlockByNumber", [tag, false]).then((r) =>
        Number(BigInt((r.result as { number: string }).number)),
      );
    const [head, safe, fin] = [await n("latest"), await n("safe"), await n("finalized")];
    assert.ok(head - safe >= 2 && head - safe <= 3, `head ${head} safe ${safe}`);
    assert.ok(head - fin >= 4 && head - fin <= 5, `head ${head} finalized ${fin}`);
  });
});
