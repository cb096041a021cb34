/**
 * Peer scoring (`--p2p.scoring=light|none`), with op-node's numbers (p2p/peer_params.go,
 * topic_params.go, app_params.go): the gossipsub score parameters and thresholds, the block-topic
 * parameters, and the application score that req-resp sync feeds (valid responses raise it, errors
 * and rejected payloads lower it; each counter capped and decayed every slot).
 *
 * Slot = the L2 block time (2 s when 0); epoch = 6 slots. `decay(d)` is the per-slot factor that
 * takes a counter to 1% (DecayToZero) after duration `d`. Times are in milliseconds (gossipsub-js
 * units). One deviation from the op-node snapshot: it registers the block-topic parameters only for
 * the v1 topic, which looks like an oversight; here every block topic is scored alike.
 */
import type { PeerScoreParams, PeerScoreThresholds, TopicScoreParams } from "@libp2p/gossipsub/score";

export const DECAY_TO_ZERO = 0.01;

export type ScoringMode = "light" | "none";

export interface SlotTimes {
  readonly slotMs: number;
  readonly epochMs: number;
}

export function slotTimes(blockTime: number): SlotTimes {
  const slotMs = (blockTime === 0 ? 2 : blockTime) * 1000;
  return { slotMs, epochMs: 6 * slotMs };
}

/** The per-slot decay factor that reaches DECAY_TO_ZERO after `durationMs`. */
export function scoreDecay(durationMs: number, slotMs: number): number {
  const times = Math.floor(durationMs / slotMs);
  return DECAY_TO_ZERO ** (1 / times);
}

export const PEER_SCORE_THRESHOLDS: PeerScoreThresholds = {
  gossipThreshold: -10,
  publishThreshold: -40,
  graylistThreshold: -40,
  acceptPXThreshold: 20,
  opportunisticGraftThreshold: 0.05,
};

/** The block topics' parameters (LightTopicScoreParams / DisabledTopicScoreParams). */
export function blockTopicScoreParams(mode: ScoringMode, blockTime: number): TopicScoreParams {
  const { slotMs, epochMs } = slotTimes(blockTime);
  const inMeshCap = (3600 * 1000) / slotMs;
  const decayEpochs = 5;
  const meshCap = (epochMs / slotMs) * decayEpochs;
  const light = mode === "light";
  return {
    topicWeight: light ? 0.8 : 0,
    timeInMeshWeight: light ? 10 / inMeshCap : 0,
    timeInMeshQuantum: slotMs,
    timeInMeshCap: inMeshCap,
    firstMessageDeliveriesWeight: light ? 1 : 0,
    firstMessageDeliveriesDecay: scoreDecay(20 * epochMs, slotMs),
    firstMessageDeliveriesCap: 23,
    meshMessageDeliveriesWeight: light ? -0.7 : 0,
    meshMessageDeliveriesDecay: scoreDecay(decayEpochs * epochMs, slotMs),
    meshMessageDeliveriesCap: meshCap,
    meshMessageDeliveriesThreshold: Math.floor(meshCap / 10),
    meshMessageDeliveriesWindow: 2000,
    meshMessageDeliveriesActivation: 4 * epochMs,
    meshFailurePenaltyWeight: light ? -0.7 : 0,
    meshFailurePenaltyDecay: scoreDecay(decayEpochs * epochMs, slotMs),
    invalidMessageDeliveriesWeight: light ? -140.4475 : 0,
    invalidMessageDeliveriesDecay: scoreDecay(50 * epochMs, slotMs),
  };
}

/** Peers sharing one IP before gossipsub's colocation penalty applies (op-node: 10). */
export const IP_COLOCATION_THRESHOLD = 10;

/** The global parameters (DefaultPeerScoreParams / DisabledPeerScoreParams) for the given topics. */
export function peerScoreParams(
  mode: ScoringMode,
  blockTime: number,
  topics: readonly string[],
  appSpecificScore: (peerId: string) => number,
): PeerScoreParams {
  const { slotMs, epochMs } = slotTimes(blockTime);
  const light = mode === "light";
  const topicParams = blockTopicScoreParams(mode, blockTime);
  return {
    topics: Object.fromEntries(topics.map((t) => [t, topicParams])),
    topicScoreCap: light ? 34 : 0,
    appSpecificScore,
    appSpecificWeight: 1,
    IPColocationFactorWeight: light ? -35 : 0,
    IPColocationFactorThreshold: IP_COLOCATION_THRESHOLD,
    IPColocationFactorWhitelist: new Set(),
    behaviourPenaltyWeight: light ? -16 : 0,
    behaviourPenaltyThreshold: 6,
    behaviourPenaltyDecay: scoreDecay(10 * epochMs, slotMs),
    decayInterval: slotMs,
    decayToZero: DECAY_TO_ZERO,
    retainScore: 100 * epochMs,
  };
}

/** op-node's application score parameters (app_params.go). */
export const APP_SCORE = {
  validResponseWeight: 0.5,
  validResponseCap: 10,
  errorResponseWeight: -1,
  errorResponseCap: 9,
  rejectedPayloadWeight: -20,
  rejectedPayloadCap: 20,
} as const;

export interface ReqRespScores {
  validResponses: number;
  errorResponses: number;
  rejectedPayloads: number;
}

/**
 * The application side of a peer's score: req-resp outcomes, capped, decaying every slot over 10
 * epochs. Kept for every peer seen (the gossipsub score of a peer includes it through
 * `appSpecificScore`).
 */
export class ApplicationScorer {
  private readonly scores = new Map<string, ReqRespScores>();
  private readonly decay: number;

  constructor(blockTime: number) {
    const { slotMs, epochMs } = slotTimes(blockTime);
    this.decay = scoreDecay(10 * epochMs, slotMs);
  }

  private get(id: string): ReqRespScores {
    let s = this.scores.get(id);
    if (s === undefined) {
      s = { validResponses: 0, errorResponses: 0, rejectedPayloads: 0 };
      this.scores.set(id, s);
    }
    return s;
  }

  record(id: string, outcome: "valid" | "error" | "rejected"): void {
    const s = this.get(id);
    if (outcome === "valid") s.validResponses = Math.min(APP_SCORE.validResponseCap, s.validResponses + 1);
    else if (outcome === "error") s.errorResponses = Math.min(APP_SCORE.errorResponseCap, s.errorResponses + 1);
    else s.rejectedPayloads = Math.min(APP_SCORE.rejectedPayloadCap, s.rejectedPayloads + 1);
  }

  score(id: string): number {
    const s = this.scores.get(id);
    if (s === undefined) return 0;
    return (
      s.validResponses * APP_SCORE.validResponseWeight +
      s.errorResponses * APP_SCORE.errorResponseWeight +
      s.rejectedPayloads * APP_SCORE.rejectedPayloadWeight
    );
  }

  snapshot(id: string): ReqRespScores {
    return { ...(this.scores.get(id) ?? { validResponses: 0, errorResponses: 0, rejectedPayloads: 0 }) };
  }

  /** One slot of decay for every peer; counters under DECAY_TO_ZERO become 0. */
  decayAll(): void {
    const d = this.decay;
    for (const [id, s] of this.scores) {
      s.validResponses = zeroed(s.validResponses * d);
      s.errorResponses = zeroed(s.errorResponses * d);
      s.rejectedPayloads = zeroed(s.rejectedPayloads * d);
      if (s.validResponses === 0 && s.errorResponses === 0 && s.rejectedPayloads === 0) this.scores.delete(id);
    }
  }
}

function zeroed(v: number): number {
  return v < DECAY_TO_ZERO ? 0 : v;
}
