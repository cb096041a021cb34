/**
 * Scoring parameters against op-node's definitions (peer_params.go, topic_params.go): the numbers
 * here are worked out by hand from those formulas for a 2 s block time (slot 2 s, epoch 12 s), not
 * read back from the code under test.
 */
import assert from "node:assert/strict";
import {
  APP_SCORE,
  ApplicationScorer,
  blockTopicScoreParams,
  PEER_SCORE_THRESHOLDS,
  peerScoreParams,
  scoreDecay,
} from "../../../src/p2p/scoring.js";

const close = (a: number, b: number, eps = 1e-12) => assert.ok(Math.abs(a - b) < eps, `${a} ≠ ${b}`);

describe("p2p/scoring", () => {
  it("light block-topic parameters for a 2 s block time", () => {
    const t = blockTopicScoreParams("light", 2);
    close(t.topicWeight, 0.8);
    close(t.timeInMeshWeight, 10 / 1800); // cap = 3600 s / 2 s
    assert.equal(t.timeInMeshQuantum, 2000);
    assert.equal(t.timeInMeshCap, 1800);
    close(t.firstMessageDeliveriesDecay, 0.01 ** (1 / 120)); // 20 epochs = 240 s = 120 slots
    assert.equal(t.firstMessageDeliveriesCap, 23);
    close(t.meshMessageDeliveriesDecay, 0.01 ** (1 / 30)); // 5 epochs = 60 s = 30 slots
    assert.equal(t.meshMessageDeliveriesCap, 30);
    assert.equal(t.meshMessageDeliveriesThreshold, 3);
    assert.equal(t.meshMessageDeliveriesWindow, 2000);
    assert.equal(t.meshMessageDeliveriesActivation, 48_000);
    close(t.invalidMessageDeliveriesWeight, -140.4475);
    close(t.invalidMessageDeliveriesDecay, 0.01 ** (1 / 300)); // 50 epochs = 600 s
    const none = blockTopicScoreParams("none", 2);
    assert.equal(none.topicWeight, 0);
    assert.equal(none.invalidMessageDeliveriesWeight, 0);
  });

  it("global parameters and thresholds; block time 0 counts as 2 s", () => {
    const p = peerScoreParams("light", 0, ["/optimism/10/0/blocks"], () => 0);
    assert.equal(p.topicScoreCap, 34);
    assert.equal(p.IPColocationFactorWeight, -35);
    assert.equal(p.IPColocationFactorThreshold, 10);
    assert.equal(p.behaviourPenaltyWeight, -16);
    assert.equal(p.behaviourPenaltyThreshold, 6);
    close(p.behaviourPenaltyDecay, 0.01 ** (1 / 60)); // 10 epochs = 120 s
    assert.equal(p.decayInterval, 2000);
    assert.equal(p.retainScore, 1_200_000);
    assert.deepEqual(Object.keys(p.topics), ["/optimism/10/0/blocks"]);
    assert.deepEqual(PEER_SCORE_THRESHOLDS, {
      gossipThreshold: -10,
      publishThreshold: -40,
      graylistThreshold: -40,
      acceptPXThreshold: 20,
      opportunisticGraftThreshold: 0.05,
    });
    // One invalid delivery: 1² × −140.4475 × 0.8 = −112.358, below the default ban threshold −100.
    assert.ok(1 * -140.4475 * 0.8 < -100);
    close(scoreDecay(120_000, 2000), 0.01 ** (1 / 60));
  });

  it("application score: weights, caps and per-slot decay to zero", () => {
    const s = new ApplicationScorer(2);
    for (let i = 0; i < 30; i++) s.record("a", "valid");
    assert.equal(s.snapshot("a").validResponses, APP_SCORE.validResponseCap);
    close(s.score("a"), 10 * 0.5);
    s.record("b", "error");
    s.record("b", "rejected");
    close(s.score("b"), -1 - 20);
    s.decayAll();
    const d = 0.01 ** (1 / 60);
    close(s.snapshot("a").validResponses, 10 * d);
    for (let i = 0; i < 200; i++) s.decayAll();
    assert.equal(s.score("a"), 0);
    assert.equal(s.score("b"), 0);
  });
});
