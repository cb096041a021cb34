/**
 * Several P2P hosts on 127.0.0.1, with real blocks from the action harness (a sequencer building on
 * its own in-process opal-exec, a verifier deriving on another): gossip from the sequencer becomes
 * the verifier's unsafe head; invalid gossip is rejected, costs the sender its score and gets it
 * banned — a ban that survives a restart and ends after `--p2p.ban.duration`; a verifier that missed
 * blocks fills the gap over req-resp; peer counts follow the tides of spec part 3.
 */
import "../../../src/p2p/polyfill.js";
import assert from "node:assert/strict";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { privateKeyToAddress } from "../../../src/crypto/secp256k1.js";
import { LocalBlockSigner } from "../../../src/p2p/blockSigner.js";
import { blocksTopic, blockVersionAt, gossipMessage as messageOf } from "../../../src/p2p/gossipBlock.js";
import { type P2pConfig, type P2pDeps, P2pNode } from "../../../src/p2p/host.js";
import { blockSigningHash, payloadHashOf } from "../../../src/p2p/signingHash.js";
import { encodeEnvelope } from "../../../src/p2p/ssz.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { preparePayloadAttributes } from "../../../src/rollup/derive/attributes.js";
import type { PayloadEnvelope } from "../../../src/rollup/engine/engineClient.js";
import { l2Transfer, Rollup } from "../../utils/actions/rollup.js";
import { tempDir, waitFor } from "../../utils/node.js";
import { p2pConfig, quiet, recordingMetrics } from "../../utils/p2p.js";

const SIGNER_KEY = hexToBytes(`0x${"5a".repeat(32)}`);
const SIGNER = privateKeyToAddress(SIGNER_KEY);
const OTHER_KEY = hexToBytes(`0x${"3c".repeat(32)}`);

/** Signs `env` with `key` and returns the gossip message bytes of its version's topic. */
async function gossipMessage(rollup: Rollup, env: PayloadEnvelope, key: Uint8Array): Promise<Uint8Array> {
  const version = blockVersionAt(rollup.cfg, env.timestamp);
  const signed = encodeEnvelope(version, {
    executionPayload: env.executionPayload,
    parentBeaconBlockRoot: env.parentBeaconBlockRoot,
  });
  const sig = await new LocalBlockSigner(key).sign(rollup.cfg.l2ChainId, payloadHashOf(signed));
  return messageOf(signed, sig);
}

async function meshed(a: P2pNode, b: P2pNode, topic: string): Promise<void> {
  await waitFor(
    () =>
      a.libp2p.services.pubsub.getMeshPeers(topic).includes(b.peerIdString) &&
      b.libp2p.services.pubsub.getMeshPeers(topic).includes(a.peerIdString),
    15_000,
    "gossipsub mesh",
  );
}

