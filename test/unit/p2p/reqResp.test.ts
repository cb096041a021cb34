/**
 * payload_by_number's rate limit without a host: the token bucket on a fake clock. The protocol
 * between two hosts on 127.0.0.1: test/integration/p2p/reqResp.test.ts.
 */
import "../../../src/p2p/polyfill.js";
import assert from "node:assert/strict";
import { TokenBucket } from "../../../src/p2p/reqResp.js";

describe("p2p/reqResp: TokenBucket", () => {
  it("gives the burst at once, then one token per 1/rate seconds", () => {
    let t = 1_000_000;
    const b = new TokenBucket(4, 15, () => t);
    for (let i = 0; i < 15; i++) assert.equal(b.tryTake(), 0, `burst token ${i}`);
    assert.equal(b.tryTake(), 250, "the 16th waits a quarter second");
    t += 100;
    assert.equal(b.tryTake(), 150);
    t += 150;
    assert.equal(b.tryTake(), 0);
    assert.equal(b.tryTake(), 250);
    // Idle time refills up to the burst, never beyond.
    t += 60_000;
    for (let i = 0; i < 15; i++) assert.equal(b.tryTake(), 0);
    assert.ok(b.tryTake() > 0);
  });
});
