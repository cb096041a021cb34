/**
 * Block gossip's gossipsub settings against op-node's gossip.go (D 8, Dlo 6, Dhi 12, Dlazy 6,
 * heartbeat 500 ms, fanout TTL 24 s, history 12 / gossip 3, seen TTL 130 heartbeats, StrictNoSign,
 * no peer exchange), written out here rather than read back from the code, and the topic hookup:
 * each block topic validated as its own version, then subscribed. Over real hosts:
 * test/integration/p2p/p2pNodes.test.ts.
 */
import assert from "node:assert/strict";
import type { PeerId } from "@libp2p/interface";
import { blockTopics, type GossipSub, gossipsubOptions, subscribeBlockTopics } from "../../../src/p2p/gossip.js";
import { gossipMessageId } from "../../../src/p2p/gossipBlock.js";

describe("p2p/gossip", () => {
  it("gossipsub options are op-node's", () => {
    const topics = blockTopics(10n);
    assert.deepEqual(topics, [
      "/optimism/10/0/blocks",
      "/optimism/10/1/blocks",
      "/optimism/10/2/blocks",
      "/optimism/10/3/blocks",
    ]);
    const o = gossipsubOptions({ topics, scoring: "light", blockTime: 2, appScore: () => 0 });
    assert.deepEqual(
      {
        D: o.D,
        Dlo: o.Dlo,
        Dhi: o.Dhi,
        Dlazy: o.Dlazy,
        heartbeatInterval: o.heartbeatInterval,
        fanoutTTL: o.fanoutTTL,
        mcacheLength: o.mcacheLength,
        mcacheGossip: o.mcacheGossip,
        seenTTL: o.seenTTL,
        globalSignaturePolicy: o.globalSignaturePolicy,
        doPX: o.doPX,
        maxInboundDataLength: o.maxInboundDataLength,
      },
      {
        D: 8,
        Dlo: 6,
        Dhi: 12,
        Dlazy: 6,
        heartbeatInterval: 500,
        fanoutTTL: 24_000,
        mcacheLength: 12,
        mcacheGossip: 3,
        seenTTL: 65_000,
        globalSignaturePolicy: "StrictNoSign",
        doPX: false,
        maxInboundDataLength: 10 * 1024 * 1024 + 1024,
      },
    );
    assert.deepEqual(o.allowedTopics, topics);
    assert.deepEqual(Object.keys(o.scoreParams?.topics ?? {}), topics);
    const data = new Uint8Array([1, 2, 3]);
    const msg = { type: "unsigned" as const, topic: topics[2]!, data };
    assert.deepEqual(o.msgIdFn?.(msg), gossipMessageId(topics[2]!, data));
  });

  it("each block topic is validated as its version, then subscribed", () => {
    const validators = new Map<string, (peer: PeerId, msg: { data: Uint8Array }) => unknown>();
    const subscribed: string[] = [];
    const pubsub = { topicValidators: validators, subscribe: (t: string) => subscribed.push(t) };
    const topics = blockTopics(901n);
    const seen: string[] = [];
    subscribeBlockTopics(pubsub as unknown as GossipSub, topics, (version, from, data) => {
      seen.push(`${version}:${from}:${data.length}`);
      return version === 3 ? "reject" : "accept";
    });
    assert.deepEqual(subscribed, topics);
    const peer = { toString: () => "peerA" } as PeerId;
    assert.equal(validators.get(topics[1]!)!(peer, { data: new Uint8Array(7) }), "accept");
    assert.equal(validators.get(topics[3]!)!(peer, { data: new Uint8Array(2) }), "reject");
    assert.deepEqual(seen, ["1:peerA:7", "3:peerA:2"]);
  });
});
