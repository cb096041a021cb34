/**
 * Block gossip: topics, message ids, signing and the validator's rules. Payloads are real blocks:
 * a header built here field by field, hashed with the block code (`headerHash`) and turned into
 * Engine API JSON with `blockToPayload`, then signed with a known key.
 *
 * Independent computations: the message id is recomputed with node:crypto's createHash('sha256')
 * and snappyjs (not our snappy); the block-signing hash is recomputed with viem's
 * `keccak256`/`concat`/`numberToHex(chainId, { size: 32 })` and the signature recovered with viem's
 * `recoverAddress` (v = 27 + recovery id), not with our secp256k1 code.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createRequire } from "node:module";
import { concat, numberToHex, keccak256 as viemKeccak, recoverAddress as viemRecover } from "viem";
import type { BlockBody } from "../../../src/block/block.js";
import { EMPTY_OMMERS_HASH, type Header, headerHash } from "../../../src/block/header.js";
import { privateKeyToAddress } from "../../../src/crypto/secp256k1.js";
import { sha256 } from "../../../src/crypto/sha256.js";
import { blockToPayload, type PayloadJson } from "../../../src/engine/payload.js";
import {
  BlockGossipValidator,
  blockHashOf,
  blocksTopic,
  blockVersionAt,
  encodeGossipBlock,
  type GossipVerdict,
  gossipMessage,
  gossipMessageId,
  localBlockSigner,
} from "../../../src/p2p/gossipBlock.js";
import { blockSigningHash, payloadHashOf } from "../../../src/p2p/signingHash.js";
import { type BlockVersion, encodeEnvelope, type PayloadEnvelopeJson } from "../../../src/p2p/ssz.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { SnappyError, snappyCompress, snappyUncompress } from "../../../src/primitives/snappy.js";
import type { RollupConfig } from "../../../src/rollup/config/rollupConfig.js";
import { orderedTrieRoot } from "../../../src/trie/orderedRoot.js";
import { CFG } from "../../utils/batchChain.js";

const snappyjs = createRequire(import.meta.url)("snappyjs") as {
  compress(data: Uint8Array): Uint8Array;
  uncompress(data: Uint8Array): Uint8Array;
};

const CHAIN_ID = 901n;
const KEY = hexToBytes(`0x${"5a".repeat(32)}`);
const SIGNER = privateKeyToAddress(KEY);
const OTHER_KEY = hexToBytes(`0x${"3c".repeat(32)}`);

/** Canyon/Delta at 1000, Ecotone…Holocene at 2000, Isthmus at 3000, Jovian at 4000. */
const cfg: RollupConfig = {
  ...CFG,
  l2ChainId: CHAIN_ID,
  canyonTime: 1000,
  deltaTime: 1000,
  ecotoneTime: 2000,
  fjordTime: 2000,
  graniteTime: 2000,
  holoceneTime: 2000,
  isthmusTime: 3000,
  jovianTime: 4000,
};
const TS: Record<BlockVersion, number> = { 0: 500, 1: 1500, 2: 2500, 3: 3500 };
const BEACON_ROOT = `0x${"be".repeat(32)}`;

interface BlockOpts {
  number?: number;
  timestamp?: number;
  extra?: Uint8Array;
  withdrawals?: BlockBody["withdrawals"];
  blobGasUsed?: number;
  excessBlobGas?: number;
}

