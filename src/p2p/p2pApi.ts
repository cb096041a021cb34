/**
 * The `opp2p` JSON-RPC namespace (op-node p2p/rpc_api.go + rpc_server.go; op-stack.md §1.3): peer
 * and discovery diagnostics and the operator's block/protect/connect controls. The rollup node
 * registers it only when P2P is on, as op-node does, so with `--p2p.disable` every `opp2p_*` call
 * answers -32601 like any missing method.
 *
 * The JSON is op-node's, field for field, as Go's encoding/json writes it: peer IDs in base58,
 * node IDs as 64 hex digits without 0x, `connectedness` and `direction` as go-libp2p's enum numbers
 * (0 not connected / 1 connected; 0 unknown / 1 inbound / 2 outbound), `latency` in nanoseconds, IPs
 * as text and subnets as Go's `net.IPNet` objects `{IP, Mask}` (the mask in base64). Subnet
 * arguments take that object or, as a convenience op-node lacks, a CIDR string.
 *
 * Two deliberate supersets: `bannedPeers` and `bannedIPS` in `opp2p_peers` list the peers and IPs
 * banned for their score as well as those the operator blocked (op-node's gater reports only the
 * latter there, so a score ban is invisible in its dump), and `blocksTopicV4` is always present in
 * `opp2p_peerStats` (Opal speaks the Isthmus topic).
 */
import { isIP } from "node:net";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak256 } from "../crypto/keccak.js";
import { bytesToHex } from "../primitives/hex.js";
import { RpcError } from "../rpc/errors.js";
import { bool, type ParamDecoder, ParamError, string } from "../rpc/params.js";
import { type AnyMethod, defineMethod } from "../rpc/registry.js";
import type { GossipPeerStats } from "./gossip.js";
import type { P2pNode, PeerSummary } from "./host.js";
import { parseCidr } from "./peerBook.js";

/** go-libp2p's `network.Connectedness` values. */
const NOT_CONNECTED = 0;
const CONNECTED = 1;
/** go-libp2p's `network.Direction` values. */
const DIRECTION = { unknown: 0, inbound: 1, outbound: 2 } as const;

export interface PeerScoresJson {
  gossip: {
    total: number;
    blocks: {
      timeInMesh: number;
      firstMessageDeliveries: number;
      meshMessageDeliveries: number;
      invalidMessageDeliveries: number;
    };
    IPColocationFactor: number;
    behavioralPenalty: number;
  };
  reqResp: { validResponses: number; errorResponses: number; rejectedPayloads: number };
}

export interface PeerInfoJson {
  peerID: string;
  nodeID: string;
  userAgent: string;
  protocolVersion: string;
  ENR: string;
  addresses: string[];
  protocols: string[] | null;
  connectedness: number;
  direction: number;
  protected: boolean;
  chainID: number;
  latency: number;
  gossipBlocks: boolean;
  scores: PeerScoresJson;
}

/** Go's JSON form of a `*net.IPNet`. */
export interface IpNetJson {
  IP: string;
  Mask: string;
}

// --- addresses ---------------------------------------------------------------------------------

