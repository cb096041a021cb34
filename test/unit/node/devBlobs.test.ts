/**
 * The dev L1 of the devnet (`opal-exec --dev --dev.beacon`): blob transactions arrive in the
 * EIP-4844 network form, their sidecars are verified (a bad proof is refused) and the tx is sealed;
 * the beacon API serves them by slot to Opal's own beacon client, which checks them against their
 * versioned hashes and KZG proofs; safe and finalized lag the head by `--dev.safe-lag` and
 * `--dev.finalized-lag`.
 */
import { strict as assert } from "node:assert";
import { loadKzg } from "../../../src/crypto/kzg.js";
import { ExecNode } from "../../../src/node/execNode.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { BeaconClient } from "../../../src/rollup/beaconClient.js";
import { decodeBlob, encodeBlob } from "../../../src/rollup/derive/blobCodec.js";
import { encodeBlobTxNetwork, kzgToVersionedHash } from "../../../src/tx/blobNetwork.js";
import { signTx } from "../../../src/tx/signer.js";
import { type BlobTx, TxType } from "../../../src/tx/tx.js";
import { configOf, tempDir } from "./helpers.js";

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
  ): { raw: Uint8Array; hashes: Uint8Array[] } {
    const kzg = loadKzg();
    const blobs = payloads.map((p) => encodeBlob(p));
    const commitments = blobs.map((b) => kzg.blobToKzgCommitment(b));
    const proofs = blobs.map((b, i) => kzg.computeBlobKzgProof(b, commitments[i]!));
    if (breakProof) proofs.reverse();
    const hashes = commitments.map((c) => kzgToVersionedHash(c));
    const tx: BlobTx = {
      type: TxType.Blob,
      chainId: node.chain.config.chainId,
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
    const signed = signTx(tx, node.devKeys[0]!.privateKey);
    return { raw: encodeBlobTxNetwork({ tx: signed, wrapperVersion: 0, blobs, commitments, proofs }), hashes };
  }

  it("seals a blob tx and serves its blobs by slot; a bad proof is refused", async () => {
    const bad = blobTx([Uint8Array.of(1, 2, 3), Uint8Array.of(4)], 0n, true);
    const refused = await rpc(url, "eth_sendRawTransaction", [bytesToHex(bad.raw)]);
    assert.match(String(refused.error?.message), /KZG proof|sidecar/);

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
