/** Shared pieces of the P2P tests: host options on loopback, a quiet log, a recording metrics sink. */
import "../../src/p2p/polyfill.js";
import { join } from "node:path";
import type { P2pConfig, P2pMetricsSink } from "../../src/p2p/host.js";

export const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** Options for a host on 127.0.0.1 with its files in `dir`, discovery off, light scoring. */
export function p2pConfig(dir: string, name: string, over: Partial<P2pConfig> = {}): P2pConfig {
  return {
    "p2p.no-discovery": true,
    "p2p.advertise.tcp": 0,
    "p2p.advertise.udp": 0,
    "p2p.listen.ip": "127.0.0.1",
    "p2p.listen.tcp": 0,
    "p2p.listen.udp": 0,
    "p2p.nat": false,
    "p2p.discovery.path": "memory",
    "p2p.peerstore.path": join(dir, `${name}-peerstore`),
    "p2p.priv.path": join(dir, `${name}.key`),
    "p2p.scoring": "light",
    "p2p.ban.peers": true,
    "p2p.ban.threshold": -100,
    "p2p.ban.duration": 3_600_000,
    "p2p.peers.lo": 20,
    "p2p.peers.hi": 30,
    "p2p.peers.grace": 30_000,
    "p2p.gossip.timestamp.threshold": 60_000,
    "p2p.sync.req-resp": true,
    "p2p.sync.onlyreqtostatic": false,
    ...over,
  };
}

/** A metrics sink that writes down what the host reports. */
export function recordingMetrics(): { sink: P2pMetricsSink; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    sink: {
      setPeerCount: (n) => calls.push(`peers:${n}`),
      setStreamCount: (n) => calls.push(`streams:${n}`),
      recordGossipEvent: (t) => calls.push(`event:${t}`),
      recordGossipValidation: (r, why) => calls.push(`validation:${r}:${why}`),
      recordReqResp: (role, r) => calls.push(`reqresp:${role}:${r}`),
      recordPeerBan: () => calls.push("ban"),
      recordPeerScores: (s) => calls.push(`scores:${s.join(",")}`),
      recordPublishingError: () => calls.push("publishing-error"),
    },
  };
}
