/**
 * The peer manager's decisions over a fake host and clock, no libp2p: bans below
 * `--p2p.ban.threshold` (protected peers spared), pruning above hi down to lo (lowest score first,
 * sparing protected peers and new well-behaved ones within the grace period), dialling below lo
 * (known peers, discovery at most every 5 s), static peers protected and redialled every 5 s, and
 * discovered peers dialled while below hi. The same decisions over real hosts:
 * test/integration/p2p/p2pNodes.test.ts.
 */
import assert from "node:assert/strict";
import { type PeerHost, PeerManager, type PeerManagerConfig } from "../../../src/p2p/peerManager.js";
import type { LogFields, Logger } from "../../../src/util/log.js";

const SELF = "self";
const GRACE = 30_000;

/** A host whose connections, scores and clock the test sets; it writes down what it was asked. */
class FakeHost implements PeerHost {
  readonly connected = new Set<string>();
  readonly scores = new Map<string, number>();
  readonly dials: string[] = [];
  readonly hangUps: string[] = [];
  readonly bans: [string, number][] = [];
  lookups = 0;
  findPeers: (() => Promise<unknown>) | null = async () => {
    this.lookups++;
  };

  connectedPeerIds(): string[] {
    return [...this.connected];
  }

  scoreOf(id: string): number {
    return this.scores.get(id) ?? 0;
  }

  async dial(id: string, addr: string): Promise<boolean> {
    this.dials.push(`${id}@${addr}`);
    return true;
  }

  async hangUp(id: string): Promise<void> {
    this.hangUps.push(id);
  }

  ban(id: string, durationMs: number): void {
    this.bans.push([id, durationMs]);
  }
}

function setup(over: Partial<PeerManagerConfig> = {}) {
  const host = new FakeHost();
  const clock = { ms: 1_000_000 };
  const counters = { bans: 0, pruned: 0 };
  const reported: string[] = [];
  const logged: string[] = [];
  const record =
    (level: string) =>
    (msg: string, fields?: LogFields): void => {
      logged.push(`${level}:${msg}:${JSON.stringify(fields ?? {})}`);
    };
  const log: Logger = { error: record("error"), warn: record("warn"), info: record("info"), debug: record("debug") };
  const config: PeerManagerConfig = {
    "p2p.scoring": "light",
    "p2p.ban.peers": true,
    "p2p.ban.threshold": -100,
    "p2p.ban.duration": 3_600_000,
    "p2p.peers.lo": 3,
    "p2p.peers.hi": 4,
    "p2p.peers.grace": GRACE,
    ...over,
  };
  const pm = new PeerManager(config, {
    host,
    selfId: SELF,
    log,
    metrics: {
      recordPeerBan: () => reported.push("ban"),
      recordPeerScores: (s) => reported.push(`scores:${s.join(",")}`),
    },
    counters,
    now: () => clock.ms,
  });
  /** Connects peers with their scores, each at the current time. */
  const connect = (peers: Record<string, number>): void => {
    for (const [id, score] of Object.entries(peers)) {
      host.connected.add(id);
      host.scores.set(id, score);
      pm.onConnect(id);
    }
  };
  return { pm, host, clock, counters, reported, logged, connect };
}

