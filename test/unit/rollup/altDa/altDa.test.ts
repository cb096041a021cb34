/**
 * Alt-DA: commitment codecs (tx data, DA-server key) and the challenge state (windows,
 * ChallengeStatusChanged events, resolve calldata, expiry, pruning, resets) with the manager over
 * fakes. The DA client against a local DA server: test/integration/rollup/altDa/daClient.test.ts.
 */
import { strict as assert } from "node:assert";
import type { ReceiptLog } from "../../../../src/block/log.js";
import { keccak256 } from "../../../../src/crypto/keccak.js";
import { bytesKey, concatBytes, utf8ToBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import {
  ALT_DA_MAX_INPUT_SIZE,
  type AltDaCommitment,
  AltDaCommitmentError,
  checkCommitmentType,
  commitmentTxData,
  commitmentUrlKey,
  decodeCommitment,
  decodeCommitmentTxData,
  encodeCommitment,
  genericCommitment,
  isAltDaTxData,
  keccakCommitment,
  parseCommitmentUrlKey,
  verifyCommitment,
} from "../../../../src/rollup/altDa/commitment.js";
import { DaNotFoundError, DaTransientError } from "../../../../src/rollup/altDa/daClient.js";
import {
  type AltDaL1Source,
  AltDaManager,
  AltDaState,
  type AltDaStorage,
  applyChallengeEvents,
  CHALLENGE_STATUS_EVENT_TOPIC,
  ChallengeDecodeError,
  ChallengeStatus,
  type DaReceipt,
  type DaTx,
  decodeChallengeStatusLog,
  decodeResolvedInput,
  encodeResolveCalldata,
  hasChallengeLogs,
} from "../../../../src/rollup/altDa/daState.js";
import type { AltDaConfig } from "../../../../src/rollup/config/rollupConfig.js";
import { DeriveError } from "../../../../src/rollup/derive/errors.js";
import type { L1BlockRef } from "../../../../src/rollup/refs.js";

function codeOf(code: string) {
  return (e: unknown) => {
    assert.ok(e instanceof AltDaCommitmentError, String(e));
    assert.equal(e.code, code);
    return true;
  };
}

describe("rollup/altDa commitment", () => {
  it("keccak: tx data 0x01 ‖ 0x00 ‖ hash, URL key without the version byte", () => {
    const input = utf8ToBytes("\x00frames");
    const c = keccakCommitment(input);
    assert.equal(c.type, "KeccakCommitment");
    assert.deepEqual(c.data, keccak256(input));
    const tx = commitmentTxData(c);
    assert.equal(tx.length, 34);
    assert.deepEqual([tx[0], tx[1]], [1, 0]);
    assert.ok(isAltDaTxData(tx));
    const back = decodeCommitmentTxData(tx);
    assert.deepEqual(back, c);
    assert.equal(commitmentUrlKey(c), `0x00${bytesToHex(c.data).slice(2)}`);
    assert.deepEqual(parseCommitmentUrlKey(commitmentUrlKey(c)), c);
    verifyCommitment(c, input);
    assert.throws(() => verifyCommitment(c, utf8ToBytes("\x00other")), codeOf("MISMATCH"));
  });

  it("generic: da_layer_byte ‖ payload is opaque and never verified", () => {
    const c = genericCommitment(Uint8Array.of(0x0c, 1, 2, 3));
    const tx = commitmentTxData(c);
    assert.deepEqual(tx, Uint8Array.of(1, 1, 0x0c, 1, 2, 3));
    assert.deepEqual(decodeCommitmentTxData(tx), c);
    assert.equal(commitmentUrlKey(c), "0x010c010203");
    verifyCommitment(c, utf8ToBytes("anything"));
    // a one-byte generic commitment (just the DA layer byte) is accepted, as op-node does
    assert.deepEqual(decodeCommitment(Uint8Array.of(1, 0xff)).data, Uint8Array.of(0xff));
  });

  it("rejects malformed commitments with typed errors", () => {
    assert.throws(() => decodeCommitment(new Uint8Array(0)), codeOf("EMPTY"));
    assert.throws(() => decodeCommitment(Uint8Array.of(0)), codeOf("EMPTY"));
    assert.throws(() => decodeCommitment(Uint8Array.of(1)), codeOf("EMPTY"));
    assert.throws(() => decodeCommitment(concatBytes(Uint8Array.of(0), new Uint8Array(31))), codeOf("BAD_LENGTH"));
    assert.throws(() => decodeCommitment(concatBytes(Uint8Array.of(0), new Uint8Array(33))), codeOf("BAD_LENGTH"));
    assert.throws(() => decodeCommitment(Uint8Array.of(2, 1, 2)), codeOf("UNKNOWN_TYPE"));
    assert.throws(() => decodeCommitmentTxData(Uint8Array.of(0, 0, 1)), codeOf("NOT_ALT_DA"));
    assert.throws(() => decodeCommitmentTxData(new Uint8Array(0)), codeOf("NOT_ALT_DA"));
    assert.ok(!isAltDaTxData(Uint8Array.of(0, 1)));
    assert.throws(() => parseCommitmentUrlKey("00ab"), codeOf("BAD_HEX"));
    assert.throws(() => parseCommitmentUrlKey("0x0"), codeOf("BAD_HEX"));
    assert.throws(() => genericCommitment(new Uint8Array(0)), codeOf("EMPTY"));
  });

  it("rejects a commitment whose type is not the rollup's", () => {
    const k = keccakCommitment(utf8ToBytes("x"));
    const g = genericCommitment(Uint8Array.of(0xff, 9));
    checkCommitmentType(k, "KeccakCommitment");
    checkCommitmentType(g, "GenericCommitment");
    assert.throws(() => checkCommitmentType(k, "GenericCommitment"), codeOf("TYPE_MISMATCH"));
    assert.throws(() => checkCommitmentType(g, "KeccakCommitment"), codeOf("TYPE_MISMATCH"));
    assert.equal(ALT_DA_MAX_INPUT_SIZE, 130672);
  });
});

// ---- challenge state ----

function ref(n: number): L1BlockRef {
  const h = new Uint8Array(32);
  h[31] = n & 0xff;
  h[30] = n >> 8;
  return { hash: h, number: n, parentHash: new Uint8Array(32), timestamp: 12 * n };
}

const CHALLENGE_ADDR = new Uint8Array(20).fill(0xdc);

function word(n: number | bigint): Uint8Array {
  const w = new Uint8Array(32);
  let v = BigInt(n);
  for (let i = 31; i >= 0 && v > 0n; i--) {
    w[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return w;
}

function statusLog(c: AltDaCommitment, commBlock: number, status: number): ReceiptLog {
  const enc = encodeCommitment(c);
  const padded = new Uint8Array(Math.ceil(enc.length / 32) * 32);
  padded.set(enc);
  return {
    address: CHALLENGE_ADDR,
    topics: [CHALLENGE_STATUS_EVENT_TOPIC, word(commBlock)],
    data: concatBytes(word(64), word(status), word(enc.length), padded),
  };
}

describe("rollup/altDa challenge state", () => {
  const cfg = {
    daChallengeAddress: CHALLENGE_ADDR,
    commitmentType: "KeccakCommitment" as const,
    daChallengeWindow: 10,
    daResolveWindow: 5,
  };

  it("the event topic and resolve selector are the contract's", () => {
    assert.deepEqual(
      CHALLENGE_STATUS_EVENT_TOPIC,
      keccak256(utf8ToBytes("ChallengeStatusChanged(uint256,bytes,uint8)")),
    );
    assert.deepEqual(
      encodeResolveCalldata(0, new Uint8Array(0), Uint8Array.of(1)).subarray(0, 4),
      keccak256(utf8ToBytes("resolve(uint256,bytes,bytes)")).subarray(0, 4),
    );
  });

  it("unchallenged commitments expire after the challenge window, then prune into the finalized head", () => {
    const s = new AltDaState(cfg);
    const a = keccakCommitment(utf8ToBytes("a"));
    const b = keccakCommitment(utf8ToBytes("b"));
    assert.ok(s.noCommitments());
    s.trackCommitment(a, ref(100));
    s.trackCommitment(b, ref(102));
    assert.equal(s.getChallengeStatus(a, 100), ChallengeStatus.Uninitialized);
    assert.equal(s.expireCommitments(109), false);
    assert.equal(s.activeCommitments().length, 2);
    assert.equal(s.expireCommitments(110), false);
    assert.equal(s.activeCommitments().length, 1);
    s.prune(109);
    assert.equal(s.lastPrunedCommitment.number, 0);
    s.prune(110);
    assert.equal(s.lastPrunedCommitment.number, 100);
    assert.equal(s.expireCommitments(112), false);
    s.prune(112);
    assert.equal(s.lastPrunedCommitment.number, 102);
    assert.ok(s.noCommitments());
  });

  it("active → expired after the resolve window; a used input then requires a reorg", () => {
    const s = new AltDaState(cfg);
    const a = keccakCommitment(utf8ToBytes("a"));
    s.trackCommitment(a, ref(100));
    // challenged at block 105: resolve window ends at 110, which also ends the commitment
    s.createChallenge(a, ref(105), 100);
    assert.equal(s.getChallengeStatus(a, 100), ChallengeStatus.Active);
    assert.equal(s.getChallengeStatus(a, 101), ChallengeStatus.Uninitialized);
    s.expireChallenges(109);
    assert.equal(s.expireCommitments(109), false);
    assert.equal(s.getChallengeStatus(a, 100), ChallengeStatus.Active);
    s.expireChallenges(110);
    assert.equal(s.getChallengeStatus(a, 100), ChallengeStatus.Expired);
    assert.equal(s.expireCommitments(110), true);
    // the reset after an expired challenge keeps the challenge, so re-derivation skips the input
    s.clearCommitments();
    assert.equal(s.getChallengeStatus(a, 100), ChallengeStatus.Expired);
    assert.equal(s.noCommitments(), false);
    // an L1 reorg forgets everything
    s.reset();
    assert.equal(s.getChallengeStatus(a, 100), ChallengeStatus.Uninitialized);
    assert.ok(s.noCommitments());
  });

  it("a commitment challenged late lives until the resolve window ends; resolved needs no reorg", () => {
    const s = new AltDaState(cfg);
    const a = keccakCommitment(utf8ToBytes("a"));
    s.trackCommitment(a, ref(100));
    s.createChallenge(a, ref(109), 100); // resolve window ends at 114, past the challenge window (110)
    s.expireChallenges(110);
    assert.equal(s.expireCommitments(110), false);
    assert.equal(s.activeCommitments().length, 1);
    assert.ok(s.resolveChallenge(a, 100, utf8ToBytes("a")));
    assert.ok(!s.resolveChallenge(a, 99, utf8ToBytes("a")));
    s.expireChallenges(114);
    assert.equal(s.getChallengeStatus(a, 100), ChallengeStatus.Resolved);
    assert.deepEqual(s.getChallenge(a, 100)?.input, utf8ToBytes("a"));
    assert.equal(s.expireCommitments(114), false);
    assert.equal(s.activeCommitments().length, 0);
    s.prune(114);
    assert.equal(s.lastPrunedCommitment.number, 100);
    assert.equal(s.getChallenge(a, 100), undefined);
    assert.ok(s.noCommitments());
  });

  it("decodes ChallengeStatusChanged logs and resolve calldata strictly", () => {
    const a = keccakCommitment(utf8ToBytes("a"));
    const ev = decodeChallengeStatusLog(statusLog(a, 77, 1).topics, statusLog(a, 77, 1).data);
    assert.deepEqual(ev, { status: 1, commitment: a, commBlockNumber: 77 });
    const l = statusLog(a, 77, 1);
    assert.throws(() => decodeChallengeStatusLog([l.topics[0]], l.data), ChallengeDecodeError);
    assert.throws(() => decodeChallengeStatusLog([...l.topics, word(1)], l.data), ChallengeDecodeError);
    assert.throws(() => decodeChallengeStatusLog(l.topics, l.data.subarray(0, 63)), ChallengeDecodeError);
    assert.throws(() => decodeChallengeStatusLog(l.topics, l.data.subarray(0, 100)), ChallengeDecodeError);
    const bigStatus = concatBytes(l.data.subarray(0, 32), word(256), l.data.subarray(64));
    assert.throws(() => decodeChallengeStatusLog(l.topics, bigStatus), ChallengeDecodeError);
    assert.throws(() => decodeChallengeStatusLog([l.topics[0], word(1n << 64n)], l.data), ChallengeDecodeError);
    const badOffset = concatBytes(word(1n << 70n), l.data.subarray(32));
    assert.throws(() => decodeChallengeStatusLog(l.topics, badOffset), ChallengeDecodeError);
    const input = utf8ToBytes("\x00the input data, longer than one word of thirty-two bytes");
    const cd = encodeResolveCalldata(77, encodeCommitment(a), input);
    assert.deepEqual(decodeResolvedInput(cd), input);
    assert.throws(
      () => decodeResolvedInput(encodeResolveCalldata(77, encodeCommitment(a), new Uint8Array(0))),
      /invalid resolve data/,
    );
    assert.throws(() => decodeResolvedInput(cd.subarray(0, cd.length - 40)), ChallengeDecodeError);
    assert.throws(() => decodeResolvedInput(cd.subarray(0, 3)), ChallengeDecodeError);
  });

  it("applies a block's challenge events: active, resolved with verified calldata, skips the rest", () => {
    const s = new AltDaState(cfg);
    const input = utf8ToBytes("\x00resolved input");
    const a = keccakCommitment(input);
    const b = keccakCommitment(utf8ToBytes("b"));
    s.trackCommitment(a, ref(100));
    s.trackCommitment(b, ref(101));
    const other = { ...statusLog(b, 101, 1), address: new Uint8Array(20) };
    const noise = { ...statusLog(b, 101, 1), topics: [new Uint8Array(32), word(101)] };
    const r103 = [
      { status: 1, logs: [statusLog(a, 100, 1), other, noise] },
      { status: 0, logs: [statusLog(b, 101, 1)] },
      { status: 1, logs: [statusLog(b, 101, 1), statusLog(b, 101, 3), statusLog(a, 555, 2)] },
    ];
    assert.ok(hasChallengeLogs(cfg, r103));
    assert.ok(!hasChallengeLogs(cfg, [r103[1], { status: 1, logs: [other, noise] }]));
    const out1 = applyChallengeEvents(s, cfg, ref(103), r103, []);
    assert.deepEqual(
      out1.map((o) => o.kind),
      ["active", "active", "skipped", "skipped"],
    );
    assert.equal(s.getChallengeStatus(a, 100), ChallengeStatus.Active);
    assert.equal(s.getChallengeStatus(b, 101), ChallengeStatus.Active);
    // block 104: tx 1 resolves a (and names an untracked challenge), tx 2's "resolution" of b carries
    // the wrong data, receipt 3 has no transaction
    const txs = [
      { data: new Uint8Array(0) },
      { data: encodeResolveCalldata(100, encodeCommitment(a), input) },
      { data: encodeResolveCalldata(101, encodeCommitment(b), utf8ToBytes("not b")) },
    ];
    const out2 = applyChallengeEvents(
      s,
      cfg,
      ref(104),
      [
        { status: 1, logs: [] },
        { status: 1, logs: [statusLog(a, 100, 2), statusLog(a, 555, 2)] },
        { status: 1, logs: [statusLog(b, 101, 2)] },
        { status: 1, logs: [statusLog(b, 101, 2)] },
      ],
      txs,
    );
    assert.deepEqual(
      out2.map((o) => (o.kind === "skipped" ? o.reason.split(":")[0] : o.kind)),
      ["resolved", "challenge was not tracked", "bad resolved input", "tx/receipt mismatch"],
    );
    assert.equal(s.getChallengeStatus(a, 100), ChallengeStatus.Resolved);
    assert.deepEqual(s.getChallenge(a, 100)?.input, input);
    assert.equal(s.getChallengeStatus(b, 101), ChallengeStatus.Active);
    // at 108 both challenges' resolve windows are over: b expired and its use requires a reorg
    s.expireChallenges(108);
    assert.equal(s.getChallengeStatus(b, 101), ChallengeStatus.Expired);
    assert.equal(s.expireCommitments(108), true);
    // generic rollups have no challenge contract: events are ignored
    const g = new AltDaState(cfg);
    const gcfg = { ...cfg, commitmentType: "GenericCommitment" as const };
    assert.deepEqual(applyChallengeEvents(g, gcfg, ref(1), [{ status: 1, logs: [statusLog(a, 100, 1)] }], []), []);
    assert.ok(!hasChallengeLogs(gcfg, [{ status: 1, logs: [statusLog(a, 100, 1)] }]));
    assert.ok(g.noCommitments());
  });
});

// ---- the DA manager ----

class FakeL1 implements AltDaL1Source {
  readonly blocks = new Map<number, { receipts: DaReceipt[]; txs: DaTx[] }>();
  head = 0;
  receiptCalls = 0;
  fail = false;

  block(n: number): { receipts: DaReceipt[]; txs: DaTx[] } {
    let b = this.blocks.get(n);
    if (b === undefined) {
      b = { receipts: [], txs: [] };
      this.blocks.set(n, b);
    }
    return b;
  }

  /** Adds a transaction emitting `logs` to block n. */
  emit(n: number, logs: ReceiptLog[], data: Uint8Array = new Uint8Array(0)): void {
    const b = this.block(n);
    b.receipts.push({ status: 1, logs });
    b.txs.push({ data });
  }

  private numberOf(hash: Uint8Array): number {
    return hash[31] + 256 * hash[30];
  }

  async fetchReceipts(hash: Uint8Array): Promise<readonly DaReceipt[]> {
    this.receiptCalls++;
    if (this.fail) throw new Error("l1 down");
    return this.block(this.numberOf(hash)).receipts;
  }

  async txsByHash(hash: Uint8Array): Promise<readonly DaTx[]> {
    return this.block(this.numberOf(hash)).txs;
  }

  async l1BlockRefByNumber(n: number): Promise<L1BlockRef> {
    if (this.fail || n > this.head) throw new Error(`block ${n} not found`);
    return ref(n);
  }
}

class MapStorage implements AltDaStorage {
  readonly m = new Map<string, Uint8Array>();
  failNext: Error | null = null;
  put(c: AltDaCommitment, data: Uint8Array): void {
    this.m.set(bytesKey(encodeCommitment(c)), data);
  }
  async getInput(c: AltDaCommitment): Promise<Uint8Array> {
    const e = this.failNext;
    this.failNext = null;
    if (e !== null) throw e;
    const v = this.m.get(bytesKey(encodeCommitment(c)));
    if (v === undefined) throw new DaNotFoundError(c);
    return v;
  }
}

function severity(sev: string, re?: RegExp) {
  return (e: unknown) => {
    assert.ok(e instanceof DeriveError, String(e));
    assert.equal(e.severity, sev);
    if (re !== undefined) assert.match(e.message, re);
    return true;
  };
}

describe("rollup/altDa manager", () => {
  const cfg: AltDaConfig = {
    daChallengeAddress: CHALLENGE_ADDR,
    commitmentType: "KeccakCommitment",
    daChallengeWindow: 10,
    daResolveWindow: 5,
  };

  function setup() {
    const l1 = new FakeL1();
    l1.head = 1000;
    const st = new MapStorage();
    const mgr = new AltDaManager(cfg, st, l1);
    return { l1, st, mgr };
  }

  it("available data: derive, expire quietly, finalize through pruning", async () => {
    const { l1, st, mgr } = setup();
    const input = utf8ToBytes("\x00frames");
    const c = keccakCommitment(input);
    st.put(c, input);
    await mgr.advanceL1Origin(ref(100));
    assert.deepEqual(await mgr.getInput(c, ref(100)), { kind: "data", data: input });
    const finals: number[] = [];
    mgr.onFinalizedHead = (r) => finals.push(r.number);
    for (let n = 101; n <= 110; n++) await mgr.advanceL1Origin(ref(n));
    assert.equal(mgr.state.activeCommitments().length, 0);
    assert.equal(mgr.challengeOriginId.number, 110);
    assert.equal(mgr.commitmentOriginId.number, 110);
    mgr.finalize(ref(105));
    mgr.finalize(ref(110));
    assert.deepEqual(finals, [0, 100]);
    assert.ok(mgr.state.noCommitments());
    // with nothing tracked the finalized head is L1 finality minus the challenge window
    mgr.finalize(ref(130));
    await mgr.advanceL1Origin(ref(111));
    assert.equal(mgr.finalizedHead.number, 120);
    assert.ok(l1.receiptCalls >= 11);
  });

  it("skips a commitment of the wrong type and a keccak input over the max size", async () => {
    const { st, mgr } = setup();
    await mgr.advanceL1Origin(ref(100));
    const g = genericCommitment(Uint8Array.of(0xff, 1));
    st.put(g, utf8ToBytes("x"));
    assert.deepEqual(await mgr.getInput(g, ref(100)), { kind: "skip", reason: "type-mismatch" });
    assert.ok(mgr.state.noCommitments());
    const big = new Uint8Array(ALT_DA_MAX_INPUT_SIZE + 1);
    const c = keccakCommitment(big);
    st.put(c, big);
    assert.deepEqual(await mgr.getInput(c, ref(100)), { kind: "skip", reason: "too-large" });
    const ok = new Uint8Array(ALT_DA_MAX_INPUT_SIZE);
    st.put(keccakCommitment(ok), ok);
    assert.equal((await mgr.getInput(keccakCommitment(ok), ref(100))).kind, "data");
  });

  it("DA server and L1 failures are temporary", async () => {
    const { l1, st, mgr } = setup();
    await mgr.advanceL1Origin(ref(100));
    const c = keccakCommitment(utf8ToBytes("x"));
    st.failNext = new DaTransientError("HTTP_STATUS", "HTTP 503", 503);
    await assert.rejects(mgr.getInput(c, ref(100)), severity("temporary", /HTTP 503/));
    l1.fail = true;
    await assert.rejects(mgr.advanceL1Origin(ref(101)), severity("temporary", /l1 down/));
    await assert.rejects(mgr.getInput(c, ref(100)), severity("temporary", /look-ahead/));
    l1.fail = false;
    await mgr.advanceL1Origin(ref(101));
    assert.equal(mgr.challengeOriginId.number, 101);
  });

  it("missing and never challenged: pending while looking ahead, critical past the challenge window", async () => {
    const { mgr } = setup();
    const c = keccakCommitment(utf8ToBytes("lost"));
    await mgr.advanceL1Origin(ref(100));
    let pending = 0;
    for (;;) {
      try {
        const r = await mgr.getInput(c, ref(100));
        assert.deepEqual(r, { kind: "pending" });
        pending++;
      } catch (e) {
        severity("critical", /data missing past window/)(e);
        break;
      }
    }
    // looked ahead 101..111; at 111 the window (100 + 10) is behind the challenge origin
    assert.equal(pending, 11);
    assert.equal(mgr.challengeOriginId.number, 111);
    // a look-ahead past the L1 head is a temporary error
    const { mgr: m2, l1: l2 } = setup();
    l2.head = 100;
    await m2.advanceL1Origin(ref(100));
    await assert.rejects(m2.getInput(c, ref(100)), severity("temporary"));
  });

  it("missing, challenged, resolved on L1: the input comes from the resolve calldata", async () => {
    const { l1, mgr } = setup();
    const input = utf8ToBytes("\x00only on L1 now");
    const c = keccakCommitment(input);
    l1.emit(103, [statusLog(c, 100, 1)]);
    l1.emit(106, [statusLog(c, 100, 2)], encodeResolveCalldata(100, encodeCommitment(c), input));
    await mgr.advanceL1Origin(ref(100));
    const seen: string[] = [];
    for (let i = 0; i < 20; i++) {
      const r = await mgr.getInput(c, ref(100));
      seen.push(r.kind);
      if (r.kind === "data") {
        assert.deepEqual(r.data, input);
        break;
      }
    }
    assert.deepEqual(seen, ["pending", "pending", "pending", "pending", "pending", "pending", "data"]);
    assert.equal(mgr.challengeOriginId.number, 106);
    // the pipeline catches up without a reorg
    for (let n = 101; n <= 120; n++) await mgr.advanceL1Origin(ref(n));
  });

  it("missing, challenged, never resolved: the challenge expires and the input is skipped", async () => {
    const { l1, mgr } = setup();
    const c = keccakCommitment(utf8ToBytes("gone"));
    l1.emit(103, [statusLog(c, 100, 1)]);
    await mgr.advanceL1Origin(ref(100));
    let r = await mgr.getInput(c, ref(100));
    while (r.kind === "pending") r = await mgr.getInput(c, ref(100));
    assert.deepEqual(r, { kind: "skip", reason: "expired-challenge" });
    assert.equal(mgr.challengeOriginId.number, 108);
    assert.equal(mgr.state.getChallengeStatus(c, 100), ChallengeStatus.Expired);
  });

  it("an input already used whose challenge expires forces a reset that keeps the challenge", async () => {
    const { l1, st, mgr } = setup();
    const input = utf8ToBytes("\x00used then withheld");
    const c = keccakCommitment(input);
    st.put(c, input);
    l1.emit(104, [statusLog(c, 100, 1)]);
    await mgr.advanceL1Origin(ref(100));
    assert.equal((await mgr.getInput(c, ref(100))).kind, "data");
    for (let n = 101; n <= 108; n++) await mgr.advanceL1Origin(ref(n));
    await assert.rejects(mgr.advanceL1Origin(ref(109)), severity("reset", /new expired challenge/));
    // the pipeline resets to an older base: only commitments are dropped
    mgr.reset(ref(95));
    assert.equal(mgr.commitmentOriginId.number, 95);
    assert.equal(mgr.challengeOriginId.number, 109);
    for (let n = 96; n <= 100; n++) await mgr.advanceL1Origin(ref(n));
    assert.deepEqual(await mgr.getInput(c, ref(100)), { kind: "skip", reason: "expired-challenge" });
    // an L1 reorg reset clears the challenges too
    mgr.reset(ref(90));
    assert.equal(mgr.challengeOriginId.number, 90);
    assert.equal(mgr.state.getChallengeStatus(c, 100), ChallengeStatus.Uninitialized);
    assert.ok(mgr.state.noCommitments());
  });

  it("generic rollups never read the challenge contract; resolved-but-missing generic data is critical", async () => {
    const l1 = new FakeL1();
    l1.head = 1000;
    const st = new MapStorage();
    const gcfg: AltDaConfig = { ...cfg, commitmentType: "GenericCommitment", daChallengeAddress: new Uint8Array(20) };
    const mgr = new AltDaManager(gcfg, st, l1);
    const g = genericCommitment(Uint8Array.of(0x0c, 1, 2));
    st.put(g, utf8ToBytes("\x00celestia blob"));
    await mgr.advanceL1Origin(ref(100));
    assert.deepEqual(await mgr.getInput(g, ref(100)), { kind: "data", data: utf8ToBytes("\x00celestia blob") });
    assert.deepEqual(await mgr.getInput(keccakCommitment(utf8ToBytes("k")), ref(100)), {
      kind: "skip",
      reason: "type-mismatch",
    });
    assert.equal(l1.receiptCalls, 0);
    const missing = genericCommitment(Uint8Array.of(0x0c, 9));
    mgr.state.createChallenge(missing, ref(101), 100);
    mgr.state.resolveChallenge(missing, 100, null);
    await assert.rejects(mgr.getInput(missing, ref(100)), severity("critical"));
  });
});
