import { strict as assert } from "node:assert";
import { keccak256 } from "../../../src/crypto/keccak.js";
import {
  type BlobTxNetwork,
  BYTES_PER_BLOB,
  CELLS_PER_EXT_BLOB,
  decodeBlobTxNetwork,
  encodeBlobTxNetwork,
  kzgToVersionedHash,
} from "../../../src/tx/blobNetwork.js";
import { encodeTx, txHash } from "../../../src/tx/envelope.js";
import { TxError } from "../../../src/tx/errors.js";
import { recoverSender, signTx } from "../../../src/tx/signer.js";
import { blobTx, DEV_KEY } from "./builders.js";

function wrapper(version: 0 | 1, blobs = 2): BlobTxNetwork {
  const commitments = Array.from({ length: blobs }, (_, i) => new Uint8Array(48).fill(0xc0 + i));
  const tx = signTx(blobTx({ blobVersionedHashes: commitments.map(kzgToVersionedHash) }), DEV_KEY);
  const proofCount = version === 0 ? blobs : blobs * CELLS_PER_EXT_BLOB;
  return {
    tx,
    wrapperVersion: version,
    blobs: Array.from({ length: blobs }, (_, i) => new Uint8Array(BYTES_PER_BLOB).fill(i + 1)),
    commitments,
    proofs: Array.from({ length: proofCount }, (_, i) => new Uint8Array(48).fill(i & 0xff)),
  };
}

const isWrapperError = (e: unknown) => e instanceof TxError && e.code === "BLOB_WRAPPER";

describe("tx/blobNetwork", () => {
  for (const version of [0, 1] as const) {
    it(`wrapper v${version}: round trip, hash of the block form, sender`, () => {
      const w = wrapper(version);
      const bytes = encodeBlobTxNetwork(w);
      const back = decodeBlobTxNetwork(bytes);
      assert.equal(back.wrapperVersion, version);
      assert.equal(back.blobs.length, 2);
      assert.equal(back.proofs.length, w.proofs.length);
      assert.deepEqual(encodeBlobTxNetwork(back), bytes);
      assert.deepEqual(encodeTx(back.tx), encodeTx(w.tx));
      assert.deepEqual(txHash(back.tx), keccak256(encodeTx(w.tx)));
      assert.ok(recoverSender(back.tx) !== null);
    });
  }

  it("rejects count and size mismatches, bad versions and wrong commitments", () => {
    const w = wrapper(0);
    assert.throws(() => encodeBlobTxNetwork({ ...w, proofs: w.proofs.slice(1) }), isWrapperError);
    assert.throws(() => encodeBlobTxNetwork({ ...w, blobs: w.blobs.slice(1) }), isWrapperError);
    assert.throws(() => encodeBlobTxNetwork({ ...w, wrapperVersion: 1 }), isWrapperError);
    const swapped = { ...w, commitments: [w.commitments[1], w.commitments[0]] };
    assert.throws(() => encodeBlobTxNetwork(swapped), isWrapperError);
    // Decode side: re-encode a v1 wrapper with version byte 2.
    const v1 = encodeBlobTxNetwork(wrapper(1, 1));
    const bodyLen = encodeTx(wrapper(1, 1).tx).length - 1;
    const hdr = v1[1] - 0xf7 + 2; // 0x03, list header
    const versionAt = hdr + bodyLen;
    assert.equal(v1[versionAt], 0x01);
    const bad = v1.slice();
    bad[versionAt] = 0x02;
    assert.throws(() => decodeBlobTxNetwork(bad), isWrapperError);
    // Short blob.
    const shortBlob = { ...wrapper(0, 1) };
    const enc = encodeBlobTxNetwork(shortBlob);
    assert.throws(() => decodeBlobTxNetwork(enc.subarray(0, enc.length - 1)), TxError);
    assert.throws(() => decodeBlobTxNetwork(encodeTx(shortBlob.tx)), TxError, "block form is not a wrapper");
    assert.throws(() => decodeBlobTxNetwork(Uint8Array.of(2, 0xc0)), TxError);
  });
});
