/**
 * Block gossip over gossipsub (op-node p2p/gossip.go): the four block topics, gossipsub's settings
 * as op-node chooses them, the peer score of `scoring.ts`, the message-id function of
 * `gossipBlock.ts`, and each topic's validator. The host hands gossipsub's factory in, because it
 * loads libp2p lazily (after `polyfill.ts`); this file only imports its types.
 */
import type {
  gossipsub as createGossipsub,
  GossipSub as GossipSubApi,
  GossipsubOpts,
  TopicValidatorResult,
} from "@libp2p/gossipsub";
import { type BlockVersion, blocksTopic, gossipMessageId, MAX_GOSSIP_SIZE } from "./gossipBlock.js";
import { P2pError } from "./p2pError.js";
import { PEER_SCORE_THRESHOLDS, peerScoreParams, type ScoringMode } from "./scoring.js";

/** The gossipsub service with the scoring and mesh views its class has beyond the interface. */
export type GossipSub = GossipSubApi & {
  getScore(peerId: string): number;
  getMeshPeers(topic: string): string[];
  dumpPeerScoreStats(): Record<string, GossipPeerStats>;
};

/** What gossipsub keeps per peer for scoring (its `PeerStats`, as far as opp2p_peers reads it). */
export interface GossipPeerStats {
  readonly knownIPs: ReadonlySet<string>;
  readonly behaviourPenalty: number;
  readonly topics: Readonly<
    Record<
      string,
      {
        readonly meshTime: number;
        readonly firstMessageDeliveries: number;
        readonly meshMessageDeliveries: number;
        readonly invalidMessageDeliveries: number;
      }
    >
  >;
}

/** A gossip verdict, as gossipsub's `TopicValidatorResult` spells it. */
export type GossipValidation = "accept" | "reject" | "ignore";

/** The block topics of a chain, indexed by block version (v0..v3). */
export function blockTopics(chainId: bigint): string[] {
  return ([0, 1, 2, 3] as const).map((v) => blocksTopic(chainId, v));
}

export interface BlockGossipOptions {
  /** The block topics (`blockTopics`): the only topics allowed, each scored alike. */
  readonly topics: string[];
  readonly scoring: ScoringMode;
  /** The L2 block time in seconds (the scoring slot). */
  readonly blockTime: number;
  /** The application score of a peer (req-resp outcomes, `ApplicationScorer`). */
  readonly appScore: (peerId: string) => number;
}

/**
 * gossipsub's options. The mesh degrees (D 8, Dlo 6, Dhi 12, Dlazy 6), the 500 ms heartbeat, the
 * 24 s fanout TTL, the message cache (12 windows kept, 3 gossiped) and the seen-message TTL of
 * 130 heartbeats are op-node's (gossip.go `BuildGlobalGossipParams`, `seenMessagesTTL`); so are
 * `StrictNoSign`, the message-id function, the topic allow-list and peer exchange off. Inbound RPCs
 * may carry the largest block message plus 1 KiB of framing.
 */
export function gossipsubOptions(o: BlockGossipOptions): Partial<GossipsubOpts> {
  return {
    globalSignaturePolicy: "StrictNoSign",
    emitSelf: false,
    allowPublishToZeroTopicPeers: true,
    ignoreDuplicatePublishError: true,
    D: 8,
    Dlo: 6,
    Dhi: 12,
    Dlazy: 6,
    heartbeatInterval: 500,
    fanoutTTL: 24_000,
    mcacheLength: 12,
    mcacheGossip: 3,
    seenTTL: 130 * 500,
    maxInboundDataLength: MAX_GOSSIP_SIZE + 1024,
    allowedTopics: o.topics,
    msgIdFn: (msg) => gossipMessageId(msg.topic, msg.data),
    scoreParams: peerScoreParams(o.scoring, o.blockTime, o.topics, o.appScore),
    scoreThresholds: PEER_SCORE_THRESHOLDS,
    floodPublish: false,
    doPX: false,
  };
}

/** The `pubsub` service for libp2p: gossipsub with `gossipsubOptions`, checked for its scoring views. */
export function blockGossipService(gossipsub: typeof createGossipsub, o: BlockGossipOptions) {
  return withScoringViews(gossipsub(gossipsubOptions(o)));
}

/**
 * Subscribes to the block topics, each validated by `validate` (the block rules): a rejected
 * message counts as an invalid delivery in the sender's gossipsub score.
 */
export function subscribeBlockTopics(
  pubsub: GossipSub,
  topics: readonly string[],
  validate: (version: BlockVersion, from: string, data: Uint8Array) => GossipValidation,
): void {
  for (const [i, topic] of topics.entries()) {
    pubsub.topicValidators.set(
      topic,
      (peer, msg) => validate(i as BlockVersion, peer.toString(), msg.data) as TopicValidatorResult,
    );
    pubsub.subscribe(topic);
  }
}

/**
 * The gossipsub service factory giving the instance as its class is: the package exports only the
 * `GossipSub` interface, so the scoring and mesh views the node reads (opp2p_peers, the peer
 * manager) are checked on the instance once, when libp2p creates it.
 */
function withScoringViews<C>(factory: (components: C) => GossipSubApi): (components: C) => GossipSub {
  return (components) => {
    const g = factory(components);
    if (!hasScoringViews(g)) {
      throw new P2pError("@libp2p/gossipsub: the instance lacks getScore, getMeshPeers or dumpPeerScoreStats");
    }
    return g;
  };
}

function hasScoringViews(g: GossipSubApi): g is GossipSub {
  return (
    "getScore" in g &&
    typeof g.getScore === "function" &&
    "getMeshPeers" in g &&
    typeof g.getMeshPeers === "function" &&
    "dumpPeerScoreStats" in g &&
    typeof g.dumpPeerScoreStats === "function"
  );
}
