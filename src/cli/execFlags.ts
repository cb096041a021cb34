/**
 * The opal-exec flag table: op-geth's flag names, defaults and help categories, checked against
 * op-geth at 7b56c731 (2024-10-23). Env vars are derived: `--http.port` → `$OPAL_EXEC_HTTP_PORT`.
 * Values: durations in milliseconds, wei/chain ids/u64 gas caps as bigint, counts as number.
 * Deliberate differences from geth: --datadir defaults to ~/.opal (geth: ~/.ethereum), and
 * --http.api/--ws.api show the effective default "eth,net,web3" (geth's flag shows "" and
 * node.DefaultConfig supplies net,web3 plus eth from cmd/geth/config.go).
 */
import { availableParallelism } from "node:os";
import { IMPORT_BATCH } from "../node/exec/chainImport.js";
import { OP_DEV_GENESIS_FORKS } from "../node/exec/devGenesis.js";
import type { ExecNodeConfig } from "../node/exec/execNode.js";
import { defaultThreads } from "../node/pools.js";
import type { PprofServerConfig, ProfileOnExitConfig } from "../node/pprofServer.js";
import { DB_ENGINES } from "../storage/engine.js";
import { METRICS, PPROF_FLAGS } from "./commonFlags.js";
import { type Assert, defineCli, type InferConfig, MS_PER_HOUR, MS_PER_SECOND, type Supplies } from "./flagTable.js";
import { type Env, type ParseOptions, type ParseResult, parseArgs } from "./parseArgs.js";
import { OPAL_VERSION } from "./version.js";

export { OPAL_VERSION };

/** `--workers.*` default: all cores but one (node/pools.ts). */
const WORKER_THREADS = defaultThreads(availableParallelism());
const WORKERS_DEFAULT_TEXT = "CPU cores - 1, at least 1";

// Help categories, as op-geth names them (internal/flags/categories.go).
const ETH = "ETHEREUM";
const DEV = "DEVELOPER CHAIN";
const API = "API AND CONSOLE";
const TXPOOL = "TRANSACTION POOL (EVM)";
const PERF = "PERFORMANCE TUNING";
const GPO = "GAS PRICE ORACLE";
const MINER = "BLOCK BUILDER";
const ROLLUP = "ROLLUP NODE";
const LOG = "LOGGING AND DEBUGGING";
const NET = "NETWORKING";

