/**
 * The dev L1's blob sidecar store: sidecars verified on arrival, served by sealed block, and pruned
 * — by block and by versioned hash — once `keepBlocks` old (the soak found the by-hash map kept
 * every blob it was ever given: 128 KiB each, one per L1 block under the devnet's batcher). The
 * wrapper version follows the head's fork as geth's pool does (v1.17.0 validateBlobTx): cell proofs
 * (EIP-7594) from Osaka, blob proofs before.
 */
import { strict as assert } from "node:assert";
import { loadKzg } from "../../../src/crypto/kzg.js";
import { l1DevGenesis } from "../../../src/node/exec/devGenesis.js";
import { encodeBlob } from "../../../src/rollup/derive/blobCodec.js";
import { parseChainConfig } from "../../../src/spec/chainConfig.js";
import { MemoryKv } from "../../../src/storage/memory.js";
import { type BlobTxNetwork, kzgToVersionedHash } from "../../../src/tx/blobNetwork.js";
import { type BlobTx, TxType } from "../../../src/tx/tx.js";
import { BlobSidecarError, BlobSidecarStore, decodeSealed } from "../../../src/txpool/blobSidecars.js";

/** A blob tx in network form carrying one blob of `payload` (unsigned: the store does not check). */
function blobTx(payload: number, version: 0 | 1 = 0): BlobTxNetwork {
  const kzg = loadKzg();
  const blob = encodeBlob(Uint8Array.of(payload, 1, 2, 3));
  const commitment = kzg.blobToKzgCommitment(blob);
  const proofs = version === 0 ? [kzg.computeBlobKzgProof(blob, commitment)] : kzg.computeCellsAndKzgProofs(blob)[1];
  const tx: BlobTx = {
    type: TxType.Blob,
    chainId: 1337n,
    nonce: BigInt(payload),
    maxPriorityFeePerGas: 1n,
    maxFeePerGas: 1n,
    gasLimit: 21_000n,
    to: new Uint8Array(20),
    value: 0n,
    data: new Uint8Array(0),
    accessList: [],
    maxFeePerBlobGas: 1n,
    blobVersionedHashes: [kzgToVersionedHash(commitment)],
    yParity: 0,
    r: 1n,
    s: 1n,
  };
  return { tx, wrapperVersion: version, blobs: [blob], commitments: [commitment], proofs };
}

/** A chain head for the store's wrapper rule: the dev L1's config, Osaka at 100, head at `time`. */
function headAt(time: number): {
  config: ReturnType<typeof parseChainConfig>;
  head: { number: number; timestamp: number };
} {
  const g = l1DevGenesis(30_000_000n, [], { osakaTime: 100 });
  return { config: parseChainConfig(g.config), head: { number: 1, timestamp: time } };
}

