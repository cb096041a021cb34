/**
 * The opal-node (rollup node) flag table: every option of spec part 4B with its name, type and
 * default; op-node's env names where op-stack.md §1.4 gives them, otherwise `OP_NODE_` + the
 * upper-snake flag name. Values: durations in milliseconds, fork timestamps as bigint, counts and
 * ports as number. Checks the generic table cannot express (URLs, hosts, CIDRs, keys) are
 * `validate` hooks; cross-flag rules (required --l2, --network vs --rollup.config) are applied
 * by `parseNodeArgs` after the generic parse.
 */

import { isIP } from "node:net";
import { RPC_PROVIDER_KINDS } from "../rollup/l1Client.js";
import { HOST, METRICS, PATH, PORT, PPROF_FLAGS } from "./commonFlags.js";
import { OPAL_VERSION } from "./execFlags.js";
import { defineCli, type InferConfig, MS_PER_HOUR, MS_PER_MINUTE, MS_PER_SECOND } from "./flagTable.js";
import { type Env, type ParseOptions, type ParseResult, parseArgs } from "./parseArgs.js";

/**
 * `--network` names: one per chain config of the superchain-registry snapshot
 * (fixtures/op-stack/superchain-registry/configs/<superchain>/<chain>.toml → `<chain>-<superchain>`),
 * sorted as op-node's chaincfg.AvailableNetworks() is. test/unit/cli/nodeFlags.test.ts re-derives
 * the list from that folder.
 */
export const NETWORKS = [
  "base-mainnet",
  "base-sepolia",
  "ink-mainnet",
  "ink-sepolia",
  "mode-mainnet",
  "op-mainnet",
  "op-sepolia",
  "soneium-mainnet",
  "unichain-mainnet",
  "unichain-sepolia",
  "worldchain-mainnet",
  "zora-mainnet",
  "zora-sepolia",
] as const;

/** `--log.level` names and their numbers (spec part 3). */
export const LOG_LEVELS = { silent: 0, error: 1, warn: 2, info: 3, debug: 4, detail: 5 } as const;

/** op-node's L1 RPC provider kinds (one list, owned by the L1 client). */
export const L1_RPC_KINDS = RPC_PROVIDER_KINDS;

// ---------------------------------------------------------------------------------------------
// Value checks (the `validate` hooks): each returns the problem in a few words, or undefined.

function checkIP(text: string): string | undefined {
  return isIP(text) === 0 ? "not an IP address" : undefined;
}

function urlCheck(schemes: readonly string[]): (text: string) => string | undefined {
  return (text) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return "not a URL";
    }
    const scheme = url.protocol.slice(0, -1);
    if (!schemes.includes(scheme)) return `scheme ${scheme} is not ${schemes.join(" or ")}`;
    if (url.hostname === "") return "URL without a host";
    return undefined;
  };
}

/** Applies `check` to every item of a comma-separated list (as the list type splits it). */
function eachItem(check: (item: string) => string | undefined): (text: string) => string | undefined {
  return (text) => {
    for (const item of text.split(",")) {
      const s = item.trim();
      if (s === "") continue;
      const problem = check(s);
      if (problem !== undefined) return `${JSON.stringify(s)}: ${problem}`;
    }
    return undefined;
  };
}

function checkCidr(text: string): string | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(text);
  const v = m === null ? 0 : isIP(m[1]!);
  if (m === null || v === 0 || Number(m[2]) > (v === 4 ? 32 : 128)) return "not a CIDR mask such as 10.0.0.0/8";
  return undefined;
}

/** An ENR (`enr:` + base64url record) or an enode URL, as op-node's enode.Parse takes. */
function checkNodeRecord(text: string): string | undefined {
  if (/^enr:-?[A-Za-z0-9_-]+={0,2}$/.test(text) || /^enode:\/\/[0-9a-fA-F]{128}@/.test(text)) return undefined;
  return "not a node record (enr:… or enode://…)";
}