export const EXEC_CLI = defineCli({
  name: "opal-exec",
  version: OPAL_VERSION,
  usage: "OP Stack execution client",
  envPrefix: "OPAL_EXEC",
  flags: {
    // op-geth cmd/utils/flags.go DataDirFlag, NetworkIdFlag; eth/ethconfig/config.go (NetworkId 0).
    datadir: {
      type: "path",
      default: "~/.opal",
      category: ETH,
      help: "Data directory for the database and keys (geth's default is ~/.ethereum)",
    },
    "db.engine": {
      type: "enum",
      values: DB_ENGINES,
      default: "rocksdb",
      category: ETH,
      help: "Backing database implementation to use ('rocksdb' or 'lmdb'); a data directory keeps the engine it was made with",
    },
    networkid: {
      type: "uint64",
      default: 0n,
      category: ETH,
      help: "Explicitly set network id (0 = the chain id of the genesis)",
    },

    // cmd/utils/flags.go DeveloperFlag, DeveloperPeriodFlag, DeveloperGasLimitFlag (Value 11500000).
    dev: {
      type: "bool",
      category: DEV,
      help: "Ephemeral OP Stack dev chain with a pre-funded developer account, producing its own blocks",
    },
    "dev.period": {
      type: "int",
      default: 0,
      min: 0,
      category: DEV,
      help: "Block period in seconds to use in developer mode (0 = build a block only when a transaction is pending)",
    },
    "dev.safe-lag": {
      type: "int",
      default: 8,
      min: 0,
      category: DEV,
      help: "Blocks behind the head that dev mode marks safe (as a real L1's safe head lags)",
    },
    "dev.finalized-lag": {
      type: "int",
      default: 16,
      min: 0,
      category: DEV,
      help: "Blocks behind the head that dev mode marks finalized",
    },
    "dev.beacon": {
      type: "bool",
      category: DEV,
      help: "Serve the beacon API a rollup node reads blobs from (genesis, spec, blob sidecars), and accept blob transactions",
    },
    "dev.beacon.addr": {
      type: "string",
      default: "127.0.0.1",
      category: DEV,
      help: "Beacon API listening address (with --dev.beacon)",
    },
    "dev.beacon.port": {
      type: "int",
      default: 5052,
      min: 0,
      max: 65535,
      category: DEV,
      help: "Beacon API listening port (with --dev.beacon; 0 = any free port)",
    },
    "dev.gaslimit": {
      type: "uint64",
      default: 11_500_000n,
      category: DEV,
      help: "Initial block gas limit; later dev blocks move towards it",
    },

    // cmd/utils/flags.go MinerGasLimitFlag; miner.DefaultConfig.GasCeil (60M from geth 1.16).
    "miner.gaslimit": {
      type: "uint64",
      default: 60_000_000n,
      category: MINER,
      help: "Target gas ceiling for blocks built for the Engine API on chains without a gas limit in the attributes",
    },

    // cmd/utils/flags.go HTTP*/WS*/Auth* flags; node/defaults.go (DefaultHTTPHost/Port, DefaultWSPort,
    // DefaultAuthHost/Port, DefaultAuthVhosts, HTTPVirtualHosts); cmd/geth/config.go adds "eth" to the modules.
    http: { type: "bool", category: API, help: "Enable the HTTP-RPC server" },
    "http.addr": { type: "string", default: "localhost", category: API, help: "HTTP-RPC server listening interface" },
    "http.port": {
      type: "int",
      default: 8545,
      min: 0,
      max: 65535,
      category: API,
      help: "HTTP-RPC server listening port",
    },
    "http.api": {
      type: "list",
      default: ["eth", "net", "web3"],
      category: API,
      help: "API's offered over the HTTP-RPC interface",
    },
    "http.corsdomain": {
      type: "list",
      default: [],
      category: API,
      help: "Comma separated list of domains from which to accept cross origin requests (browser enforced)",
    },
    "http.vhosts": {
      type: "list",
      default: ["localhost"],
      category: API,
      help: "Comma separated list of virtual hostnames from which to accept requests (server enforced). Accepts '*' wildcard.",
    },
    ws: { type: "bool", category: API, help: "Enable the WS-RPC server" },
    "ws.addr": { type: "string", default: "localhost", category: API, help: "WS-RPC server listening interface" },
    "ws.port": {
      type: "int",
      default: 8546,
      min: 0,
      max: 65535,
      category: API,
      help: "WS-RPC server listening port",
    },
    "ws.api": {
      type: "list",
      default: ["eth", "net", "web3"],
      category: API,
      help: "API's offered over the WS-RPC interface",
    },
    "ws.origins": {
      type: "list",
      default: [],
      category: API,
      help: "Origins from which to accept websockets requests",
    },
    "authrpc.addr": {
      type: "string",
      default: "localhost",
      category: API,
      help: "Listening address for authenticated APIs",
    },
    "authrpc.port": {
      type: "int",
      default: 8551,
      min: 0,
      max: 65535,
      category: API,
      help: "Listening port for authenticated APIs",
    },
    "authrpc.jwtsecret": {
      type: "path",
      category: API,
      help: "Path to a JWT secret to use for authenticated RPC endpoints",
    },
    "authrpc.vhosts": {
      type: "list",
      default: ["localhost"],
      category: API,
      help: "Comma separated list of virtual hostnames from which to accept requests (server enforced). Accepts '*' wildcard.",
    },
    // Opal's own: op-geth and op-reth answer forkchoiceUpdated without an fsync (geth writes the head
    // through; reth persists behind the tree), so a power cut can take their last heads too.
    "engine.fsync-forkchoice": {
      type: "bool",
      category: API,
      help: "Sync the database to disk before answering each engine_forkchoiceUpdated that moves the head or a label, so every answered head survives power loss (off: head changes reach the disk within 1 s, as op-geth and op-reth keep them, and the rollup node sends lost blocks again)",
    },
    // cmd/utils/flags.go RPCGlobal*; eth/ethconfig/config.go (RPCGasCap 50000000, RPCEVMTimeout 5s,
    // RPCTxFeeCap 1 ether); node/defaults.go (BatchRequestLimit 1000, BatchResponseMaxSize 25000000).
    "rpc.gascap": {
      type: "uint64",
      default: 50_000_000n,
      category: API,
      help: "Sets a cap on gas that can be used in eth_call/estimateGas (0=infinite)",
    },
    "rpc.txfeecap": {
      type: "float",
      default: 1,
      min: 0,
      category: API,
      help: "Sets a cap on transaction fee (in ether) that can be sent via the RPC APIs (0 = no cap)",
    },
    "rpc.evmtimeout": {
      type: "duration",
      default: 5 * MS_PER_SECOND,
      category: API,
      help: "Sets a timeout used for eth_call (0=infinite)",
    },
    // cmd/utils/flags.go AllowUnprotectedTxs (node.Config.AllowUnprotectedTxs, false; --dev leaves it
    // off too): eth_sendRawTransaction refuses pre-EIP-155 legacy txs unless it is given.
    "rpc.allow-unprotected-txs": {
      type: "bool",
      category: API,
      help: "Allow for unprotected (non EIP155 signed) transactions to be submitted via RPC",
    },
    // cmd/utils/flags.go RPCGlobalLogQueryLimit (geth #32327, 2025-09) and RPCGlobalRangeLimitFlag
    // (geth #33163, 2026-01), newer than the op-geth above: ethconfig LogQueryLimit 1000, RangeLimit 0.
    "rpc.logquerylimit": {
      type: "int",
      default: 1000,
      min: 0,
      category: API,
      help: "Maximum number of alternative addresses or topics allowed per search position in eth_getLogs filter criteria (0 = no cap)",
    },
    "rpc.rangelimit": {
      type: "int",
      default: 0,
      min: 0,
      category: API,
      help: "Maximum block range (end - begin) allowed for range queries (0 = unlimited)",
    },
    "rpc.batch-request-limit": {
      type: "int",
      default: 1000,
      min: 0,
      category: API,
      help: "Maximum number of requests in a batch",
    },
    "rpc.batch-response-max-size": {
      type: "int",
      default: 25_000_000,
      min: 0,
      category: API,
      // geth's usage text; Opal also holds each single reply of the HTTP and WebSocket servers to it
      // (issue 26: -32003 "response too large"), docs/limits.md.
      help: "Maximum number of bytes returned from a batched call (and, in Opal, from any one call)",
    },
    // cmd/utils/flags.go HTTPBodyLimitFlag (geth #35224, v1.17.5; node.DefaultConfig.HTTPBodyLimit
    // 5 MiB): the HTTP server's body limit; the Engine API keeps its 128 MiB.
    "rpc.http-body-limit": {
      type: "int",
      default: 5,
      min: 0,
      category: API,
      help: "Maximum size (in megabytes) of an HTTP request body",
    },

    // cmd/utils/flags.go TxPool*; core/txpool/legacypool/legacypool.go DefaultConfig.
    "txpool.nolocals": {
      type: "bool",
      category: TXPOOL,
      help: "Disables the tracking and re-submission of locally submitted transactions",
    },
    "txpool.pricelimit": {
      type: "uint64",
      default: 1n,
      category: TXPOOL,
      help: "Minimum gas price tip to enforce for acceptance into the pool",
    },
    "txpool.pricebump": {
      type: "int",
      default: 10,
      min: 0,
      category: TXPOOL,
      help: "Price bump percentage to replace an already existing transaction",
    },
    "txpool.accountslots": {
      type: "int",
      default: 16,
      min: 0,
      category: TXPOOL,
      help: "Minimum number of executable transaction slots guaranteed per account",
    },
    "txpool.globalslots": {
      type: "int",
      default: 5120,
      min: 0,
      category: TXPOOL,
      help: "Maximum number of executable transaction slots for all accounts",
    },
    "txpool.accountqueue": {
      type: "int",
      default: 64,
      min: 0,
      category: TXPOOL,
      help: "Maximum number of non-executable transaction slots permitted per account",
    },
    "txpool.globalqueue": {
      type: "int",
      default: 1024,
      min: 0,
      category: TXPOOL,
      help: "Maximum number of non-executable transaction slots for all accounts",
    },
    "txpool.lifetime": {
      type: "duration",
      default: 3 * MS_PER_HOUR,
      category: TXPOOL,
      help: "Maximum amount of time non-executable transaction are queued",
    },

    // cmd/utils/flags.go CacheFlag (Value 1024). Opal spends 1/32 of it on RocksDB's memtables
    // (storage/engine.ts MEMTABLE_CACHE_DIVISOR); the execution read cache (storage/cachedKv.ts) is
    // bounded in entries, not by this flag yet, and so are the trieHash workers' trie caches
    // (WORKER_TRIE_CACHE: ≤ 34 MB a worker, plus the 8 MiB write log once; docs/design/storage.md).
    cache: {
      type: "int",
      default: 1024,
      min: 0,
      category: PERF,
      help: "Megabytes of memory allocated to internal caching (RocksDB's memtables take 1/32)",
    },
    // Opal only: geth's importBatchSize (cmd/utils ImportChain) as a flag, so a run can commit sooner.
    "import.batch": {
      type: "int",
      default: IMPORT_BATCH,
      min: 1,
      category: PERF,
      help: "Blocks `opal-exec import` makes canonical per commit (geth: 2500)",
    },
    // Opal only: worker pools (node/pools.ts defaultThreads).
    "workers.sigrecover": {
      type: "int",
      default: WORKER_THREADS,
      min: 1,
      defaultText: WORKERS_DEFAULT_TEXT,
      category: PERF,
      help: "Worker threads for batched transaction sender recovery",
    },
    "workers.triehash": {
      type: "int",
      default: WORKER_THREADS,
      min: 1,
      defaultText: WORKERS_DEFAULT_TEXT,
      category: PERF,
      help: "Worker threads for state trie hashing",
    },
    "workers.evmcall": {
      type: "int",
      default: WORKER_THREADS,
      min: 0,
      defaultText: WORKERS_DEFAULT_TEXT,
      category: PERF,
      help: "Worker threads for read-only execution (eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1, debug_traceCall, trace_call); 0 runs them on the main thread",
    },
    "rpc.callcache": {
      type: "int",
      default: 4096,
      min: 0,
      category: PERF,
      help: "Replies of read-only calls kept for the current head and reused for identical requests (0: none; needs --workers.evmcall > 0)",
    },
    "workers.evmcall.inline": {
      type: "duration",
      default: 1,
      category: PERF,
      help: "Time an eth_call may run on the main thread before it is stopped and handed to the evmCall pool (0 or less: every call goes to the pool; needs --workers.evmcall > 0)",
    },
    "workers.evmcall.queue": {
      type: "int",
      default: 64,
      min: 1,
      category: PERF,
      help: "Read-only calls that may wait for a worker; more are refused with error -32005",
    },

    // cmd/utils/flags.go Gpo*; eth/ethconfig/config.go FullNodeGPO (20 blocks, 60th percentile);
    // eth/gasprice/gasprice.go (DefaultMaxPrice 500 gwei, DefaultIgnorePrice 2 wei,
    // DefaultMinSuggestedPriorityFee 1e6 wei, op-geth only).
    "gpo.blocks": {
      type: "int",
      default: 20,
      min: 1,
      category: GPO,
      help: "Number of recent blocks to check for gas prices",
    },
    "gpo.percentile": {
      type: "int",
      default: 60,
      min: 0,
      max: 100,
      category: GPO,
      help: "Suggested gas price is the given percentile of a set of recent transaction gas prices",
    },
    "gpo.maxprice": {
      type: "bigint",
      default: 500_000_000_000n,
      min: 0n,
      category: GPO,
      help: "Maximum transaction priority fee (or gasprice before London fork) to be recommended by gpo",
    },
    "gpo.ignoreprice": {
      type: "bigint",
      default: 2n,
      min: 0n,
      category: GPO,
      help: "Gas price below which gpo will ignore transactions",
    },
    "gpo.minsuggestedpriorityfee": {
      type: "bigint",
      default: 1_000_000n,
      min: 0n,
      category: GPO,
      help: "Minimum transaction priority fee to suggest. Used on OP chains when blocks are not full.",
    },

    // geth cmd/utils/flags.go ListenPortFlag, DiscoveryPortFlag, BootnodesFlag, NoDiscoverFlag,
    // DiscoveryV4Flag, DiscoveryV5Flag, MaxPeersFlag, NetrestrictFlag, NATFlag, NodeKeyFileFlag,
    // NodeKeyHexFlag (p2p is off in --dev, as geth's developer mode turns it off).
    port: { type: "int", default: 30303, min: 0, max: 65535, category: NET, help: "Network listening port" },
    "discovery.port": {
      type: "int",
      default: 30303,
      min: 0,
      max: 65535,
      category: NET,
      help: "Use a custom UDP port for P2P discovery (discv5 takes the next port when both run)",
    },
    bootnodes: {
      type: "list",
      default: [],
      category: NET,
      help: "Comma separated enode URLs (or enr: records) for P2P discovery bootstrap; the OP chains' execution-layer bootnodes when empty",
    },
    nodiscover: {
      type: "bool",
      category: NET,
      help: "Disables the peer discovery mechanism (manual peer addition)",
    },
    "discovery.v4": { type: "bool", default: true, category: NET, help: "Enables the V4 discovery mechanism" },
    "discovery.v5": { type: "bool", default: true, category: NET, help: "Enables the V5 discovery mechanism" },
    maxpeers: {
      type: "int",
      default: 50,
      min: 0,
      category: NET,
      help: "Maximum number of network peers (network disabled if set to 0)",
    },
    netrestrict: {
      type: "string",
      category: NET,
      help: "Restricts network communication to the given IP networks (CIDR masks)",
    },
    nat: {
      type: "string",
      default: "any",
      category: NET,
      validate: (v) =>
        /^(any|none|upnp|pmp|extip:[0-9a-fA-F.:]+)$/.test(v)
          ? undefined
          : "expected any, none, upnp, pmp or extip:<IP>",
      help: "NAT port mapping mechanism (any|none|upnp|pmp|extip:<IP>); only extip changes the announced address here",
    },
    nodekey: {
      type: "path",
      category: NET,
      help: "P2P node key file (default: <datadir>/nodekey, created when missing)",
    },
    // Opal's: until a consensus client calls the Engine API, sync towards the best eth/69 peer's head.
    "sync.followpeers": {
      type: "bool",
      default: true,
      category: NET,
      help: "Before a consensus client names a head over the Engine API, sync towards the highest head eth/69 peers announce (Opal; its first forkchoice ends this)",
    },
    // reth --debug.tip: a block hash to sync to with no consensus client.
    "debug.tip": {
      type: "string",
      category: NET,
      validate: (v) =>
        /^0x[0-9a-fA-F]{64}$/.test(v) ? undefined : "expected a 32-byte block hash (0x + 64 hex digits)",
      help: "Block hash to sync to over devp2p without a consensus client (as reth's --debug.tip)",
    },

    // op-geth cmd/utils/flags.go Rollup* (historicalrpctimeout is a string "5s" there, parsed as a duration).
    "rollup.sequencerhttp": {
      type: "string",
      category: ROLLUP,
      help: "HTTP endpoint for the sequencer mempool",
    },
    "rollup.historicalrpc": { type: "string", category: ROLLUP, help: "RPC endpoint for historical data." },
    "rollup.historicalrpctimeout": {
      type: "duration",
      default: 5 * MS_PER_SECOND,
      category: ROLLUP,
      help: "Timeout for historical RPC requests.",
    },
    "rollup.disabletxpoolgossip": { type: "bool", category: ROLLUP, help: "Disable transaction pool gossip." },
    "rollup.computependingblock": {
      type: "bool",
      category: ROLLUP,
      help: "Compute the pending block from the tx-pool (by default the pending block equals the latest block, which saves resources and does not leak tx-pool transactions)",
    },
    "rollup.halt": {
      type: "enum",
      values: ["major", "minor", "patch", "none"],
      category: ROLLUP,
      help: "Opt-in option to halt on incompatible protocol version requirements of the given level, as signaled through the Engine API by the rollup node",
    },
    // op-geth cmd/utils/flags.go RollupSequencerTxConditionalEnabledFlag, …CostRateLimitFlag (Value 5000).
    "rollup.sequencertxconditionalenabled": {
      type: "bool",
      category: ROLLUP,
      help: "Serve the eth_sendRawTransactionConditional endpoint and apply the conditional constraints on mempool inclusion & block building",
    },
    "rollup.sequencertxconditionalcostratelimit": {
      type: "int",
      default: 5000,
      category: ROLLUP,
      help: "Maximum cost -- storage lookups -- allowed for conditional transactions in a given second",
    },

    // internal/debug/flags.go verbosityFlag (Value 3), logFormatFlag (no default there: "" = terminal).
    verbosity: {
      type: "int",
      default: 3,
      min: 0,
      max: 5,
      category: LOG,
      help: "Logging verbosity: 0=silent, 1=error, 2=warn, 3=info, 4=debug, 5=detail",
    },
    "log.format": {
      type: "enum",
      values: ["terminal", "logfmt", "json"],
      default: "terminal",
      category: LOG,
      help: "Log format to use",
    },

    // Profiling: op-node's options (issue 9: one set for both binaries).
    ...PPROF_FLAGS,
    // Metrics: geth's (metrics/config.go: Enabled false, HTTP "127.0.0.1", Port 6060; the
    // stand-alone server starts only when --metrics.addr is given, else the series are on the
    // pprof server at /debug/metrics/prometheus).
    metrics: { type: "bool", category: METRICS, help: "Enable metrics collection and reporting" },
    "metrics.addr": {
      type: "string",
      category: METRICS,
      help: "Enable stand-alone metrics HTTP server listening interface",
    },
    "metrics.port": {
      type: "int",
      default: 6060,
      min: 0,
      max: 65535,
      category: METRICS,
      help: "Metrics HTTP server listening port",
    },
  },
  commands: {
    init: {
      help: "Bootstrap and initialize a new genesis block",
      description:
        "Writes the genesis block and its state from a geth-style genesis.json (with the optimism config section) into the data directory.",
      args: [{ name: "genesis.json" }],
    },
    import: {
      help: "Import a blockchain file",
      description:
        "Imports blocks from files in geth's export format (RLP-encoded blocks, concatenated; gzip accepted) in order, executing and validating each and making them canonical in batches of 2500. Blocks already in the database are skipped, so a stopped import resumes; a block that does not link to the chain, an invalid block or a truncated file stops it, with every block before it kept.",
      args: [{ name: "file.rlp", variadic: true }],
    },
    export: {
      help: "Export blockchain into file",
      description:
        "Writes canonical blocks first..last (default: the whole chain; last defaults to the head) as geth's export does: RLP-encoded blocks, concatenated, gzip-compressed when the file name ends with .gz.",
      args: [{ name: "file" }, { name: "first", optional: true }, { name: "last", optional: true }],
    },
    "init-state": {
      help: "Initialize the state from a state dump",
      description:
        "Imports a state dump in reth's JSONL format (a {\"root\"} line, then one account per line: address, balance, nonce, code, storage; gzip accepted) as the state at the block of --header, into an empty data directory, checking the computed state root against the header's. That block becomes the head (and safe, finalized) block, the base later blocks build on; op-reth's init-state --without-ovm for OP Mainnet's Bedrock block.",
      args: [{ name: "state.jsonl" }],
      flags: {
        header: {
          type: "path",
          required: true,
          help: "File holding the block header the state belongs to: its RLP (binary or 0x hex) or JSON as eth_getBlockByNumber returns it",
        },
        "header-hash": {
          type: "string",
          help: "Hash the header must have (reth's --header-hash); refused when it differs",
        },
        genesis: {
          type: "path",
          required: true,
          help: "The chain's genesis.json, for its config section (the chain config the node runs with; its alloc is not used)",
        },
      },
    },
    genesis: {
      help: "Write an OP Stack dev genesis",
      description: "Writes a genesis.json for a local OP Stack dev chain.",
      flags: {
        out: { type: "path", help: "File to write the genesis to (standard output when not set)" },
        chainid: {
          type: "uint64",
          default: 901n,
          help: "Chain id of the dev chain (901: the OP Stack devnet L2 chain id)",
        },
        fork: {
          type: "enum",
          values: OP_DEV_GENESIS_FORKS,
          default: "isthmus",
          help: "Newest OP fork active at genesis, with every earlier one (karst: Osaka's EVM on L2, osakaTime = karstTime)",
        },
      },
    },
    dumpconfig: {
      help: "Print the resolved configuration as JSON",
      description: "Prints every flag's value after flags, environment and defaults are applied.",
    },
  },
});

export const EXEC_FLAGS = EXEC_CLI.flags;
export type ExecConfig = InferConfig<typeof EXEC_FLAGS>;

/**
 * The option types of node/ that `ExecConfig` is passed as (opalExec.ts): a flag renamed, removed
 * or retyped beyond what its reader takes fails to compile here.
 */
export type ExecConfigChecks = [
  Assert<Supplies<ExecConfig, ExecNodeConfig>>,
  Assert<Supplies<ExecConfig, PprofServerConfig>>,
  Assert<Supplies<ExecConfig, ProfileOnExitConfig>>,
];

export type ExecParseResult = ParseResult<typeof EXEC_CLI>;

/** Parses opal-exec's argv (without node and script paths); `env` is normally `process.env`. */
export function parseExecArgs(argv: readonly string[], env: Env, opts: ParseOptions = {}): ExecParseResult {
  return parseArgs(EXEC_CLI, argv, env, opts);
}