/** A real block of `version` as a signed-ready envelope: header → hash → Engine API JSON. */
function envelopeOf(version: BlockVersion, o: BlockOpts = {}): PayloadEnvelopeJson {
  const transactions = [Uint8Array.of(0x7e, 1, 2, 3), Uint8Array.of(0x02, 9, 9)];
  const withdrawals = version >= 1 ? (o.withdrawals ?? []) : null;
  const header: Header = {
    parentHash: new Uint8Array(32).fill(0x11),
    ommersHash: EMPTY_OMMERS_HASH,
    coinbase: hexToBytes("0x4200000000000000000000000000000000000011"),
    stateRoot: new Uint8Array(32).fill(0x22),
    transactionsRoot: orderedTrieRoot(transactions),
    receiptsRoot: new Uint8Array(32).fill(0x33),
    logsBloom: new Uint8Array(256),
    difficulty: 0n,
    number: o.number ?? 100,
    gasLimit: 30_000_000n,
    gasUsed: 50_000,
    timestamp: o.timestamp ?? TS[version],
    extraData: o.extra ?? new Uint8Array(0),
    mixHash: new Uint8Array(32).fill(0x44),
    nonce: new Uint8Array(8),
    baseFeePerGas: 1_000_000_007n,
    withdrawalsRoot:
      version === 3
        ? new Uint8Array(32).fill(0x55) // Isthmus: the message passer's storage root
        : withdrawals === null
          ? null
          : orderedTrieRoot(withdrawals.map((w) => withdrawalRlp(w))),
    blobGasUsed: version >= 2 ? (o.blobGasUsed ?? 0) : null,
    excessBlobGas: version >= 2 ? (o.excessBlobGas ?? 0) : null,
    parentBeaconBlockRoot: version >= 2 ? hexToBytes(BEACON_ROOT) : null,
    requestsHash: version === 3 ? sha256(new Uint8Array(0)) : null,
  };
  const body: BlockBody = { transactions, ommers: [], withdrawals };
  const executionPayload = blockToPayload(header, body, headerHash(header), version + 1, true);
  return { executionPayload, parentBeaconBlockRoot: version >= 2 ? BEACON_ROOT : null };
}

/** rlp([index, validatorIndex, address, amount]) for small values (enough for these tests). */
function withdrawalRlp(w: NonNullable<BlockBody["withdrawals"]>[number]): Uint8Array {
  const int = (v: bigint) => (v === 0n ? [0x80] : v < 0x80n ? [Number(v)] : [0x81, Number(v)]);
  const items = [...int(w.index), ...int(w.validatorIndex), 0x94, ...w.address, ...int(w.amount)];
  return Uint8Array.of(0xc0 + items.length, ...items);
}

const sign = localBlockSigner(KEY, CHAIN_ID);
const signOther = localBlockSigner(OTHER_KEY, CHAIN_ID);

function validator(now: number, over: Partial<ConstructorParameters<typeof BlockGossipValidator>[0]> = {}) {
  return new BlockGossipValidator({
    cfg,
    chainId: CHAIN_ID,
    signer: () => SIGNER,
    timestampThresholdSec: 60,
    now: () => now,
    ...over,
  });
}

function reason(v: GossipVerdict): string {
  return v.result === "accept" ? "accept" : `${v.result}:${v.reason}`;
}

/** Signs arbitrary signed-bytes with the right key (to reach the checks after the signature). */
function signedRaw(signed: Uint8Array, key = KEY): Uint8Array {
  return gossipMessage(signed, localBlockSigner(key, CHAIN_ID)(payloadHashOf(signed)));
}