/** The 4 or 16 bytes of an IP in text form (IPv4-mapped IPv6 stays 16 bytes). */
function ipBytes(ip: string): Uint8Array {
  if (isIP(ip) === 4) return Uint8Array.from(ip.split(".").map(Number));
  let s = ip;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".", lastColon)) {
    // Trailing dotted quad (::ffff:1.2.3.4).
    tail = [...ipBytes(s.slice(lastColon + 1))];
    s = `${s.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = s.includes("::") ? s.split("::") : [s, null];
  const groups = (x: string | undefined): number[] =>
    x === undefined || x === "" ? [] : x.split(":").map((g) => parseInt(g, 16));
  const h = groups(head);
  const r = rest === null ? [] : groups(rest);
  const words = rest === null ? h : [...h, ...new Array<number>(8 - h.length - r.length).fill(0), ...r];
  const out = new Uint8Array(16);
  for (let i = 0; i < 8; i++) {
    out[2 * i] = (words[i]! >> 8) & 0xff;
    out[2 * i + 1] = words[i]! & 0xff;
  }
  if (tail.length === 4) out.set(tail, 12);
  return out;
}

function ipText(b: Uint8Array): string {
  if (b.length === 4) return [...b].join(".");
  const words: string[] = [];
  for (let i = 0; i < 16; i += 2) words.push(((b[i]! << 8) | b[i + 1]!).toString(16));
  // The longest run of two or more zero groups becomes "::".
  let best = -1;
  let bestLen = 1;
  for (let i = 0; i < 8; ) {
    if (words[i] !== "0") {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && words[j] === "0") j++;
    if (j - i > bestLen) {
      best = i;
      bestLen = j - i;
    }
    i = j;
  }
  if (best < 0) return words.join(":");
  return `${words.slice(0, best).join(":")}::${words.slice(best + bestLen).join(":")}`;
}

function maskBytes(prefix: number, size: number): Uint8Array {
  const m = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    const bits = Math.max(0, Math.min(8, prefix - 8 * i));
    m[i] = (0xff00 >> bits) & 0xff;
  }
  return m;
}

/** A CIDR with its address masked to the network, as Go's `net.ParseCIDR` gives it ("10.1.2.3/8" → "10.0.0.0/8"). */
export function canonicalCidr(cidr: string): string | null {
  const c = parseCidr(cidr);
  if (c === null) return null;
  const ip = ipBytes(c.address);
  const m = maskBytes(c.prefix, ip.length);
  for (let i = 0; i < ip.length; i++) ip[i]! &= m[i]!;
  return `${ipText(ip)}/${c.prefix}`;
}

/** Go's `{IP, Mask}` of a canonical CIDR. */
export function ipNetJson(cidr: string): IpNetJson {
  const c = parseCidr(cidr)!;
  const ip = ipBytes(c.address);
  return { IP: ipText(ip), Mask: Buffer.from(maskBytes(c.prefix, ip.length)).toString("base64") };
}

/** `net.IP` as a parameter: its text form, refused as Go refuses it. */
const ipParam: ParamDecoder<string> = {
  optional: false,
  decode(v) {
    if (typeof v !== "string")
      throw new ParamError(`json: cannot unmarshal ${v === null ? "null" : typeof v} into Go value of type net.IP`);
    if (isIP(v) === 0) throw new ParamError(`invalid IP address: ${v}`);
    return v;
  },
};

/** `*net.IPNet` as a parameter: Go's `{IP, Mask}` object or a CIDR string; gives the canonical CIDR. */
const subnetParam: ParamDecoder<string> = {
  optional: false,
  decode(v) {
    let cidr: string | null = null;
    if (typeof v === "string") {
      cidr = canonicalCidr(v);
      if (cidr === null) throw new ParamError(`invalid CIDR address: ${v}`);
      return cidr;
    }
    if (v === null || typeof v !== "object" || Array.isArray(v)) {
      throw new ParamError(
        `json: cannot unmarshal ${Array.isArray(v) ? "array" : String(typeof v)} into Go value of type net.IPNet`,
      );
    }
    const o = v as { IP?: unknown; Mask?: unknown };
    if (typeof o.IP !== "string" || isIP(o.IP) === 0) throw new ParamError(`invalid IP address: ${String(o.IP)}`);
    if (typeof o.Mask !== "string") throw new ParamError("invalid subnet mask");
    const mask = Buffer.from(o.Mask, "base64");
    const size = ipBytes(o.IP).length;
    // A 16-byte mask with an IPv4 address is the v4-in-v6 form Go also accepts.
    const bits = mask.length === 16 && size === 4 ? mask.subarray(12) : mask;
    if (bits.length !== size) throw new ParamError("invalid subnet mask");
    let prefix = 0;
    while (prefix < 8 * size && (bits[prefix >> 3]! & (0x80 >> (prefix & 7))) !== 0) prefix++;
    if (!maskBytes(prefix, size).every((b, i) => b === bits[i])) throw new ParamError("non-canonical subnet mask");
    cidr = canonicalCidr(`${o.IP}/${prefix}`);
    if (cidr === null) throw new ParamError(`invalid CIDR address: ${o.IP}/${prefix}`);
    return cidr;
  },
};

// --- peers -------------------------------------------------------------------------------------

/** A peer ID in base58, checked by parsing it; invalid ones answer -32602 as Go's decoder does. */
async function checkPeerId(id: string): Promise<string> {
  const { peerIdFromString } = await import("@libp2p/peer-id");
  try {
    return peerIdFromString(id).toString();
  } catch (e) {
    throw RpcError.invalidParams(`invalid argument 0: failed to parse peer ID: ${(e as Error).message}`);
  }
}

/** The discv5 node ID of a peer with a secp256k1 key (keccak256 of the 64-byte public key); zeros otherwise. */
async function nodeIdOf(peerId: string): Promise<string> {
  const { peerIdFromString } = await import("@libp2p/peer-id");
  try {
    const p = peerIdFromString(peerId);
    if (p.type === "secp256k1") {
      const full = secp256k1.Point.fromBytes(p.publicKey.raw).toBytes(false);
      return bytesToHex(keccak256(full.subarray(1))).slice(2);
    }
  } catch {
    // Not a key we can read: no node ID.
  }
  return "0".repeat(64);
}

function withP2pSuffix(addr: string, id: string): string {
  return addr.includes("/p2p/") ? addr : `${addr}/p2p/${id}`;
}

function gossipScores(
  total: number,
  stats: GossipPeerStats | undefined,
  topics: readonly string[],
  colocation: number,
): PeerScoresJson["gossip"] {
  const blocks = { timeInMesh: 0, firstMessageDeliveries: 0, meshMessageDeliveries: 0, invalidMessageDeliveries: 0 };
  if (stats !== undefined) {
    // The block topics follow each other in time; their sum is the one live topic's figures.
    for (const t of topics) {
      const s = stats.topics[t];
      if (s === undefined) continue;
      blocks.timeInMesh += s.meshTime / 1000;
      blocks.firstMessageDeliveries += s.firstMessageDeliveries;
      blocks.meshMessageDeliveries += s.meshMessageDeliveries;
      blocks.invalidMessageDeliveries += s.invalidMessageDeliveries;
    }
  }
  return { total, blocks, IPColocationFactor: colocation, behavioralPenalty: stats?.behaviourPenalty ?? 0 };
}

/** gossipsub's colocation factor: Σ over the peer's IPs of (peers on that IP − threshold)², when above. */
function colocationFactors(all: Record<string, GossipPeerStats>, threshold: number): Map<string, number> {
  const perIp = new Map<string, number>();
  for (const s of Object.values(all)) for (const ip of s.knownIPs) perIp.set(ip, (perIp.get(ip) ?? 0) + 1);
  const out = new Map<string, number>();
  for (const [id, s] of Object.entries(all)) {
    let f = 0;
    for (const ip of s.knownIPs) {
      const surplus = (perIp.get(ip) ?? 0) - threshold;
      if (surplus > 0) f += surplus * surplus;
    }
    out.set(id, f);
  }
  return out;
}

interface DumpContext {
  readonly stats: Record<string, GossipPeerStats>;
  readonly colocation: Map<string, number>;
  /** ENR text by discv5 node ID. */
  readonly enrs: Map<string, string>;
}

function dumpContext(p2p: P2pNode): DumpContext {
  const stats = p2p.gossipScoreStats();
  const enrs = new Map<string, string>();
  for (const r of p2p.discovery?.table() ?? []) enrs.set(r.nodeId.replace(/^0x/, ""), r.enr);
  return { stats, colocation: colocationFactors(stats, p2p.ipColocationThreshold), enrs };
}

async function peerInfo(p2p: P2pNode, s: PeerSummary, ctx: DumpContext): Promise<PeerInfoJson> {
  const nodeID = await nodeIdOf(s.peerId);
  const enr = ctx.enrs.get(nodeID) ?? "";
  return {
    peerID: s.peerId,
    nodeID,
    userAgent: s.userAgent,
    protocolVersion: s.protocolVersion,
    ENR: enr,
    addresses: s.addresses.map((a) => withP2pSuffix(a, s.peerId)),
    protocols: s.protocols.length === 0 ? null : s.protocols,
    connectedness: s.connected ? CONNECTED : NOT_CONNECTED,
    direction: DIRECTION[s.direction],
    protected: s.protected,
    // Records in our discovery table passed the opstack filter: they are on this chain.
    chainID: enr === "" ? 0 : Number(p2p.chainId),
    latency: Math.round(s.latencyMs * 1e6),
    gossipBlocks: s.gossipBlocks,
    scores: {
      gossip: gossipScores(s.score, ctx.stats[s.peerId], p2p.topics, ctx.colocation.get(s.peerId) ?? 0),
      reqResp: s.reqResp,
    },
  };
}

async function selfInfo(p2p: P2pNode): Promise<PeerInfoJson> {
  const id = p2p.peerIdString;
  return {
    peerID: id,
    nodeID: await nodeIdOf(id),
    userAgent: p2p.userAgent,
    protocolVersion: "",
    ENR: p2p.discovery?.localEnr() ?? "",
    addresses: p2p.listenAddrs().map((a) => withP2pSuffix(a, id)),
    protocols: p2p.protocols(),
    connectedness: NOT_CONNECTED,
    direction: DIRECTION.unknown,
    protected: false,
    chainID: Number(p2p.chainId),
    latency: 0,
    gossipBlocks: true,
    scores: {
      gossip: gossipScores(0, undefined, p2p.topics, 0),
      reqResp: { validResponses: 0, errorResponses: 0, rejectedPayloads: 0 },
    },
  };
}

// --- methods -----------------------------------------------------------------------------------

/** Runs a handler against the running host; its failures answer -32000 with their text. */
async function withHost<T>(get: () => P2pNode | null, f: (p2p: P2pNode) => T | Promise<T>): Promise<T> {
  const p2p = get();
  if (p2p === null) throw RpcError.server("p2p node is not running");
  try {
    return await f(p2p);
  } catch (e) {
    if (e instanceof RpcError) throw e;
    throw RpcError.server(e instanceof Error ? e.message : String(e));
  }
}

/** The opp2p_* methods over the host `get` returns (null until it has started). */
export function p2pMethods(get: () => P2pNode | null): AnyMethod[] {
  const run = <T>(f: (p2p: P2pNode) => T | Promise<T>): Promise<T> => withHost(get, f);
  return [
    defineMethod({ name: "opp2p_self", params: [], handler: () => run(selfInfo) }),
    defineMethod({
      name: "opp2p_peers",
      params: [bool],
      handler: ([connected]) =>
        run(async (p2p) => {
          const ids = connected ? p2p.connectedPeerIds() : p2p.knownPeerIds();
          const ctx = dumpContext(p2p);
          const peers: Record<string, PeerInfoJson> = {};
          let totalConnected = 0;
          for (const id of ids) {
            const info = await peerInfo(p2p, await p2p.peerSummary(id), ctx);
            peers[id] = info;
            if (info.connectedness === CONNECTED) totalConnected++;
          }
          return {
            totalConnected,
            peers,
            bannedPeers: p2p.bannedOrBlockedPeers(),
            bannedIPS: p2p.bannedOrBlockedAddrs(),
            bannedSubnets: p2p.book.blockedSubnets().map(ipNetJson),
          };
        }),
    }),
    defineMethod({
      name: "opp2p_peerStats",
      params: [],
      handler: () =>
        run((p2p) => ({
          connected: p2p.connectedPeerIds().length,
          table: p2p.discovery?.table().length ?? 0,
          blocksTopic: p2p.topicPeers(0),
          blocksTopicV2: p2p.topicPeers(1),
          blocksTopicV3: p2p.topicPeers(2),
          blocksTopicV4: p2p.topicPeers(3),
          banned: p2p.bannedOrBlockedPeers().length,
          known: p2p.knownPeerIds().length,
        })),
    }),
    defineMethod({
      name: "opp2p_discoveryTable",
      params: [],
      handler: () =>
        run((p2p) => {
          if (p2p.discovery === null) throw new Error("discovery disabled");
          return p2p.discovery.table().map((r) => r.enr);
        }),
    }),
    defineMethod({
      name: "opp2p_blockPeer",
      params: [string],
      handler: ([id]) => run(async (p2p) => void (await p2p.blockPeer(await checkPeerId(id)))),
    }),
    defineMethod({
      name: "opp2p_unblockPeer",
      params: [string],
      handler: ([id]) => run(async (p2p) => void p2p.unblockPeer(await checkPeerId(id))),
    }),
    defineMethod({ name: "opp2p_listBlockedPeers", params: [], handler: () => run((p2p) => p2p.book.blockedPeers()) }),
    defineMethod({
      name: "opp2p_blockAddr",
      params: [ipParam],
      handler: ([ip]) => run(async (p2p) => void (await p2p.blockAddr(ip))),
    }),
    defineMethod({
      name: "opp2p_unblockAddr",
      params: [ipParam],
      handler: ([ip]) => run((p2p) => void p2p.unblockAddr(ip)),
    }),
    defineMethod({ name: "opp2p_listBlockedAddrs", params: [], handler: () => run((p2p) => p2p.book.blockedAddrs()) }),
    defineMethod({
      name: "opp2p_blockSubnet",
      params: [subnetParam],
      handler: ([cidr]) => run(async (p2p) => void (await p2p.blockSubnet(cidr))),
    }),
    defineMethod({
      name: "opp2p_unblockSubnet",
      params: [subnetParam],
      handler: ([cidr]) => run((p2p) => void p2p.unblockSubnet(cidr)),
    }),
    defineMethod({
      name: "opp2p_listBlockedSubnets",
      params: [],
      handler: () => run((p2p) => p2p.book.blockedSubnets().map(ipNetJson)),
    }),
    defineMethod({
      name: "opp2p_protectPeer",
      params: [string],
      handler: ([id]) => run(async (p2p) => void p2p.protect(await checkPeerId(id))),
    }),
    defineMethod({
      name: "opp2p_unprotectPeer",
      params: [string],
      handler: ([id]) => run(async (p2p) => void p2p.unprotect(await checkPeerId(id))),
    }),
    defineMethod({
      name: "opp2p_connectPeer",
      params: [string],
      handler: ([addr]) => run(async (p2p) => void (await p2p.connectPeer(addr))),
    }),
    defineMethod({
      name: "opp2p_disconnectPeer",
      params: [string],
      handler: ([id]) => run(async (p2p) => void (await p2p.disconnectPeer(await checkPeerId(id)))),
    }),
  ];
}