/** A libp2p multiaddr with IP (or DNS name), TCP port and peer id. */
function checkMultiaddr(text: string): string | undefined {
  const m = /^\/(ip4|ip6|dns|dns4|dns6)\/([^/]+)\/tcp\/(\d{1,5})\/p2p\/([1-9A-HJ-NP-Za-km-z]+)$/.exec(text);
  if (m === null || Number(m[3]) > 65535) return "not a multiaddr such as /ip4/1.2.3.4/tcp/9222/p2p/16Uiu2…";
  if ((m[1] === "ip4" && isIP(m[2]!) !== 4) || (m[1] === "ip6" && isIP(m[2]!) !== 6)) return "bad IP in multiaddr";
  return undefined;
}

function checkHeader(text: string): string | undefined {
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+:.*$/.test(text) ? undefined : 'not a header such as "X-Key: Value"';
}

function checkKeyValue(text: string): string | undefined {
  return /^[^=\s]+=.*$/.test(text) ? undefined : "not a key=value pair";
}

const HTTP_URL = urlCheck(["http", "https"]);
const RPC_URL = urlCheck(["http", "https", "ws", "wss"]);

const RPC_ENDPOINT = { type: "string", validate: RPC_URL, expects: "an http(s) or ws(s) URL" } as const;
const HTTP_ENDPOINT = { type: "string", validate: HTTP_URL, expects: "an http(s) URL" } as const;
/** A count that must be ≥ 0 (Go uint / uint64 in op-node). */
const COUNT = { type: "int", min: 0 } as const;

// ---------------------------------------------------------------------------------------------
// Help categories: the sections of spec part 4B.

const RPC = "NODE RPC SERVER";
const CONN = "L1 AND L2 CONNECTIONS";
const NET = "NETWORK AND ROLLUP CONFIGURATION";
const FORKS = "FORK OVERRIDES";
const LOG = "LOGGING";

const P2P = "P2P NETWORKING";
const SEQ = "SEQUENCER AND VERIFIER";
const COND = "CONDUCTOR";
const STORE = "PERSISTENCE";
const SIGNER = "EXTERNAL SIGNER FOR P2P MESSAGES";
const ALTDA = "ALT-DA (EXPERIMENTAL)";
const INTEROP = "INTEROP (SUPER EXPERIMENTAL)";

function forkOverride(fork: string) {
  return {
    type: "uint64",
    default: 0n,
    category: FORKS,
    help: `Manually specify the ${fork} fork timestamp, overriding the bundled setting (0 = no override)`,
  } as const;
}