describe("p2p/gossipBlock", () => {
  it("topics and versions", () => {
    assert.equal(blocksTopic(10n, 0), "/optimism/10/0/blocks");
    assert.equal(blocksTopic(8453n, 3), "/optimism/8453/3/blocks");
    assert.equal(blocksTopic(2n ** 64n, 2), "/optimism/18446744073709551616/2/blocks");
    const at = (t: number) => blockVersionAt(cfg, t);
    assert.deepEqual(
      [at(0), at(999), at(1000), at(1999), at(2000), at(2999), at(3000), at(5000)],
      [0, 0, 1, 1, 2, 2, 3, 3],
    );
  });

  it("the block-signing hash and signature match viem", async () => {
    for (const version of [0, 1, 2, 3] as const) {
      const env = envelopeOf(version);
      const signed = encodeEnvelope(version, env);
      const want = viemKeccak(
        concat([
          `0x${"00".repeat(32)}`,
          numberToHex(CHAIN_ID, { size: 32 }),
          viemKeccak(bytesToHex(signed) as `0x${string}`),
        ]),
      );
      assert.equal(bytesToHex(blockSigningHash(CHAIN_ID, payloadHashOf(signed))), want);
      const sig = sign(payloadHashOf(signed));
      assert.equal(sig.length, 65);
      assert.ok(sig[64] === 0 || sig[64] === 1);
      const viemSig = concat([
        bytesToHex(sig.subarray(0, 64)) as `0x${string}`,
        numberToHex(27 + sig[64]!, { size: 1 }),
      ]);
      const addr = await viemRecover({ hash: want, signature: viemSig });
      assert.equal(addr.toLowerCase(), bytesToHex(SIGNER));
    }
  });

  it("encodeGossipBlock: snappy(sig ‖ [beacon root] ‖ SSZ payload)", () => {
    for (const version of [0, 1, 2, 3] as const) {
      const env = envelopeOf(version);
      const msg = encodeGossipBlock(version, env, sign);
      const raw = new Uint8Array(snappyjs.uncompress(msg));
      const signed = encodeEnvelope(version, env);
      assert.deepEqual(raw.subarray(65), signed);
      assert.deepEqual(raw.subarray(0, 65), sign(payloadHashOf(signed)));
      if (version >= 2) assert.equal(bytesToHex(raw.subarray(65, 97)), BEACON_ROOT);
    }
    assert.throws(() => encodeGossipBlock(0, envelopeOf(0), () => new Uint8Array(64)), RangeError);
  });

  it("message id matches an independent sha256 computation", () => {
    const topic = blocksTopic(CHAIN_ID, 2);
    const indep = (domain: number, data: Uint8Array) => {
      const len = Buffer.alloc(8);
      len.writeBigUInt64LE(BigInt(Buffer.byteLength(topic)));
      const h = createHash("sha256")
        .update(Uint8Array.of(domain, 0, 0, 0))
        .update(len)
        .update(topic)
        .update(data)
        .digest();
      return new Uint8Array(h.subarray(0, 20));
    };
    const msg = encodeGossipBlock(2, envelopeOf(2), sign);
    const id = gossipMessageId(topic, msg);
    assert.equal(id.length, 20);
    assert.deepEqual(id, indep(1, new Uint8Array(snappyjs.uncompress(msg))));
    const junk = Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2);
    assert.deepEqual(gossipMessageId(topic, junk), indep(0, junk));
    // Over the 10 MiB limit: the raw bytes with domain 0.
    const big = snappyCompress(new Uint8Array(10 * 1024 * 1024 + 1));
    assert.deepEqual(gossipMessageId(topic, big), indep(0, big));
  });

  for (const version of [0, 1, 2, 3] as const) {
    it(`accepts a valid version ${version} block, then ignores it as a duplicate`, () => {
      const env = envelopeOf(version);
      const v = validator(TS[version]);
      const msg = encodeGossipBlock(version, env, sign);
      const r = v.validate(version, msg);
      assert.equal(reason(r), "accept");
      assert.ok(r.result === "accept");
      assert.deepEqual(r.envelope, env);
      assert.equal(bytesToHex(r.blockHash), env.executionPayload.blockHash);
      assert.equal(r.number, 100);
      assert.equal(reason(v.validate(version, msg)), "ignore:duplicate");
      assert.deepEqual(blockHashOf(version, env), hexToBytes(env.executionPayload.blockHash as string));
    });
  }

  it("rejects bad snappy and sizes out of bounds", () => {
    const v = validator(TS[1]);
    assert.equal(reason(v.validate(1, new Uint8Array(0))), "reject:snappy");
    assert.equal(reason(v.validate(1, Uint8Array.of(0x64, 0x05, 0x00, 0x01, 0x02))), "reject:snappy");
    assert.equal(reason(v.validate(1, snappyCompress(new Uint8Array(65)))), "reject:size");
    // 11 MiB declared: refused on the header alone.
    assert.equal(reason(v.validate(1, Uint8Array.of(0x80, 0x80, 0xc0, 0x05, 0))), "reject:size");
  });

  it("signature: wrong key, bad recovery id, garbage; no known signer is IGNORE", () => {
    const env = envelopeOf(1);
    const v = validator(TS[1]);
    assert.equal(reason(v.validate(1, encodeGossipBlock(1, env, signOther))), "reject:signature");
    const signed = encodeEnvelope(1, env);
    const sig = sign(payloadHashOf(signed));
    for (const recid of [2, 27, 28]) {
      const s = sig.slice();
      s[64] = recid;
      assert.equal(reason(v.validate(1, gossipMessage(signed, s))), "reject:signature");
    }
    const flipped = sig.slice();
    flipped[64] ^= 1;
    assert.equal(reason(v.validate(1, gossipMessage(signed, flipped))), "reject:signature");
    assert.equal(reason(v.validate(1, gossipMessage(signed, new Uint8Array(65)))), "reject:signature");
    // Signed for another chain.
    const otherChain = localBlockSigner(KEY, CHAIN_ID + 1n);
    assert.equal(reason(v.validate(1, encodeGossipBlock(1, env, otherChain))), "reject:signature");
    const none = validator(TS[1], { signer: () => new Uint8Array(20) });
    assert.equal(reason(none.validate(1, encodeGossipBlock(1, env, sign))), "ignore:no_signer");
  });

  it("rejects bad SSZ under a valid signature", () => {
    const v = validator(TS[2]);
    assert.equal(reason(v.validate(2, signedRaw(Uint8Array.of(1)))), "reject:ssz");
    const signed = encodeEnvelope(2, envelopeOf(2));
    assert.equal(reason(v.validate(2, signedRaw(signed.subarray(0, 500)))), "reject:ssz");
    // A v1 payload on the v3 (N = 2) topic does not decode there.
    assert.equal(reason(v.validate(2, signedRaw(encodeEnvelope(1, envelopeOf(1))))), "reject:ssz");
  });

  it("timestamp window: now − threshold … now + 5 s", () => {
    const msg = encodeGossipBlock(1, envelopeOf(1), sign);
    const t = TS[1];
    assert.equal(reason(validator(t + 60).validate(1, msg)), "accept");
    assert.equal(reason(validator(t + 61).validate(1, msg)), "reject:timestamp_old");
    assert.equal(reason(validator(t + 11, { timestampThresholdSec: 10 }).validate(1, msg)), "reject:timestamp_old");
    assert.equal(reason(validator(t - 5).validate(1, msg)), "accept");
    assert.equal(reason(validator(t - 6).validate(1, msg)), "reject:timestamp_future");
  });

  it("rejects a payload whose fork does not match the topic", () => {
    // A V1-layout block stamped in Canyon time, sent on topic 0.
    const env = envelopeOf(0, { timestamp: TS[1] });
    assert.equal(reason(validator(TS[1]).validate(0, encodeGossipBlock(0, env, sign))), "reject:version_mismatch");
    const env3 = envelopeOf(2, { timestamp: TS[3] });
    assert.equal(reason(validator(TS[3]).validate(2, encodeGossipBlock(2, env3, sign))), "reject:version_mismatch");
  });

  it("rejects a wrong block hash", () => {
    for (const version of [0, 1, 2, 3] as const) {
      const env = envelopeOf(version);
      const bad = { ...env, executionPayload: { ...env.executionPayload, blockHash: `0x${"ab".repeat(32)}` } };
      assert.equal(
        reason(validator(TS[version]).validate(version, encodeGossipBlock(version, bad, sign))),
        "reject:block_hash",
      );
      // A field changed after hashing.
      const p: PayloadJson = { ...env.executionPayload, gasUsed: "0x1" };
      assert.equal(
        reason(
          validator(TS[version]).validate(version, encodeGossipBlock(version, { ...env, executionPayload: p }, sign)),
        ),
        "reject:block_hash",
      );
    }
    // The beacon root is part of the hash.
    const env = envelopeOf(2);
    const other = { ...env, parentBeaconBlockRoot: `0x${"cd".repeat(32)}` };
    assert.equal(reason(validator(TS[2]).validate(2, encodeGossipBlock(2, other, sign))), "reject:block_hash");
  });

  it("rejects non-empty withdrawals (correctly hashed)", () => {
    const w = [{ index: 1n, validatorIndex: 2n, address: new Uint8Array(20).fill(7), amount: 3n }];
    for (const version of [1, 2] as const) {
      const env = envelopeOf(version, { withdrawals: w });
      assert.equal((env.executionPayload.withdrawals as unknown[]).length, 1);
      assert.equal(
        reason(validator(TS[version]).validate(version, encodeGossipBlock(version, env, sign))),
        "reject:withdrawals",
      );
    }
  });

  it("blob fields: zero from Ecotone; blobGasUsed is the DA footprint from Jovian", () => {
    const pre = envelopeOf(2, { blobGasUsed: 131072 });
    assert.equal(reason(validator(TS[2]).validate(2, encodeGossipBlock(2, pre, sign))), "reject:blob_fields");
    const preIsthmus = envelopeOf(3, { blobGasUsed: 5 });
    assert.equal(reason(validator(TS[3]).validate(3, encodeGossipBlock(3, preIsthmus, sign))), "reject:blob_fields");
    const excess = envelopeOf(2, { excessBlobGas: 1 });
    assert.equal(reason(validator(TS[2]).validate(2, encodeGossipBlock(2, excess, sign))), "reject:blob_fields");
    const jt = 4500;
    const jovian = envelopeOf(3, { timestamp: jt, blobGasUsed: 123_456 });
    assert.equal(reason(validator(jt).validate(3, encodeGossipBlock(3, jovian, sign))), "accept");
    const jovianExcess = envelopeOf(3, { timestamp: jt, excessBlobGas: 1 });
    assert.equal(reason(validator(jt).validate(3, encodeGossipBlock(3, jovianExcess, sign))), "reject:blob_fields");
  });

  it("at most 5 distinct blocks per height; duplicates ignored; heights in an LRU of 1000", () => {
    const v = validator(TS[1]);
    const msgs = Array.from({ length: 7 }, (_, i) =>
      encodeGossipBlock(1, envelopeOf(1, { extra: Uint8Array.of(i) }), sign),
    );
    for (let i = 0; i < 5; i++) assert.equal(reason(v.validate(1, msgs[i]!)), "accept", `block ${i}`);
    assert.equal(reason(v.validate(1, msgs[5]!)), "reject:too_many_at_height");
    assert.equal(reason(v.validate(1, msgs[6]!)), "reject:too_many_at_height");
    assert.equal(reason(v.validate(1, msgs[2]!)), "ignore:duplicate");
    // Another height is unaffected.
    assert.equal(reason(v.validate(1, encodeGossipBlock(1, envelopeOf(1, { number: 101 }), sign))), "accept");
    // Height 100 touched again (most recent), then 999 other heights: 101 is evicted, 100 is kept.
    assert.equal(reason(v.validate(1, msgs[0]!)), "ignore:duplicate");
    for (let n = 1000; n < 1999; n++) {
      assert.equal(reason(v.validate(1, encodeGossipBlock(1, envelopeOf(1, { number: n }), sign))), "accept");
    }
    assert.equal(reason(v.validate(1, msgs[5]!)), "reject:too_many_at_height");
    assert.equal(reason(v.validate(1, encodeGossipBlock(1, envelopeOf(1, { number: 101 }), sign))), "accept");
  });

  it("an exception inside validation is a REJECT, not a throw", () => {
    const v = validator(TS[1], {
      signer: () => {
        throw new Error("runtime config unavailable");
      },
    });
    assert.equal(reason(v.validate(1, encodeGossipBlock(1, envelopeOf(1), sign))), "reject:internal");
  });

  it("never throws on mutated messages", () => {
    const v = validator(TS[2]);
    const msg = snappyUncompress(encodeGossipBlock(2, envelopeOf(2), sign), 1 << 20);
    assert.ok(!(msg instanceof SnappyError));
    for (let i = 0; i < 300; i++) {
      const m = msg.slice();
      m[Math.floor(Math.random() * m.length)] = Math.floor(Math.random() * 256);
      const r = v.validate(2, snappyCompress(m.subarray(0, Math.floor(Math.random() * m.length * 1.1))));
      assert.ok(r.result === "reject" || r.result === "ignore" || r.result === "accept");
    }
  });
});
