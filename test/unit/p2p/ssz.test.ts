/**
 * SSZ of OP execution payloads. The independent computation is @chainsafe/ssz (Lodestar's SSZ
 * library): the ExecutionPayload V1/V2/V3 containers are declared below field by field from the
 * consensus-specs SSZ definitions (bellatrix/capella/deneb `ExecutionPayload`), and V4 as OP's
 * Isthmus layout (V3 plus `withdrawalsRoot: Bytes32` as the last field, op-stack.md §4 and
 * op-service/eth/ssz.go). Our encoder must produce the bytes chainsafe serializes, chainsafe must
 * read our bytes back to the same value, and our decoder must read chainsafe's bytes into the same
 * Engine API JSON. Malformed offsets and lengths must come back as SszError values.
 */
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import {
  ByteListType,
  ByteVectorType,
  ContainerType,
  ListCompositeType,
  UintBigintType,
  type ValueOf,
} from "@chainsafe/ssz";
import fc from "fast-check";
import type { PayloadJson } from "../../../src/engine/payload.js";
import {
  type BlockVersion,
  decodeEnvelope,
  decodePayload,
  encodeEnvelope,
  encodePayload,
  fixedSize,
  SszError,
} from "../../../src/p2p/ssz.js";

// --- the reference containers (consensus-specs naming, snake_case) ---

const Bytes20 = new ByteVectorType(20);
const Bytes32 = new ByteVectorType(32);
const Uint64 = new UintBigintType(8);
const Uint256 = new UintBigintType(32);
const Transactions = new ListCompositeType(new ByteListType(1 << 30), 1 << 20);
const Withdrawal = new ContainerType({
  index: Uint64,
  validator_index: Uint64,
  address: Bytes20,
  amount: Uint64,
});
const Withdrawals = new ListCompositeType(Withdrawal, 16);

const v1Fields = {
  parent_hash: Bytes32,
  fee_recipient: Bytes20,
  state_root: Bytes32,
  receipts_root: Bytes32,
  logs_bloom: new ByteVectorType(256),
  prev_randao: Bytes32,
  block_number: Uint64,
  gas_limit: Uint64,
  gas_used: Uint64,
  timestamp: Uint64,
  extra_data: new ByteListType(32),
  base_fee_per_gas: Uint256,
  block_hash: Bytes32,
  transactions: Transactions,
};
const v2Fields = { ...v1Fields, withdrawals: Withdrawals };
const v3Fields = { ...v2Fields, blob_gas_used: Uint64, excess_blob_gas: Uint64 };
const v4Fields = { ...v3Fields, withdrawals_root: Bytes32 };
const ExecutionPayloadV1 = new ContainerType(v1Fields);
const ExecutionPayloadV2 = new ContainerType(v2Fields);
const ExecutionPayloadV3 = new ContainerType(v3Fields);
const ExecutionPayloadV4 = new ContainerType(v4Fields);
type RefValue = ValueOf<typeof ExecutionPayloadV4>;

function refType(v: BlockVersion) {
  return [ExecutionPayloadV1, ExecutionPayloadV2, ExecutionPayloadV3, ExecutionPayloadV4][
    v
  ] as unknown as ContainerType<typeof v4Fields>;
}

// --- random payloads, in both shapes ---