export const NODE_CLI = defineCli({
  name: "opal-node",
  version: OPAL_VERSION,
  usage: "OP Stack rollup node",
  envPrefix: "OP_NODE",
  flags: {
    // Node RPC server.
    "rpc.addr": { ...HOST, default: "0.0.0.0", category: RPC, help: "RPC listening address" },
    "rpc.port": { ...PORT, default: 9545, category: RPC, help: "RPC listening port" },
    "rpc.enable-admin": { type: "bool", category: RPC, help: "Enable the admin API (experimental)" },
    "rpc.admin-state": {
      ...PATH,
      category: RPC,
      help: "File path used to persist state changes made via the admin API so they persist across restarts (unset = disabled)",
    },
    "experimental.sequencer-api": { type: "bool", category: RPC, help: "Enables experimental test sequencer RPC" },

    // L1 and L2 connections.
    l1: {
      ...RPC_ENDPOINT,
      default: "http://127.0.0.1:8545",
      env: "OP_NODE_L1_ETH_RPC",
      category: CONN,
      help: "Address of L1 User JSON-RPC endpoint to use (eth namespace required)",
    },
    "l1.beacon": {
      ...HTTP_ENDPOINT,
      category: CONN,
      help: "Address of L1 Beacon-node HTTP endpoint to use",
    },
    "l1.beacon-fallbacks": {
      type: "list",
      validate: eachItem(HTTP_URL),
      expects: "a comma-separated list of http(s) URLs",
      aliases: ["l1.beacon-archiver"],
      category: CONN,
      help: "Fallback beacon-API endpoints for blob sidecars not available at --l1.beacon (e.g. expired blobs)",
    },
    "l1.beacon-header": {
      type: "string",
      validate: checkHeader,
      expects: 'an HTTP header such as "X-Key: Value"',
      category: CONN,
      help: "Optional HTTP header to add to all requests to the L1 Beacon endpoint. Format: 'X-Key: Value'",
    },
    "l1.beacon.fetch-all-sidecars": {
      type: "bool",
      category: CONN,
      help: "If true, all sidecars are fetched and filtered locally. Workaround for buggy Beacon nodes.",
    },
    "l1.beacon.ignore": {
      type: "bool",
      category: CONN,
      help: "When false, halts op-node startup if the healthcheck to the Beacon-node endpoint fails.",
    },
    "l1.cache-size": {
      ...COUNT,
      default: 900,
      category: CONN,
      help: "Cache size for blocks, receipts and transactions. 0 = 3/2 of the sequencing window size (usually 2400). Higher values use significantly more memory.",
    },
    "l1.epoch-poll-interval": {
      type: "duration",
      default: 6 * MS_PER_MINUTE + 24 * MS_PER_SECOND,
      category: CONN,
      help: "Poll interval for retrieving new L1 epoch updates such as safe and finalized block changes. Disabled if 0 or negative.",
    },
    "l1.http-poll-interval": {
      type: "duration",
      default: 12 * MS_PER_SECOND,
      category: CONN,
      help: "Polling interval for latest-block subscription when using an HTTP RPC provider. Ignored for other types of RPC endpoints.",
    },
    "l1.max-concurrency": {
      type: "int",
      min: 1,
      default: 10,
      category: CONN,
      help: "Maximum number of concurrent RPC requests to make to the L1 RPC provider.",
    },
    "l1.rpc-max-batch-size": {
      type: "int",
      min: 1,
      default: 20,
      category: CONN,
      help: "Maximum number of RPC requests to bundle, e.g. during L1 blocks receipt fetching. The L1 RPC rate limit counts this as N items, but allows it to burst at once.",
    },
    "l1.rpc-rate-limit": {
      type: "float",
      min: 0,
      default: 0,
      category: CONN,
      help: "Optional self-imposed global rate-limit on L1 RPC requests, specified in requests / second. Disabled if set to 0.",
    },
    "l1.rpckind": {
      type: "enum",
      values: L1_RPC_KINDS,
      default: "standard",
      env: "OP_NODE_L1_RPC_KIND",
      category: CONN,
      help: "The kind of RPC provider, used to inform optimal transactions receipts fetching",
    },
    "l1.runtime-config-reload-interval": {
      type: "duration",
      default: 10 * MS_PER_MINUTE,
      category: CONN,
      help: "Poll interval for reloading the runtime config, useful when config events are not being picked up. Disabled if 0 or negative.",
    },
    "l1.trustrpc": {
      type: "bool",
      env: "OP_NODE_L1_TRUST_RPC",
      category: CONN,
      help: "Trust the L1 RPC, sync faster at risk of malicious/buggy RPC providing bad or inconsistent L1 data. Required when the L1 client lacks eth_getProof.",
    },
    l2: {
      type: "list",
      required: true,
      validate: eachItem(RPC_URL),
      expects: "a comma-separated list of http(s) or ws(s) URLs",
      env: "OP_NODE_L2_ENGINE_RPC",
      category: CONN,
      help: "Addresses of L2 Engine JSON-RPC endpoints to use (engine and eth namespaces)",
    },
    "l2.engine-rpc-timeout": {
      type: "duration",
      default: 10 * MS_PER_SECOND,
      category: CONN,
      help: "L2 engine client rpc timeout",
    },
    "l2.jwt-secret": {
      ...PATH,
      env: "OP_NODE_L2_ENGINE_AUTH",
      category: CONN,
      help: "Path to JWT secret key. Keys are 32 bytes, hex encoded in a file. A new key will be generated if the file is empty.",
    },
    "l2.enginekind": {
      type: "enum",
      values: ["geth", "reth", "erigon"],
      default: "geth",
      env: "OP_NODE_L2_ENGINE_KIND",
      category: CONN,
      help: "The kind of engine client, used to control the behavior of optimism in respect to different types of engine clients",
    },

    // Network and rollup configuration.
    network: {
      type: "enum",
      values: NETWORKS,
      category: NET,
      help: "Predefined network selection (exclusive with --rollup.config)",
    },
    "rollup.config": { ...PATH, category: NET, help: "Rollup chain parameters (exclusive with --network)" },
    "rollup.halt": {
      type: "enum",
      values: ["major", "minor", "patch", "none"],
      category: NET,
      help: "Opt-in option to halt on incompatible protocol version requirements of the given level, as signaled on L1",
    },
    "rollup.l1-chain-config": {
      ...PATH,
      category: NET,
      help: "Path to .json file with the chain configuration for the L1, either in the direct format or genesis.json format (i.e. embedded under the .config property). Not necessary / will be ignored if using Ethereum mainnet or Sepolia as an L1.",
    },
    syncmode: {
      type: "enum",
      values: ["consensus-layer", "execution-layer"],
      default: "consensus-layer",
      category: NET,
      help: "Blockchain sync mode",
    },
    "fetch-withdrawal-root-from-state": {
      type: "bool",
      category: NET,
      help: "Read withdrawal_storage_root (aka message passer storage root) from state trie (via execution layer) instead of the block header. Restores pre-Isthmus behavior, requires an archive EL client.",
    },

    // Fork overrides (op-service/flags: one per fork, 0 = use the bundled time).
    "override.canyon": forkOverride("Canyon"),
    "override.delta": forkOverride("Delta"),
    "override.ecotone": forkOverride("Ecotone"),
    "override.fjord": forkOverride("Fjord"),
    "override.granite": forkOverride("Granite"),
    "override.holocene": forkOverride("Holocene"),
    "override.isthmus": forkOverride("Isthmus"),
    "override.interop": forkOverride("Interop"),
    "override.jovian": forkOverride("Jovian"),
    "override.pectrablobschedule": forkOverride("PectraBlobSchedule"),

    // Logging (op-service/log/cli.go).
    "log.color": { type: "bool", category: LOG, help: "Color the log output if in terminal mode" },
    "log.format": {
      type: "enum",
      values: ["text", "terminal", "logfmt", "json", "json-pretty"],
      default: "text",
      category: LOG,
      help: "Format the log output",
    },
    "log.level": {
      type: "enum",
      values: Object.keys(LOG_LEVELS) as (keyof typeof LOG_LEVELS)[],
      default: "info",
      category: LOG,
      help: "The lowest log level that will be output",
    },
    "log.pid": { type: "bool", category: LOG, help: "Show pid in the log" },

    // Metrics and profiling (op-service/metrics/cli.go, op-service/oppprof/cli.go).
    "metrics.addr": { ...HOST, default: "0.0.0.0", category: METRICS, help: "Metrics listening address" },
    "metrics.enabled": { type: "bool", category: METRICS, help: "Enable the metrics server" },
    "metrics.port": { ...PORT, default: 7300, category: METRICS, help: "Metrics listening port" },
    ...PPROF_FLAGS,

    // P2P networking (op-node/flags/p2p_flags.go; env names OP_NODE_P2P_<suffix>).
    "p2p.disable": { type: "bool", category: P2P, help: "Completely disable the P2P stack" },
    "p2p.no-discovery": { type: "bool", category: P2P, help: "Disable Discv5 (node discovery)" },
    "p2p.advertise.ip": {
      ...HOST,
      category: P2P,
      help: "The IP address (or hostname) to advertise in Discv5, put into the ENR of the node",
    },
    "p2p.advertise.tcp": {
      ...PORT,
      default: 0,
      category: P2P,
      help: "The TCP port to advertise in Discv5, put into the ENR of the node (0 = the --p2p.listen.tcp value)",
    },
    "p2p.advertise.udp": {
      ...PORT,
      default: 0,
      category: P2P,
      help: "The UDP port to advertise in Discv5 as fallback if not determined by Discv5 (0 = the --p2p.listen.udp value)",
    },
    "p2p.listen.ip": {
      type: "string",
      validate: checkIP,
      expects: "an IP address",
      default: "0.0.0.0",
      category: P2P,
      help: "IP to bind LibP2P and Discv5 to",
    },
    "p2p.listen.tcp": {
      ...PORT,
      default: 9222,
      env: "OP_NODE_P2P_LISTEN_TCP_PORT",
      category: P2P,
      help: "TCP port to bind LibP2P to. Any available system port if set to 0.",
    },
    "p2p.listen.udp": {
      ...PORT,
      default: 0,
      env: "OP_NODE_P2P_LISTEN_UDP_PORT",
      category: P2P,
      help: "UDP port to bind Discv5 to. Same as TCP port if left 0.",
    },
    "p2p.nat": {
      type: "bool",
      category: P2P,
      help: "Enable NAT traversal with PMP/UPNP devices to learn external IP.",
    },
    "p2p.netrestrict": {
      type: "list",
      validate: eachItem(checkCidr),
      expects: "a comma-separated list of CIDR masks",
      category: P2P,
      help: "Comma-separated list of CIDR masks. P2P will only try to connect on these networks",
    },
    "p2p.bootnodes": {
      type: "list",
      validate: eachItem(checkNodeRecord),
      expects: "a comma-separated list of node records",
      category: P2P,
      help: "Comma-separated base64-format ENR list. Bootnodes to start discovering other node records from.",
    },
    "p2p.static": {
      type: "list",
      validate: eachItem(checkMultiaddr),
      expects: "a comma-separated list of multiaddrs",
      category: P2P,
      help: "Comma-separated multiaddr-format peer list. Static connections to make and maintain, these peers will be regarded as trusted. Addresses of the local peer are ignored. Duplicate/Alternative addresses for the same peer all apply, but only a single connection per peer is maintained.",
    },
    "p2p.discovery.path": {
      ...PATH,
      default: "opnode_discovery_db",
      category: P2P,
      help: "Discovered ENRs are persisted in a database to recover from a restart without having to bootstrap the discovery process again. Set to 'memory' to never persist the peerstore.",
    },
    "p2p.peerstore.path": {
      ...PATH,
      default: "opnode_peerstore_db",
      category: P2P,
      help: "Peerstore database location. Persisted peerstores help recover peers after restarts. Set to 'memory' to never persist the peerstore. Peerstore records will be pruned / expire as necessary. Warning: a copy of the priv network key of the local peer will be persisted here.",
    },
    "p2p.priv.path": {
      ...PATH,
      default: "opnode_p2p_priv.txt",
      category: P2P,
      help: "Read the hex-encoded 32-byte private key for the peer ID from this txt file. Created if not already exists.",
    },
    "p2p.scoring": {
      type: "enum",
      values: ["none", "light"],
      default: "light",
      env: "OP_NODE_P2P_PEER_SCORING",
      category: P2P,
      help: "Sets the peer scoring strategy for the P2P stack",
    },
    "p2p.ban.peers": {
      type: "bool",
      default: true,
      env: "OP_NODE_P2P_PEER_BANNING",
      category: P2P,
      help: "Enables peer banning.",
    },
    "p2p.ban.threshold": {
      type: "float",
      default: -100,
      env: "OP_NODE_P2P_PEER_BANNING_THRESHOLD",
      category: P2P,
      help: "The minimum score below which peers are disconnected and banned.",
    },
    "p2p.ban.duration": {
      type: "duration",
      default: MS_PER_HOUR,
      env: "OP_NODE_P2P_PEER_BANNING_DURATION",
      category: P2P,
      help: "The duration that peers are banned for.",
    },
    "p2p.peers.lo": {
      ...COUNT,
      default: 20,
      category: P2P,
      help: "Low-tide peer count. The node actively searches for new peer connections if below this amount.",
    },
    "p2p.peers.hi": {
      ...COUNT,
      default: 30,
      category: P2P,
      help: "High-tide peer count. The node starts pruning peer connections slowly after reaching this number.",
    },
    "p2p.peers.grace": {
      type: "duration",
      default: 30 * MS_PER_SECOND,
      category: P2P,
      help: "Grace period to keep a newly connected peer around, if it is not misbehaving.",
    },
    "p2p.gossip.timestamp.threshold": {
      type: "duration",
      default: MS_PER_MINUTE,
      category: P2P,
      help: "Threshold for rejecting gossip messages with payload timestamps older than this.",
    },
    "p2p.sequencer.key": {
      type: "string",
      validate: (t) => (/^(0x)?[0-9a-fA-F]{64}$/.test(t) ? undefined : "not a 32-byte hex key"),
      expects: "a hex-encoded 32-byte private key",
      category: P2P,
      help: "Hex-encoded private key for signing off on p2p application messages as sequencer.",
    },
    "p2p.sync.req-resp": {
      type: "bool",
      default: true,
      category: P2P,
      help: "Enables P2P req-resp alternative sync method, on both server and client side.",
    },
    "p2p.sync.onlyreqtostatic": {
      type: "bool",
      category: P2P,
      help: "Configures the consensus layer to only request sync from static peers (sends RequestL2Range).",
    },

    // Sequencer and verifier.
    "sequencer.enabled": {
      type: "bool",
      category: SEQ,
      help: "Enable sequencing of new L2 blocks. A separate batch submitter has to be deployed to publish the data for verifiers.",
    },
    "sequencer.stopped": {
      type: "bool",
      category: SEQ,
      help: "Initialize the sequencer in a stopped state. The sequencer can be started using the admin_startSequencer RPC",
    },
    "sequencer.l1-confs": {
      ...COUNT,
      default: 4,
      category: SEQ,
      help: "Number of L1 blocks to keep distance from the L1 head as a sequencer for picking an L1 origin.",
    },
    "sequencer.max-safe-lag": {
      ...COUNT,
      default: 0,
      category: SEQ,
      help: "Maximum number of L2 blocks for restricting the distance between L2 safe and unsafe. Disabled if 0.",
    },
    "sequencer.recover": {
      type: "bool",
      category: SEQ,
      help: "Forces the sequencer to strictly prepare the next L1 origin and create empty L2 blocks",
    },
    "verifier.l1-confs": {
      ...COUNT,
      default: 0,
      category: SEQ,
      help: "Number of L1 blocks to keep distance from the L1 head before deriving L2 data from. Reorgs are supported, but may be slow to perform.",
    },

    // Conductor.
    "conductor.enabled": {
      type: "bool",
      category: COND,
      help: "Enable the conductor service",
    },
    "conductor.rpc": {
      ...RPC_ENDPOINT,
      default: "http://127.0.0.1:8547",
      category: COND,
      help: "Conductor service rpc endpoint",
    },
    "conductor.rpc-timeout": {
      type: "duration",
      default: MS_PER_SECOND,
      category: COND,
      help: "Conductor service rpc timeout",
    },

    // Persistence.
    "safedb.path": {
      ...PATH,
      category: STORE,
      help: "File path used to persist safe head update data. Disabled if not set.",
    },
    "snapshotlog.file": { ...PATH, category: STORE, help: "Path to the snapshot log file" },

    // External signer for P2P messages (op-service/signer/cli.go, op-service/tls/cli.go).
    "signer.address": {
      type: "string",
      validate: (t) => (/^0x[0-9a-fA-F]{40}$/.test(t) ? undefined : "not a 20-byte hex address"),
      expects: "an address (0x + 40 hex digits)",
      category: SIGNER,
      help: "Address the signer is signing requests for",
    },
    "signer.endpoint": { ...HTTP_ENDPOINT, category: SIGNER, help: "Signer endpoint the client will connect to" },
    "signer.header": {
      type: "list",
      validate: eachItem(checkKeyValue),
      expects: "a comma-separated list of key=value headers",
      category: SIGNER,
      help: "Headers to pass to the remote signer, as key=value pairs (comma-separated)",
    },
    "signer.tls.enabled": {
      type: "bool",
      default: true,
      category: SIGNER,
      help: "Enable or disable TLS client authentication for the signer",
    },
    "signer.tls.ca": { ...PATH, default: "tls/ca.crt", category: SIGNER, help: "tls ca cert path" },
    "signer.tls.cert": { ...PATH, default: "tls/tls.crt", category: SIGNER, help: "tls cert path" },
    "signer.tls.key": { ...PATH, default: "tls/tls.key", category: SIGNER, help: "tls key" },

    // Alt-DA (op-alt-da/cli.go).
    "altda.enabled": { type: "bool", category: ALTDA, help: "Enable Alt-DA mode" },
    "altda.da-server": { ...HTTP_ENDPOINT, category: ALTDA, help: "HTTP address of a DA Server" },
    "altda.da-service": {
      type: "bool",
      category: ALTDA,
      help: "Use DA service type where commitments are generated by Alt-DA server",
    },
    "altda.get-timeout": {
      type: "duration",
      default: 0,
      category: ALTDA,
      help: "Timeout for get requests. 0 means no timeout.",
    },
    "altda.put-timeout": {
      type: "duration",
      default: 0,
      category: ALTDA,
      help: "Timeout for put requests. 0 means no timeout.",
    },
    "altda.max-concurrent-da-requests": {
      type: "int",
      min: 1,
      default: 1,
      category: ALTDA,
      help: "Maximum number of concurrent requests to the DA server",
    },
    "altda.verify-on-read": {
      type: "bool",
      default: true,
      category: ALTDA,
      help: "Verify input data matches the commitments from the DA storage service",
    },

    // Interop.
    "interop.dependency-set": {
      ...PATH,
      category: INTEROP,
      help: "Dependency-set configuration, point at JSON file.",
    },
    "interop.jwt-secret": {
      ...PATH,
      category: INTEROP,
      help: "Interop jwt secret path: 32 bytes, hex encoded in a file, for the interop RPC server. Generated if the file is empty.",
    },
    "interop.rpc.addr": {
      ...HOST,
      category: INTEROP,
      help: "Interop Websocket-only RPC listening address, to serve supervisor syncing. Applies only to Interop-enabled networks. Optional, alternative to follow-mode. Warning: this is an experimental flag, do not enable without a supervisor.",
    },
    "interop.rpc.port": {
      ...PORT,
      default: 9645,
      category: INTEROP,
      help: "Interop RPC listening port, to serve supervisor syncing.",
    },
  },
});