describe("p2p/peerManager", () => {
  describe("bans", () => {
    it("bans and hangs up on peers scoring below the threshold, sparing protected ones", () => {
      const { pm, host, counters, reported, logged, connect } = setup();
      connect({ low: -150, atThreshold: -100, guarded: -101, fine: 0 });
      pm.protect("guarded");
      pm.tick();
      assert.deepEqual(host.bans, [["low", 3_600_000]]);
      assert.deepEqual(host.hangUps, ["low"]);
      assert.equal(counters.bans, 1);
      assert.deepEqual(reported, ["ban", "scores:-150,-100,-101,0"]);
      assert.ok(logged.some((l) => l.startsWith("warn:Banning peer with a low score") && l.includes('"peer":"low"')));
      // Protection lifted: banned on the next round.
      pm.unprotect("guarded");
      host.connected.delete("low");
      pm.tick();
      assert.deepEqual(
        host.bans.map(([id]) => id),
        ["low", "guarded"],
      );
      assert.equal(counters.bans, 2);
    });

    it("bans nobody without --p2p.ban.peers or with --p2p.scoring=none, but still reports the scores", () => {
      for (const over of [{ "p2p.ban.peers": false }, { "p2p.scoring": "none" }]) {
        const { pm, host, counters, reported, connect } = setup(over);
        connect({ low: -500, fine: 1, other: 2 });
        pm.tick();
        assert.deepEqual(host.bans, [], JSON.stringify(over));
        assert.deepEqual(host.hangUps, []);
        assert.equal(counters.bans, 0);
        assert.deepEqual(reported, ["scores:-500,1,2"]);
      }
    });
  });

  describe("tides", () => {
    it("above hi it prunes down to lo, lowest score first, sparing protected peers and new well-behaved ones", () => {
      const { pm, host, clock, counters, connect } = setup({ "p2p.peers.lo": 3, "p2p.peers.hi": 4 });
      connect({ a: 5, b: 1, c: 3, guarded: -2 });
      pm.protect("guarded");
      clock.ms += GRACE + 10;
      connect({ newGood: 0, newBad: -1 });
      clock.ms += 1000;
      // Six connected, lo 3: three hang-ups among a, b, c, newBad (newGood is in its grace period).
      pm.tick();
      assert.deepEqual(host.hangUps, ["newBad", "b", "c"]);
      assert.equal(counters.pruned, 3);
      assert.deepEqual(host.bans, []);
      // Once they are gone the count is lo: nothing more to do.
      for (const id of host.hangUps) host.connected.delete(id);
      pm.tick();
      assert.equal(counters.pruned, 3);
    });

    it("a new peer is spared for exactly the grace period", () => {
      const { pm, host, clock, counters, connect } = setup({ "p2p.peers.lo": 1, "p2p.peers.hi": 1 });
      connect({ old: 5 });
      clock.ms += GRACE;
      connect({ young: 0 });
      // Two connected, lo 1: one hang-up. young scores lower but is within its grace period.
      clock.ms += GRACE - 1;
      pm.tick();
      assert.deepEqual(host.hangUps, ["old"]);
      // old's hang-up is under way: young alone is not above hi. A third peer, scoring above young,
      // makes two again; young's grace has just ended, so it goes first.
      clock.ms += 1;
      connect({ third: 5 });
      pm.tick();
      assert.deepEqual(host.hangUps, ["old", "young"]);
      assert.equal(counters.pruned, 2);
    });

    it("a peer whose hang-up is under way is not counted: the next tick does not prune below lo", () => {
      const { pm, host, clock, counters, connect } = setup({ "p2p.peers.lo": 2, "p2p.peers.hi": 3 });
      connect({ a: 1, b: 2, c: 3, d: 4, e: 5 });
      clock.ms += GRACE + 10;
      pm.tick();
      assert.deepEqual(host.hangUps, ["a", "b", "c"]);
      // The closes have not finished (the host still lists the peers): nothing more to prune.
      clock.ms += 1000;
      pm.tick();
      pm.tick();
      assert.deepEqual(host.hangUps, ["a", "b", "c"]);
      assert.equal(counters.pruned, 3);
    });

    it("below lo it dials the known peers not connected and asks discovery for more, at most every 5 s", () => {
      const { pm, host, clock, connect } = setup({ "p2p.peers.lo": 3, "p2p.peers.hi": 5 });
      connect({ k1: 0 });
      pm.addKnownPeer("k1", "/ip4/10.0.0.1/tcp/1");
      pm.addKnownPeer("k2", "/ip4/10.0.0.2/tcp/1");
      pm.addKnownPeer("k3", "/ip4/10.0.0.3/tcp/1");
      pm.addKnownPeer(SELF, "/ip4/10.0.0.9/tcp/1");
      pm.tick();
      assert.deepEqual(host.dials, ["k2@/ip4/10.0.0.2/tcp/1", "k3@/ip4/10.0.0.3/tcp/1"]);
      assert.equal(host.lookups, 1);
      clock.ms += 4999;
      pm.tick();
      assert.equal(host.lookups, 1, "no second lookup within 5 s");
      clock.ms += 1;
      pm.tick();
      assert.equal(host.lookups, 2);
      assert.deepEqual(pm.knownPeerIds().sort(), ["k1", "k2", "k3"]);
    });

    it("at lo or above it neither dials known peers nor looks up", () => {
      const { pm, host, connect } = setup({ "p2p.peers.lo": 2, "p2p.peers.hi": 4 });
      connect({ a: 0, b: 0 });
      pm.addKnownPeer("k", "/ip4/10.0.0.2/tcp/1");
      pm.tick();
      assert.deepEqual(host.dials, []);
      assert.equal(host.lookups, 0);
      assert.deepEqual(host.hangUps, []);
    });

    it("without discovery it only dials the known peers", () => {
      const { pm, host } = setup();
      host.findPeers = null;
      pm.addKnownPeer("k", "/ip4/10.0.0.2/tcp/1");
      pm.tick();
      assert.deepEqual(host.dials, ["k@/ip4/10.0.0.2/tcp/1"]);
    });
  });

  describe("static peers", () => {
    const S = "/ip4/127.0.0.1/tcp/9001/p2p/static1";

    it("are protected, redialled every 5 s while disconnected, and our own address is skipped", () => {
      const { pm, host, clock, counters, logged, connect } = setup({
        "p2p.static": [S, `/ip4/127.0.0.1/tcp/9002/p2p/${SELF}`],
        "p2p.peers.lo": 0,
        "p2p.peers.hi": 0,
      });
      assert.equal(pm.isProtected("static1"), true);
      assert.equal(pm.isStatic("static1"), true);
      assert.equal(pm.isStatic(SELF), false);
      assert.ok(logged.some((l) => l.startsWith("debug:Ignoring our own address in --p2p.static")));
      pm.tick();
      assert.deepEqual(host.dials, [`static1@${S}`]);
      clock.ms += 4999;
      pm.tick();
      assert.equal(host.dials.length, 1, "not redialled within 5 s");
      clock.ms += 1;
      pm.tick();
      assert.equal(host.dials.length, 2, "redialled after 5 s");
      // Connected: neither redialled, nor pruned above hi 0, nor banned for its score.
      connect({ static1: -1000 });
      clock.ms += 60_000;
      pm.tick();
      assert.equal(host.dials.length, 2);
      assert.deepEqual(host.hangUps, []);
      assert.equal(counters.bans, 0);
      assert.deepEqual(pm.knownPeerIds(), ["static1"]);
      // Disconnected again: redialled at once (its last dial is long past).
      host.connected.delete("static1");
      pm.onDisconnect("static1");
      pm.tick();
      assert.equal(host.dials.length, 3);
    });
  });

  describe("discovery and connections", () => {
    it("a discovered peer is remembered and dialled at once while below hi; never ourselves", () => {
      const { pm, host, connect } = setup({ "p2p.peers.lo": 1, "p2p.peers.hi": 2 });
      connect({ a: 0 });
      pm.onDiscovered("d1", "/ip4/10.0.0.1/tcp/1");
      pm.onDiscovered("a", "/ip4/10.0.0.5/tcp/1");
      pm.onDiscovered(SELF, "/ip4/10.0.0.9/tcp/1");
      assert.deepEqual(host.dials, ["d1@/ip4/10.0.0.1/tcp/1"]);
      connect({ d1: 0 });
      pm.onDiscovered("d2", "/ip4/10.0.0.2/tcp/1");
      assert.equal(host.dials.length, 1, "at hi: remembered, not dialled");
      assert.deepEqual(pm.knownPeerIds().sort(), ["a", "d1", "d2"]);
    });

    it("a peer's grace period starts at its first connection and ends with its disconnection", () => {
      const { pm, clock } = setup();
      pm.onConnect("p");
      const first = clock.ms;
      clock.ms += 500;
      pm.onConnect("p");
      assert.equal(pm.connectedSince("p"), first);
      pm.onDisconnect("p");
      assert.equal(pm.connectedSince("p"), 0);
    });
  });
});