describe("p2p/host: nodes on 127.0.0.1", function () {
  this.timeout(60_000);
  const nodes: P2pNode[] = [];
  let dir: ReturnType<typeof tempDir>;

  beforeEach(() => {
    dir = tempDir("p2p-nodes");
  });

  afterEach(async () => {
    for (const n of nodes.splice(0)) await n.stop();
    dir.remove();
  });

  async function start(name: string, rollup: Rollup, deps: Partial<P2pDeps> = {}, over: Partial<P2pConfig> = {}) {
    const n = await P2pNode.start(p2pConfig(dir.path, name, over), {
      cfg: rollup.cfg,
      log: quiet,
      unsafeSigner: () => SIGNER,
      onUnsafePayload: () => undefined,
      payloadByNumber: async () => null,
      ...deps,
    });
    nodes.push(n);
    return n;
  }

  /** A sequencer host (signing, serving req-resp) and a verifier host dialling it, over one rollup. */
  async function sequencerAndVerifier() {
    const rollup = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 10 });
    const verifier = rollup.verifier();
    await verifier.sync();
    const seq = await start("seq", rollup, {
      blockSigner: new LocalBlockSigner(SIGNER_KEY),
      payloadByNumber: (n) => rollup.sequencer.engine.payloadByNumber(n),
    });
    const ver = await start(
      "ver",
      rollup,
      { onUnsafePayload: (env) => verifier.driver.addUnsafePayload(env) },
      { "p2p.static": [seq.listenAddrs()[0]!] },
    );
    return { rollup, verifier, seq, ver };
  }

  it("a block signed by the sequencer reaches the verifier and becomes its unsafe head", async () => {
    const { rollup, verifier, seq, ver } = await sequencerAndVerifier();
    const ref = await rollup.sequencer.buildBlock();
    const env = rollup.sequencer.envelopes.at(-1)!;
    await meshed(seq, ver, blocksTopic(rollup.cfg.l2ChainId, blockVersionAt(rollup.cfg, env.timestamp)));
    await seq.publishBlock(env);
    await waitFor(() => ver.counters.accepted === 1, 10_000, "the block to arrive");
    const step = await verifier.driver.step();
    assert.equal(step.kind, "unsafe");
    assert.equal(bytesToHex(verifier.heads.unsafe.hash), bytesToHex(ref.hash));
    assert.equal(seq.counters.published, 1);
  });

  it("[scenario] invalid and old blocks are rejected, lower the sender's score and get it banned; the ban survives a restart and ends", async () => {
    const rollup = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 10 });
    await rollup.sequencer.buildBlock();
    await rollup.sequencer.buildBlock();
    const good = rollup.sequencer.envelopes[0]!;
    const seen = recordingMetrics();
    const ver = await start("ver", rollup, { metrics: seen.sink }, { "p2p.ban.duration": 4000 });
    const topic = blocksTopic(rollup.cfg.l2ChainId, blockVersionAt(rollup.cfg, good.timestamp));
    const oldPayload = { ...good.executionPayload, timestamp: `0x${(good.timestamp - 3600).toString(16)}` };
    const otherVersion = blocksTopic(rollup.cfg.l2ChainId, blockVersionAt(rollup.cfg, good.timestamp) === 3 ? 2 : 3);
    const cases: { name: string; topic: string; data: () => Promise<Uint8Array>; reason: RegExp }[] = [
      { name: "wrong signer", topic, data: () => gossipMessage(rollup, good, OTHER_KEY), reason: /signature/ },
      {
        name: "bad hash",
        topic,
        data: () =>
          gossipMessage(
            rollup,
            { ...good, executionPayload: { ...good.executionPayload, gasUsed: "0x1234" } },
            SIGNER_KEY,
          ),
        reason: /hash/,
      },
      {
        name: "old timestamp",
        topic,
        data: () => gossipMessage(rollup, { ...good, executionPayload: oldPayload }, SIGNER_KEY),
        reason: /timestamp/,
      },
      { name: "bad snappy", topic, data: async () => new Uint8Array([0x64, 0x05, 0x00, 0x01, 0x02]), reason: /snappy/ },
      {
        name: "wrong-version topic",
        topic: otherVersion,
        data: () => gossipMessage(rollup, good, SIGNER_KEY),
        reason: /version|withdrawals|blob|beacon|ssz/,
      },
    ];
    const reasons: string[] = [];
    ver.onGossipVerdict = (v) => {
      if (v.result === "reject") reasons.push(v.reason);
    };
    for (const c of cases) {
      const bad = await start(`bad-${reasons.length}`, rollup, {}, { "p2p.static": [ver.listenAddrs()[0]!] });
      await meshed(ver, bad, c.topic);
      const before = reasons.length;
      await bad.libp2p.services.pubsub.publish(c.topic, await c.data());
      await waitFor(() => reasons.length > before, 10_000, `rejection of ${c.name}`);
      assert.match(reasons.at(-1)!, c.reason, c.name);
      await waitFor(() => ver.scoreOf(bad.peerIdString) < 0, 5000, `${c.name}: score drop`);
      await waitFor(() => !ver.connectedPeerIds().includes(bad.peerIdString), 5000, `${c.name}: ban`);
      assert.ok(ver.book.peerBanExpiry(bad.peerIdString) !== null, `${c.name}: banned`);
    }
    assert.equal(ver.counters.bans, cases.length);
    // The metrics saw each rejection with its reason, each ban, and the peers' scores.
    assert.deepEqual(
      seen.calls.filter((c) => c.startsWith("validation:reject:")),
      reasons.map((r) => `validation:reject:${r}`),
    );
    assert.equal(seen.calls.filter((c) => c === "ban").length, cases.length);
    assert.ok(seen.calls.filter((c) => c === "event:REJECT_MESSAGE").length >= cases.length);
    assert.ok(
      seen.calls.some((c) => c.startsWith("scores:") && c !== "scores:"),
      "peer scores reported",
    );
    // After a restart (same peer store) the last offender still cannot connect...
    const offender = nodes.at(-1)!;
    const verAddr = ver.listenAddrs()[0]!;
    const port = Number(/\/tcp\/(\d+)/.exec(verAddr)![1]);
    await ver.stop();
    nodes.splice(nodes.indexOf(ver), 1);
    const ver2 = await start("ver", rollup, {}, { "p2p.ban.duration": 4000, "p2p.listen.tcp": port });
    assert.equal(ver2.peerIdString, ver.peerIdString);
    // (The dialler may see the handshake finish before the listener's gater closes the connection.)
    await offender.connectPeer(ver2.listenAddrs()[0]!).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1000));
    assert.ok(!ver2.connectedPeerIds().includes(offender.peerIdString), "banned peer refused after restart");
    assert.ok(!offender.connectedPeerIds().includes(ver2.peerIdString));
    // ...until the ban ends.
    await waitFor(() => ver2.book.peerBanExpiry(offender.peerIdString) === null, 10_000, "ban expiry");
    await offender.connectPeer(ver2.listenAddrs()[0]!);
    await waitFor(() => ver2.connectedPeerIds().includes(offender.peerIdString), 5000, "reconnect after the ban");
  });

  it("[scenario] duplicate blocks: a re-sent block is delivered once and costs nothing; a sixth distinct block at one height is rejected, scores the sender down and gets it banned", async () => {
    const rollup = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 10 });
    await rollup.sequencer.buildBlock();
    // Seven distinct blocks at height 1 (each with another transfer), all signed by the sequencer.
    const seqActor = rollup.sequencer;
    const genesis = await seqActor.engine.l2BlockRefByNumber(0);
    const attrs = await preparePayloadAttributes(
      rollup.cfg,
      { l1: seqActor.l1, l2: seqActor.engine, l1Chain: null },
      genesis,
      genesis.l1origin,
    );
    const variants: PayloadEnvelope[] = [seqActor.envelopes[0]!];
    for (let i = 1; i < 7; i++) {
      const built = await seqActor.controller.build(genesis, {
        ...attrs,
        transactions: [...attrs.transactions, l2Transfer(0n, { value: BigInt(i) })],
        noTxPool: true,
      });
      assert.ok(built.ok);
      variants.push(built.envelope);
    }
    assert.equal(new Set(variants.map((e) => bytesToHex(e.blockHash))).size, 7);
    const delivered: string[] = [];
    const ver = await start("ver", rollup, { onUnsafePayload: (env) => delivered.push(bytesToHex(env.blockHash)) });
    const verdicts: string[] = [];
    ver.onGossipVerdict = (v) => verdicts.push(`${v.result}:${v.reason}`);
    const topic = blocksTopic(rollup.cfg.l2ChainId, blockVersionAt(rollup.cfg, variants[0]!.timestamp));

    // A block, then the same block again from two peers: the same message once more, and the same
    // block under another valid signature of the sequencer (ECDSA with fresh nonce randomness).
    const first = await gossipMessage(rollup, variants[0]!, SIGNER_KEY);
    const dup = await start("dup", rollup, {}, { "p2p.static": [ver.listenAddrs()[0]!] });
    const dup2 = await start("dup2", rollup, {}, { "p2p.static": [ver.listenAddrs()[0]!] });
    await meshed(ver, dup, topic);
    await meshed(ver, dup2, topic);
    await dup.libp2p.services.pubsub.publish(topic, first);
    await waitFor(() => delivered.length === 1, 10_000, "the first copy");
    await dup2.libp2p.services.pubsub.publish(topic, first);
    const version = blockVersionAt(rollup.cfg, variants[0]!.timestamp);
    const ssz = encodeEnvelope(version, {
      executionPayload: variants[0]!.executionPayload,
      parentBeaconBlockRoot: variants[0]!.parentBeaconBlockRoot,
    });
    const hash = blockSigningHash(rollup.cfg.l2ChainId, payloadHashOf(ssz));
    const rec = secp256k1.sign(hash, SIGNER_KEY, { prehash: false, format: "recovered", extraEntropy: true });
    const otherSig = new Uint8Array(65);
    otherSig.set(rec.subarray(1, 65), 0);
    otherSig[64] = rec[0]!;
    const resigned = messageOf(ssz, otherSig);
    assert.notEqual(bytesToHex(resigned), bytesToHex(first), "another message for the same block");
    await dup2.libp2p.services.pubsub.publish(topic, resigned);
    await waitFor(() => verdicts.includes("ignore:duplicate"), 10_000, "the re-signed copy to be judged");
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(delivered, [bytesToHex(variants[0]!.blockHash)], "delivered once");
    assert.ok(!verdicts.some((v) => v.startsWith("reject")), verdicts.join(","));
    assert.ok(ver.scoreOf(dup.peerIdString) >= 0 && ver.scoreOf(dup2.peerIdString) >= 0, "duplicates cost no score");
    assert.ok(ver.connectedPeerIds().includes(dup2.peerIdString), "and no ban");

    // An equivocating peer: more distinct blocks at height 1; the sixth distinct one is rejected.
    const eq = await start("equivocator", rollup, {}, { "p2p.static": [ver.listenAddrs()[0]!] });
    await meshed(ver, eq, topic);
    for (const env of variants.slice(1, 6))
      await eq.libp2p.services.pubsub.publish(topic, await gossipMessage(rollup, env, SIGNER_KEY));
    await waitFor(() => verdicts.includes("reject:too_many_at_height"), 10_000, "the sixth block at height 1");
    assert.equal(delivered.length, 5, "five distinct blocks at one height pass, the sixth does not");
    await waitFor(() => ver.scoreOf(eq.peerIdString) < 0, 5000, "the equivocator's score drop");
    await waitFor(() => !ver.connectedPeerIds().includes(eq.peerIdString), 5000, "the equivocator's ban");
    assert.ok(ver.book.peerBanExpiry(eq.peerIdString) !== null);
    assert.ok(ver.connectedPeerIds().includes(dup.peerIdString), "the duplicate senders stay");
  });

  it("a verifier that missed blocks fills the gap over req-resp", async () => {
    const { rollup, verifier, seq, ver } = await sequencerAndVerifier();
    verifier.driver.onUnsafeGap = (from, to) => ver.requestRange(from, to, verifier.heads.unsafe.hash);
    for (let i = 0; i < 4; i++) await rollup.sequencer.buildBlock();
    const last = rollup.sequencer.envelopes.at(-1)!;
    await meshed(seq, ver, blocksTopic(rollup.cfg.l2ChainId, blockVersionAt(rollup.cfg, last.timestamp)));
    await seq.publishBlock(last);
    await waitFor(
      async () => {
        await verifier.driver.step();
        return verifier.heads.unsafe.number === 4;
      },
      15_000,
      "the gap to be filled",
    );
    assert.equal(bytesToHex(verifier.heads.unsafe.hash), bytesToHex(last.blockHash));
    assert.equal(ver.counters.synced, 3);
  });

  it("bad req-resp answers lower the server's application score; a good server then fills the gap", async () => {
    const rollup = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 10 });
    const verifier = rollup.verifier();
    await verifier.sync();
    for (let i = 0; i < 3; i++) await rollup.sequencer.buildBlock();
    // The liar answers every number with block 3.
    const liar = await start("liar", rollup, { payloadByNumber: () => rollup.sequencer.engine.payloadByNumber(3) });
    const ver = await start(
      "ver",
      rollup,
      { onUnsafePayload: (env) => verifier.driver.addUnsafePayload(env) },
      { "p2p.static": [liar.listenAddrs()[0]!] },
    );
    await waitFor(() => ver.connectedPeerIds().includes(liar.peerIdString), 10_000, "connection to the liar");
    ver.requestRange(1, 2, verifier.heads.unsafe.hash);
    await waitFor(() => ver.peerReqRespScores(liar.peerIdString).rejectedPayloads >= 1, 10_000, "a rejected payload");
    await waitFor(() => ver.scoreOf(liar.peerIdString) < 0, 5000, "the liar's score to drop");
    assert.equal(verifier.heads.unsafe.number, 0);
    const honest = await start("honest", rollup, {
      payloadByNumber: (n) => rollup.sequencer.engine.payloadByNumber(n),
    });
    await ver.connectPeer(honest.listenAddrs()[0]!);
    verifier.driver.onUnsafeGap = (from, to) => ver.requestRange(from, to, verifier.heads.unsafe.hash);
    verifier.driver.addUnsafePayload(rollup.sequencer.envelopes[2]!);
    await waitFor(
      async () => {
        await verifier.driver.step();
        return verifier.heads.unsafe.number === 3;
      },
      15_000,
      "the gap filled from the honest peer",
    );
    assert.ok(ver.peerReqRespScores(honest.peerIdString).validResponses >= 2);
  });

  it("--p2p.netrestrict: connections from outside the subnets are refused and never dialled", async () => {
    const rollup = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 10 });
    const fenced = await start("fenced", rollup, {}, { "p2p.netrestrict": ["10.0.0.0/8"] });
    const outside = await start("outside", rollup);
    await outside.connectPeer(fenced.listenAddrs()[0]!).catch(() => undefined);
    await assert.rejects(fenced.connectPeer(outside.listenAddrs()[0]!));
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(fenced.connectedPeerIds(), []);
    const inside = await start("inside", rollup, {}, { "p2p.netrestrict": ["127.0.0.0/8"] });
    await inside.connectPeer(outside.listenAddrs()[0]!);
    await waitFor(() => inside.connectedPeerIds().includes(outside.peerIdString), 5000, "a dial inside the subnet");
  });

  it("peer counts: above hi the node prunes down to lo (sparing protected peers); below lo it dials known peers", async () => {
    const rollup = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 10 });
    const hub = await start("hub", rollup, {}, { "p2p.peers.lo": 2, "p2p.peers.hi": 3, "p2p.peers.grace": 300 });
    const leaves: P2pNode[] = [];
    for (let i = 0; i < 5; i++) leaves.push(await start(`leaf-${i}`, rollup));
    hub.protect(leaves[0]!.peerIdString);
    for (const l of leaves) await l.connectPeer(hub.listenAddrs()[0]!);
    // A tick may prune to lo while the leaves still connect (a slow machine), and the last ones then
    // leave the hub at hi, where nothing is pruned: another leaf takes it above hi again.
    for (let extra = 0; ; extra++) {
      const pruned = await waitFor(() => hub.connectedPeerIds().length === 2, 5_000, "pruning to lo").then(
        () => true as const,
        (e: Error) => e,
      );
      if (pruned === true) break;
      const n = hub.connectedPeerIds().length;
      if (n !== 3 || extra === 3) throw new Error(`${pruned.message}: ${n} peers after ${extra} extra leaves`);
      const more = await start(`leaf-extra-${extra}`, rollup);
      await more.connectPeer(hub.listenAddrs()[0]!);
    }
    assert.ok(hub.connectedPeerIds().includes(leaves[0]!.peerIdString), "the protected peer stays");
    assert.ok(hub.counters.pruned >= 3);
    // Below lo: a node that knows peers (as discovery would report them) dials until it has lo.
    const seeker = await start("seeker", rollup, {}, { "p2p.peers.lo": 2, "p2p.peers.hi": 4 });
    seeker.addKnownPeer(leaves[3]!.peerIdString, leaves[3]!.listenAddrs()[0]!);
    seeker.addKnownPeer(leaves[4]!.peerIdString, leaves[4]!.listenAddrs()[0]!);
    await waitFor(() => seeker.connectedPeerIds().length >= 2, 10_000, "dialling known peers below lo");
  });
});