describe("txpool/blobSidecars: the dev L1's blob store", function () {
  this.timeout(60_000); // the first loadKzg reads the trusted setup

  it("serves a sealed block's sidecars and refuses a proof that does not hold", () => {
    const store = new BlobSidecarStore(4);
    const a = blobTx(1);
    store.add(a);
    const hash = new Uint8Array(32).fill(1);
    store.sealed(1, hash, [a.tx]);
    const got = store.atBlock(1, hash);
    assert.equal(got?.length, 1);
    assert.deepEqual(got![0]!.blob, a.blobs[0]);
    assert.equal(store.atBlock(1, new Uint8Array(32)), null);
    const b = blobTx(2);
    assert.throws(() => store.add({ ...b, proofs: blobTx(3).proofs }), BlobSidecarError);
  });

  it("takes the wrapper version of the head's fork: blob proofs before Osaka, cell proofs from it", () => {
    const head = headAt(99);
    const store = new BlobSidecarStore(16, head);
    assert.throws(() => store.add(blobTx(10, 1)), {
      name: "BlobSidecarError",
      message: "unexpected sidecar version, want: 0, got: 1",
    });
    store.add(blobTx(11, 0));
    head.head.timestamp = 100;
    assert.throws(() => store.add(blobTx(12, 0)), {
      name: "BlobSidecarError",
      message: "unexpected sidecar version, want: 1, got: 0",
    });
    const v1 = blobTx(13, 1);
    store.add(v1);
    // A cell proof out of place is refused.
    const bad = blobTx(14, 1);
    const proofs = [...bad.proofs];
    [proofs[0], proofs[1]] = [proofs[1]!, proofs[0]!];
    assert.throws(() => store.add({ ...bad, proofs }), {
      name: "BlobSidecarError",
      message: "invalid blob sidecar: KZG cell proofs do not verify",
    });
    const kept = store.get(v1.tx.blobVersionedHashes[0]!);
    assert.equal(kept?.version, 1);
    assert.deepEqual(kept?.proofs, v1.proofs);
    // Sealed, it serves the blob proof a beacon node computes: it holds for the blob.
    const hash = new Uint8Array(32).fill(9);
    store.sealed(2, hash, [v1.tx]);
    const [sc] = store.atBlock(2, hash)!;
    assert.equal(loadKzg().verifyBlobKzgProof(sc!.blob, sc!.commitment, sc!.proof), true);
  });

  it("forgets sidecars keepBlocks after they were sealed or added, sealed or not", () => {
    const keep = 3;
    const store = new BlobSidecarStore(keep);
    const sealedOne = blobTx(4);
    const neverSealed = blobTx(5);
    store.add(sealedOne);
    store.add(neverSealed);
    store.sealed(1, new Uint8Array(32).fill(1), [sealedOne.tx]);
    assert.deepEqual(store.stats(), { blobs: 2, blocks: 1 });
    // Empty blocks until both are `keep` blocks old: the never-sealed one (added at head 0) goes
    // first, the sealed one with its block.
    store.sealed(2, new Uint8Array(32).fill(2), []);
    store.sealed(3, new Uint8Array(32).fill(3), []);
    assert.deepEqual(store.stats(), { blobs: 1, blocks: 3 });
    store.sealed(4, new Uint8Array(32).fill(4), []);
    assert.deepEqual(store.stats(), { blobs: 0, blocks: 3 });
    assert.equal(store.atBlock(1, new Uint8Array(32).fill(1)), null);
    for (let n = 5; n < 200; n++) store.sealed(n, new Uint8Array(32).fill(n), []);
    assert.deepEqual(store.stats(), { blobs: 0, blocks: keep });
  });

  it("keeps a pending tx's sidecar until it is sealed within keepBlocks", () => {
    const store = new BlobSidecarStore(3);
    for (let n = 1; n <= 5; n++) store.sealed(n, new Uint8Array(32).fill(n), []);
    const late = blobTx(6);
    store.add(late); // added at head 5
    store.sealed(6, new Uint8Array(32).fill(6), []);
    store.sealed(7, new Uint8Array(32).fill(7), []);
    const h8 = new Uint8Array(32).fill(8);
    store.sealed(8, h8, [late.tx]);
    assert.equal(store.atBlock(8, h8)?.length, 1);
    // Sealed at 8, it stays while block 8 is kept.
    store.sealed(9, new Uint8Array(32).fill(9), []);
    store.sealed(10, new Uint8Array(32).fill(10), []);
    assert.equal(store.atBlock(8, h8)?.length, 1);
    assert.equal(store.stats().blobs, 1);
    store.sealed(11, new Uint8Array(32).fill(11), []);
    assert.deepEqual(store.stats(), { blobs: 0, blocks: 3 });
  });

  it("archived (the dev beacon's store): sealed sidecars on disk, pruned by keepBlocks, memory only for the limbo", () => {
    const kv = new MemoryKv();
    const limbo = 4;
    const keep = 10;
    const head = headAt(99);
    const store = new BlobSidecarStore(keep, head, kv, limbo);
    const sent = new Map<number, BlobTxNetwork>();
    for (let n = 1; n <= keep + 6; n++) {
      if (n === 13) head.head.timestamp = 100; // Osaka: version-1 sidecars from here
      const w = blobTx(n, n >= 13 ? 1 : 0);
      store.add(w);
      sent.set(n, w);
      store.sealed(n, new Uint8Array(32).fill(n), [w.tx]);
    }
    const last = keep + 6;
    // Memory holds only the limbo's blobs; the rows are the retention.
    assert.deepEqual(store.stats(), { blobs: limbo, blocks: keep });
    assert.equal(store.atBlock(last - keep, new Uint8Array(32).fill(last - keep)), null, "pruned past keepBlocks");
    // A block past the limbo is served from its row, both wrapper versions, the proof holding.
    const kzg = loadKzg();
    for (const n of [last - keep + 1, 12, 13, last - limbo - 1, last]) {
      const got = store.atBlock(n, new Uint8Array(32).fill(n));
      assert.equal(got?.length, 1, `block ${n}`);
      assert.deepEqual(got![0]!.blob, sent.get(n)!.blobs[0]);
      assert.deepEqual(got![0]!.commitment, new Uint8Array(sent.get(n)!.commitments[0]!));
      assert.equal(got![0]!.index, 0);
      assert.equal(kzg.verifyBlobKzgProof(got![0]!.blob, got![0]!.commitment, got![0]!.proof), true, `block ${n}`);
    }
    // A wrong hash is not served; a new store over the same rows (a restart) serves them.
    assert.equal(store.atBlock(last, new Uint8Array(32)), null);
    const again = new BlobSidecarStore(keep, head, kv, limbo);
    assert.deepEqual(
      again.atBlock(last - 8, new Uint8Array(32).fill(last - 8))![0]!.blob,
      sent.get(last - 8)!.blobs[0],
    );
  });

  it("a stored record that is cut short or carries an unknown version is refused", () => {
    const kv = new MemoryKv();
    const store = new BlobSidecarStore(8, null, kv);
    const w = blobTx(7);
    store.add(w);
    store.sealed(1, new Uint8Array(32).fill(1), [w.tx]);
    const row = [...kv.iterate("blobSidecars")][0]![1];
    assert.equal(decodeSealed(row).sidecars.length, 1);
    assert.throws(() => decodeSealed(row.subarray(0, row.length - 1)), RangeError);
    assert.throws(() => decodeSealed(row.subarray(0, 20)), RangeError);
    const bad = row.slice();
    bad[32 + 4] = 2;
    assert.throws(() => decodeSealed(bad), RangeError);
  });
});