const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString("hex")}`;
const q = (v: bigint) => `0x${v.toString(16)}`;
const rnd = (n: number) => new Uint8Array(randomBytes(n));
const rndU64 = () => Buffer.from(randomBytes(8)).readBigUInt64LE(0) >> BigInt(Math.floor(Math.random() * 64));

function randomRef(v: BlockVersion, opts: { txs?: number; withdrawals?: number } = {}): RefValue {
  const txs = Array.from({ length: opts.txs ?? Math.floor(Math.random() * 6) }, () =>
    rnd(Math.floor(Math.random() * 400)),
  );
  const value: Record<string, unknown> = {
    parent_hash: rnd(32),
    fee_recipient: rnd(20),
    state_root: rnd(32),
    receipts_root: rnd(32),
    logs_bloom: rnd(256),
    prev_randao: rnd(32),
    block_number: rndU64(),
    gas_limit: rndU64(),
    gas_used: rndU64(),
    timestamp: rndU64(),
    extra_data: rnd(Math.floor(Math.random() * 33)),
    base_fee_per_gas: BigInt(hex(rnd(32))) >> BigInt(Math.floor(Math.random() * 256)),
    block_hash: rnd(32),
    transactions: txs,
  };
  if (v >= 1) {
    value.withdrawals = Array.from({ length: opts.withdrawals ?? Math.floor(Math.random() * 4) }, () => ({
      index: rndU64(),
      validator_index: rndU64(),
      address: rnd(20),
      amount: rndU64(),
    }));
  }
  if (v >= 2) {
    value.blob_gas_used = rndU64();
    value.excess_blob_gas = rndU64();
  }
  if (v >= 3) value.withdrawals_root = rnd(32);
  return value as RefValue;
}

/** The Engine API JSON our code uses for the same payload (canonical: lower-case, minimal quantities). */
function toJson(v: BlockVersion, r: RefValue): PayloadJson {
  const p: PayloadJson = {
    parentHash: hex(r.parent_hash),
    feeRecipient: hex(r.fee_recipient),
    stateRoot: hex(r.state_root),
    receiptsRoot: hex(r.receipts_root),
    logsBloom: hex(r.logs_bloom),
    prevRandao: hex(r.prev_randao),
    blockNumber: q(r.block_number),
    gasLimit: q(r.gas_limit),
    gasUsed: q(r.gas_used),
    timestamp: q(r.timestamp),
    extraData: hex(r.extra_data),
    baseFeePerGas: q(r.base_fee_per_gas),
    blockHash: hex(r.block_hash),
    transactions: r.transactions.map(hex),
  };
  if (v >= 1) {
    p.withdrawals = r.withdrawals.map((w) => ({
      index: q(w.index),
      validatorIndex: q(w.validator_index),
      address: hex(w.address),
      amount: q(w.amount),
    }));
  }
  if (v >= 2) {
    p.blobGasUsed = q(r.blob_gas_used);
    p.excessBlobGas = q(r.excess_blob_gas);
  }
  if (v >= 3) p.withdrawalsRoot = hex(r.withdrawals_root);
  return p;
}

const VERSIONS: readonly BlockVersion[] = [0, 1, 2, 3];

function isErr(v: unknown): asserts v is SszError {
  assert.ok(v instanceof SszError, `want SszError, got ${JSON.stringify(v)?.slice(0, 200)}`);
}

function ok(v: PayloadJson | SszError): PayloadJson {
  if (v instanceof SszError) assert.fail(`unexpected SszError: ${v.message}`);
  return v;
}

const u32 = (b: Uint8Array, at: number, v: number) => new DataView(b.buffer, b.byteOffset).setUint32(at, v, true);
const getU32 = (b: Uint8Array, at: number) => new DataView(b.buffer, b.byteOffset).getUint32(at, true);
/** Byte positions of the offsets in the fixed part. */
const EXTRA_OFS = 32 + 20 + 32 + 32 + 256 + 32 + 32;
const TX_OFS = EXTRA_OFS + 4 + 32 + 32;
const WD_OFS = TX_OFS + 4;

describe("p2p/ssz", () => {
  it("fixed sizes are the reference containers' fixed parts", () => {
    assert.deepEqual(
      VERSIONS.map((v) => fixedSize(v)),
      [508, 512, 528, 560],
    );
    for (const v of VERSIONS) {
      const empty = refType(v).defaultValue();
      assert.equal(refType(v).serialize(empty).length, fixedSize(v));
    }
  });

  for (const v of VERSIONS) {
    it(`version ${v}: matches @chainsafe/ssz both ways`, () => {
      for (let i = 0; i < 60; i++) {
        const ref = randomRef(v, i === 0 ? { txs: 0, withdrawals: 0 } : i === 1 ? { withdrawals: 16, txs: 20 } : {});
        const json = toJson(v, ref);
        const theirs = refType(v).serialize(ref);
        const ours = encodePayload(v, json);
        assert.deepEqual(ours, theirs);
        assert.deepEqual(refType(v).deserialize(ours), ref);
        assert.deepEqual(ok(decodePayload(v, theirs)), json);
      }
    });
  }

  it("round-trips a transaction of several megabytes", () => {
    const ref = randomRef(2, { txs: 0, withdrawals: 0 });
    ref.transactions = [rnd(5_000_000), rnd(3)];
    const json = toJson(2, ref);
    const b = encodePayload(2, json);
    assert.deepEqual(ok(decodePayload(2, b)), json);
  });

  it("accepts upper-case and zero-padded input quantities and emits canonical ones", () => {
    const json = toJson(1, randomRef(1, { withdrawals: 1 }));
    const loose = { ...json, gasLimit: "0x00FF", baseFeePerGas: "0x0" };
    const back = ok(decodePayload(1, encodePayload(1, loose)));
    assert.equal(back.gasLimit, "0xff");
    assert.equal(back.baseFeePerGas, "0x0");
  });

  it("envelopes: the parent beacon block root first from version 2, none before", () => {
    for (const v of VERSIONS) {
      const json = toJson(v, randomRef(v));
      const root = hex(rnd(32));
      const env = encodeEnvelope(v, { executionPayload: json, parentBeaconBlockRoot: v >= 2 ? root : null });
      const payload = encodePayload(v, json);
      if (v >= 2) {
        assert.equal(env.length, 32 + payload.length);
        assert.equal(hex(env.subarray(0, 32)), root);
        assert.deepEqual(env.subarray(32), payload);
      } else {
        assert.deepEqual(env, payload);
      }
      const back = decodeEnvelope(v, env);
      assert.ok(!(back instanceof SszError));
      assert.deepEqual(back, { executionPayload: json, parentBeaconBlockRoot: v >= 2 ? root : null });
    }
    assert.throws(
      () => encodeEnvelope(2, { executionPayload: toJson(2, randomRef(2)), parentBeaconBlockRoot: null }),
      SszError,
    );
    isErr(decodeEnvelope(2, new Uint8Array(31)));
    isErr(decodeEnvelope(3, new Uint8Array(32 + 559)));
  });

  it("encoding a malformed payload throws SszError", () => {
    const good = toJson(3, randomRef(3));
    const bad: [string, PayloadJson][] = [
      ["long extraData", { ...good, extraData: hex(rnd(33)) }],
      ["odd hex", { ...good, parentHash: `${hex(rnd(32))}0` }],
      ["short hash", { ...good, blockHash: hex(rnd(31)) }],
      ["no withdrawals", { ...good, withdrawals: undefined }],
      ["17 withdrawals", { ...good, withdrawals: toJson(1, randomRef(1, { withdrawals: 17 })).withdrawals }],
      ["u64 overflow", { ...good, gasUsed: q(1n << 64n) }],
      ["u256 overflow", { ...good, baseFeePerGas: q(1n << 256n) }],
      ["tx not hex", { ...good, transactions: ["0xzz"] }],
      ["no blob fields", { ...good, blobGasUsed: undefined }],
      ["no withdrawalsRoot", { ...good, withdrawalsRoot: undefined }],
      ["number quantity", { ...good, timestamp: 5 }],
    ];
    for (const [name, p] of bad) assert.throws(() => encodePayload(3, p), SszError, name);
  });

  describe("malformed input", () => {
    const v: BlockVersion = 3;
    const base = () => encodePayload(v, toJson(v, randomRef(v, { txs: 3, withdrawals: 2 })));

    it("too short or empty", () => {
      for (const ver of VERSIONS) {
        isErr(decodePayload(ver, new Uint8Array(0)));
        isErr(decodePayload(ver, new Uint8Array(fixedSize(ver) - 1)));
      }
    });

    it("extraData offset must equal the fixed size", () => {
      for (const d of [-1, 1, 4]) {
        const b = base();
        u32(b, EXTRA_OFS, fixedSize(v) + d);
        isErr(decodePayload(v, b));
      }
    });

    it("transactions offset before extraData, past the input, or leaving > 32 bytes of extraData", () => {
      const b1 = base();
      u32(b1, TX_OFS, fixedSize(v) - 1);
      isErr(decodePayload(v, b1));
      const b2 = base();
      u32(b2, TX_OFS, b2.length + 1);
      isErr(decodePayload(v, b2));
      const b3 = encodePayload(v, { ...toJson(v, randomRef(v, { txs: 2, withdrawals: 0 })), extraData: "0x" });
      u32(b3, TX_OFS, fixedSize(v) + 33);
      isErr(decodePayload(v, b3));
      const b4 = base();
      u32(b4, TX_OFS, 0xffffffff);
      isErr(decodePayload(v, b4));
    });

    it("withdrawals offset before transactions or past the input", () => {
      const b1 = base();
      u32(b1, WD_OFS, getU32(b1, TX_OFS) - 1);
      isErr(decodePayload(v, b1));
      const b2 = base();
      u32(b2, WD_OFS, b2.length + 1);
      isErr(decodePayload(v, b2));
    });

    it("withdrawals not a multiple of 44 bytes, or more than 16", () => {
      const b = base();
      isErr(decodePayload(v, b.subarray(0, b.length - 1)));
      const many = encodePayload(1, toJson(1, randomRef(1, { txs: 0, withdrawals: 16 })));
      const extra = new Uint8Array(many.length + 44);
      extra.set(many);
      isErr(decodePayload(1, extra));
    });

    it("transaction offset table: bad first offset, decreasing or out-of-range offsets", () => {
      const b = base();
      const txs = getU32(b, TX_OFS);
      const first = getU32(b, txs);
      assert.equal(first, 12);
      const cases: [string, (c: Uint8Array) => void][] = [
        ["first 0", (c) => u32(c, txs, 0)],
        ["first not /4", (c) => u32(c, txs, 13)],
        ["first past section", (c) => u32(c, txs, 0x7ffffffc)],
        ["second < first", (c) => u32(c, txs + 4, 11)],
        ["second past section", (c) => u32(c, txs + 4, 0x10000000)],
        ["third < second", (c) => u32(c, txs + 8, getU32(c, txs + 4) - 1)],
      ];
      for (const [name, mut] of cases) {
        const c = b.slice();
        mut(c);
        isErr(decodePayload(v, c));
        assert.ok(name);
      }
      // A section of 1–3 bytes cannot hold an offset.
      const short = encodePayload(0, { ...toJson(0, randomRef(0, { txs: 0 })), extraData: "0x" });
      for (const n of [1, 2, 3]) {
        const c = new Uint8Array(short.length + n);
        c.set(short);
        isErr(decodePayload(0, c));
      }
    });

    it("never throws on truncated or mutated input", () => {
      for (const ver of VERSIONS) {
        const b = encodePayload(ver, toJson(ver, randomRef(ver, { txs: 4, withdrawals: ver >= 1 ? 2 : 0 })));
        for (let n = 0; n <= b.length; n++) {
          const r = decodePayload(ver, b.subarray(0, n));
          assert.ok(r instanceof SszError || typeof r === "object");
        }
        fc.assert(
          fc.property(fc.nat(b.length - 1), fc.nat(255), fc.nat(b.length - 1), fc.nat(255), (i, x, j, y) => {
            const c = b.slice();
            c[i] = x;
            c[j] = y;
            const r = decodeEnvelope(ver, c);
            assert.ok(r instanceof SszError || typeof r === "object");
          }),
          { numRuns: 500 },
        );
      }
    });
  });
});