export const NODE_FLAGS = NODE_CLI.flags;
export type NodeConfig = InferConfig<typeof NODE_FLAGS>;
export type NodeParseResult = ParseResult<typeof NODE_CLI>;

/**
 * op-node's second env var for --l1.beacon-fallbacks (EnvVars: L1_BEACON_FALLBACKS, L1_BEACON_ARCHIVER;
 * the first one set wins). The table holds one env name per flag, so it is mapped here.
 */
const FALLBACKS_ENV = "OP_NODE_L1_BEACON_FALLBACKS";
const ARCHIVER_ENV = "OP_NODE_L1_BEACON_ARCHIVER";

/**
 * Parses opal-node's argv (without node and script paths); `env` is normally `process.env`.
 * On top of the generic parse: `--l2` must name at least one endpoint, and `--network` excludes
 * `--rollup.config`. Errors are one line naming the option.
 */
export function parseNodeArgs(argv: readonly string[], env: Env, opts: ParseOptions = {}): NodeParseResult {
  const fail = (error: string): NodeParseResult =>
    Object.freeze({ ok: false, kind: "error", error, command: undefined });
  let effectiveEnv = env;
  const archiver = env[ARCHIVER_ENV];
  const fromArchiver = archiver !== undefined && archiver !== "" && (env[FALLBACKS_ENV] ?? "") === "";
  if (archiver !== undefined) {
    const { [ARCHIVER_ENV]: _, ...rest } = env;
    effectiveEnv = fromArchiver ? { ...rest, [FALLBACKS_ENV]: archiver } : rest;
  }
  const r = parseArgs(NODE_CLI, argv, effectiveEnv, opts);
  if (!r.ok) return fromArchiver ? fail(r.error.replace(`$${FALLBACKS_ENV}`, `$${ARCHIVER_ENV}`)) : r;
  if (r.kind !== "run") return r;
  if (r.config.l2.length === 0) {
    return fail(
      r.sources.l2 === "default"
        ? "missing required flag --l2 (or $OP_NODE_L2_ENGINE_RPC)"
        : "flag --l2 needs at least one endpoint URL",
    );
  }
  if (r.config.network !== undefined && r.config["rollup.config"] !== undefined) {
    return fail("flags --network and --rollup.config are mutually exclusive: give only one");
  }
  return r;
}
