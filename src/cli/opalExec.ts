/**
 * `opal-exec`: the OP Stack execution client's entry. Without a command it runs the node
 * (node/execNode.ts) until SIGINT/SIGTERM; commands `init <genesis.json>`, `import <file.rlp>...`,
 * `export <file> [first] [last]`, `genesis` (an OP dev genesis) and `dumpconfig`, as geth's, and
 * `init-state <state.jsonl>` as reth's. Bad input is one line on stderr and
 * exit 2 (usage) or 1 (runtime); never a stack trace.
 */
import { existsSync, readFileSync, type Stats, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type Header, headerHash } from "../block/header.js";
import { Blockchain, ChainError } from "../chain/blockchain.js";
import { type Genesis, genesisBlockOf, parseGenesis } from "../chain/genesis.js";
import { ExportError, exportChain, lowestCanonical } from "../node/exec/chainExport.js";
import { ImportError, importChain } from "../node/exec/chainImport.js";
import { type OpDevGenesisFork, opDevGenesis } from "../node/exec/devGenesis.js";
import { ExecMetrics } from "../node/exec/execMetrics.js";
import { ExecLogger, ExecNode } from "../node/exec/execNode.js";
import { InitStateError, initState, parseHeaderInput } from "../node/exec/initState.js";
import { GETH_METRICS_PATH, MetricsServer } from "../node/metricsServer.js";
import { createPools, type Pools } from "../node/pools.js";
import { PprofServer, ProfileOnExit, validateProfileType } from "../node/pprofServer.js";
import { equalBytes } from "../primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../primitives/hex.js";
import { CachedKv, CHAIN_CACHE } from "../storage/cachedKv.js";
import { type OpenedStore, openStore } from "../storage/engine.js";
import type { KvStore } from "../storage/kv.js";
import { EXEC_FLAGS, type ExecConfig, parseExecArgs } from "./execFlags.js";
import { dumpConfig } from "./flagTable.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io, prepareProcess, processIo, writeAll } from "./processIo.js";

/** An error that ends the run with one line and an exit code. */
export class ExitError extends Error {
  override readonly name = "ExitError";
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

function oneLine(s: string): string {
  return s.replace(/\s*\n\s*/g, " ").trim();
}

function errText(e: unknown): string {
  return oneLine(e instanceof Error ? e.message : String(e));
}

/** Output channels (tests capture them). */

function readInput(path: string, command: string): Uint8Array {
  try {
    return new Uint8Array(readFileSync(path));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file or directory" : code === "EISDIR" ? "is a directory" : errText(e);
    throw new ExitError(`${command}: ${path}: ${why}`, EXIT_USAGE);
  }
}

function loggerOf(config: ExecConfig, io: Io): ExecLogger {
  return new ExecLogger(config.verbosity, config["log.format"], (l) => io.err(l));
}

async function openChaindata(config: ExecConfig): Promise<KvStore> {
  return (await openChaindataStore(config)).kv;
}

async function openChaindataStore(config: ExecConfig): Promise<OpenedStore> {
  try {
    return await openStore(join(config.datadir, "chaindata"), config["db.engine"], { cacheMb: config.cache });
  } catch (e) {
    throw new ExitError(errText(e), EXIT_FAILED);
  }
}

/** `init <genesis.json>`: writes the genesis; the same genesis again is a no-op, another is an error. */
async function runInit(config: ExecConfig, file: string, io: Io): Promise<number> {
  const log = loggerOf(config, io);
  const text = Buffer.from(readInput(file, "init")).toString("utf8");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new ExitError(`init: ${file}: invalid JSON: ${errText(e)}`, EXIT_FAILED);
  }
  let genesis: Genesis;
  try {
    genesis = parseGenesis(json);
  } catch (e) {
    throw new ExitError(`init: ${file}: ${errText(e)}`, EXIT_FAILED);
  }
  const configJson = (json as Record<string, unknown>).config;
  const want = headerHash(genesisBlockOf(genesis).header);
  const kv = await openChaindata(config);
  try {
    let existing: Blockchain | null = null;
    try {
      existing = Blockchain.open(kv);
    } catch (e) {
      if (!(e instanceof ChainError) || !/no chain/.test(e.message)) throw e;
    }
    if (existing !== null) {
      // Checked before anything is written: the store already holds a chain.
      const have = existing.store.canonicalHash(genesis.number);
      if (have === null || !equalBytes(have, want)) {
        throw new ExitError(
          `init: database already holds a chain with another genesis (${have === null ? "none" : bytesToHex(have)}, want ${bytesToHex(want)})`,
          EXIT_FAILED,
        );
      }
      log.info("Genesis already written", { database: "chaindata", hash: want });
    } else {
      const chain = Blockchain.init(kv, genesis, configJson);
      log.info("Successfully wrote genesis state", { database: "chaindata", hash: chain.headBlockHash });
    }
    io.out(bytesToHex(want));
    return EXIT_OK;
  } finally {
    await kv.close();
  }
}

/** Checks up front that every input file is there (a usage error, before the database opens). */
function checkInputs(files: readonly string[], command: string): void {
  for (const f of files) {
    let st: Stats;
    try {
      st = statSync(f);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new ExitError(
        `${command}: ${f}: ${code === "ENOENT" ? "no such file or directory" : errText(e)}`,
        EXIT_USAGE,
      );
    }
    if (st.isDirectory()) throw new ExitError(`${command}: ${f}: is a directory`, EXIT_USAGE);
  }
}

function openChain(kv: KvStore, command: string): Blockchain {
  try {
    return Blockchain.open(kv);
  } catch (e) {
    if (e instanceof ChainError && /no chain/.test(e.message))
      throw new ExitError(`${command}: no chain: run opal-exec init <genesis.json> first`, EXIT_FAILED);
    throw e;
  }
}

/**
 * `import <file.rlp>...`: streams every block of every file (geth's export format, gzip accepted)
 * through block import, canonical in batches (node/exec/chainImport.ts). On a block that fails the
 * blocks before it stay imported (and canonical) and the run fails naming it. As in the node, the
 * sigRecover pool recovers each block's senders alongside its execution and the trieHash pool
 * takes storage tries (`--workers.sigrecover`, `--workers.triehash`).
 */
async function runImport(config: ExecConfig, files: readonly string[], io: Io): Promise<number> {
  const log = loggerOf(config, io);
  checkInputs(files, "import");
  const store = await openChaindataStore(config);
  let pools: Pools | null = null;
  try {
    const chain = openChain(new CachedKv(store.kv, CHAIN_CACHE), "import");
    pools = createPools({
      sigRecoverThreads: config["workers.sigrecover"],
      trieHashThreads: config["workers.triehash"],
      trieStore: store,
    });
    chain.storagePool = pools.storageRoots;
    // The workers start with the import, not under its first block: a cold worker thread takes
    // ~0.1-0.3 s to load, and until then the importing thread recovers every sender itself.
    await Promise.all([pools.sigRecover.warm(), pools.trieHash.warm()]);
    try {
      await importChain(chain, files, log, { recoveryPool: pools.sigRecover, batch: config["import.batch"] });
    } catch (e) {
      if (e instanceof ImportError) throw new ExitError(`import: ${e.message}`, EXIT_FAILED);
      throw e;
    }
    return EXIT_OK;
  } finally {
    await pools?.destroy();
    await store.close();
  }
}

function blockNumberArg(s: string | undefined, what: string): number | undefined {
  if (s === undefined) return undefined;
  if (!/^[0-9]+$/.test(s) || !Number.isSafeInteger(Number(s)))
    throw new ExitError(`export: ${what} block number ${JSON.stringify(s)} is not a non-negative integer`, EXIT_USAGE);
  return Number(s);
}

/** `export <file> [first] [last]`: canonical blocks to a file as geth's export writes them. */
async function runExport(config: ExecConfig, args: readonly string[], io: Io): Promise<number> {
  const log = loggerOf(config, io);
  const [file, firstArg, lastArg] = args;
  const first = blockNumberArg(firstArg, "first");
  const last = blockNumberArg(lastArg, "last");
  const kv = await openChaindata(config);
  try {
    const chain = openChain(kv, "export");
    const head = chain.head.number;
    const from = first ?? lowestCanonical(chain.store, head);
    // geth cmd/geth/chaincmd.go exportChain: a last block above the head is the head.
    const to = Math.min(last ?? head, head);
    const started = Date.now();
    try {
      await exportChain(chain.store, file!, from, to, log);
    } catch (e) {
      if (e instanceof ExportError) throw new ExitError(`export: ${e.message}`, EXIT_FAILED);
      const code = (e as NodeJS.ErrnoException).code;
      throw new ExitError(`export: cannot write ${file}: ${code ?? errText(e)}`, EXIT_FAILED);
    }
    io.err(`Export done in ${Date.now() - started}ms`);
    return EXIT_OK;
  } finally {
    await kv.close();
  }
}

/**
 * `init-state <state.jsonl> --header <file> --genesis <genesis.json>`: a reth-format state dump as
 * the state at the header's block, which becomes the base of the chain (node/exec/initState.ts).
 */
async function runInitState(
  config: ExecConfig,
  dump: string,
  opts: { readonly header: string; readonly "header-hash": string | undefined; readonly genesis: string },
  io: Io,
): Promise<number> {
  const log = loggerOf(config, io);
  checkInputs([dump], "init-state");
  let header: Header;
  let hash: Uint8Array;
  try {
    ({ header, hash } = parseHeaderInput(readInput(opts.header, "init-state")));
  } catch (e) {
    if (e instanceof ExitError) throw e;
    throw new ExitError(`init-state: ${opts.header}: ${errText(e)}`, EXIT_FAILED);
  }
  const wantHash = opts["header-hash"];
  if (wantHash !== undefined) {
    if (!/^0x[0-9a-fA-F]{64}$/.test(wantHash))
      throw new ExitError(`init-state: --header-hash: want 0x and 32 bytes of hex`, EXIT_USAGE);
    if (!equalBytes(hexToBytes(wantHash), hash))
      throw new ExitError(
        `init-state: header hash ${bytesToHex(hash)} does not match --header-hash ${wantHash.toLowerCase()}`,
        EXIT_FAILED,
      );
  }
  let genesisJson: unknown;
  try {
    genesisJson = JSON.parse(Buffer.from(readInput(opts.genesis, "init-state")).toString("utf8"));
  } catch (e) {
    if (e instanceof ExitError) throw e;
    throw new ExitError(`init-state: ${opts.genesis}: invalid JSON: ${errText(e)}`, EXIT_FAILED);
  }
  const configJson = (genesisJson as Record<string, unknown> | null)?.config;
  if (typeof configJson !== "object" || configJson === null)
    throw new ExitError(`init-state: ${opts.genesis}: no config section`, EXIT_FAILED);
  const kv = await openChaindata(config);
  try {
    const r = await initState(kv, { dump, header, configJson }, log);
    io.out(bytesToHex(r.hash));
    return EXIT_OK;
  } catch (e) {
    if (e instanceof InitStateError) throw new ExitError(`init-state: ${e.message}`, EXIT_FAILED);
    throw e;
  } finally {
    await kv.close();
  }
}

function runGenesis(chainId: bigint, fork: OpDevGenesisFork, out: string | undefined, io: Io): number {
  const text = `${JSON.stringify(opDevGenesis({ chainId, fork }), null, 2)}\n`;
  if (out === undefined) {
    io.out(text.trimEnd());
    return EXIT_OK;
  }
  try {
    writeFileSync(out, text);
  } catch (e) {
    throw new ExitError(
      `genesis: cannot write ${out}: ${(e as NodeJS.ErrnoException).code ?? errText(e)}`,
      EXIT_FAILED,
    );
  }
  io.err(`Wrote OP dev genesis (chain id ${chainId}, ${fork} at genesis) to ${out}`);
  return EXIT_OK;
}

/**
 * Runs the node until a signal stops it. One SIGINT/SIGTERM handler covers the whole run, startup
 * included, so there is no moment where a signal meets no handler or a handler that no longer
 * acts; a signal during startup stops the node as soon as it is up, and a second signal exits at once.
 */
async function runNode(config: ExecConfig, warnings: readonly string[], io: Io): Promise<number> {
  const log = loggerOf(config, io);
  for (const w of warnings) log.warn(w);
  let signal: NodeJS.Signals | null = null;
  let up: ExecNode | null = null;
  let stopping: Promise<void> | null = null;
  let wake: () => void = () => undefined;
  const signalled = new Promise<void>((r) => {
    wake = r;
  });
  const stop = (node: ExecNode): Promise<void> => {
    stopping ??= (async () => {
      log.info("Got interrupt, shutting down...", { signal });
      await node.stopWithDeadline();
    })();
    return stopping;
  };
  const onSignal = (sig: NodeJS.Signals): void => {
    if (signal !== null) {
      log.warn("Already shutting down, forcing exit", { signal: sig });
      process.exit(1);
    }
    signal = sig;
    wake();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  const owned: Service[] = [];
  const closeOwned = async (): Promise<void> => {
    for (const o of owned.splice(0).reverse()) await o.close().catch(() => undefined);
  };
  try {
    try {
      // A profile from startup (--pprof.type) starts before the node does.
      validateProfileType(config["pprof.type"]);
      if (config["pprof.type"] !== undefined) {
        const p = new ProfileOnExit(
          { "pprof.type": config["pprof.type"], "pprof.path": config["pprof.path"] },
          { log },
        );
        p.start();
        owned.push(p);
        log.info("Profiling until shutdown", { type: p.type, file: p.path });
      } else if (config["pprof.path"] !== undefined) {
        log.warn("--pprof.path has no effect without --pprof.type");
      }
      up = await ExecNode.start(config, { logger: log, print: (t) => io.out(t) });
    } catch (e) {
      await closeOwned();
      throw e;
    }
    const node = up;
    try {
      await startServices(config, node, log, owned);
    } catch (e) {
      await node.stopWithDeadline();
      await closeOwned();
      throw new ExitError(errText(e), EXIT_FAILED);
    }
    await signalled;
    await stop(node);
    await closeOwned();
    return EXIT_OK;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

interface Service {
  close(): Promise<void>;
}

/**
 * --metrics (geth: collected; served by a stand-alone server on --metrics.addr, else on the pprof
 * server at /debug/metrics/prometheus) and --pprof.enabled (op-node's profiler server).
 */
async function startServices(config: ExecConfig, node: ExecNode, log: ExecLogger, owned: Service[]): Promise<void> {
  let metrics: ExecMetrics | null = null;
  if (config.metrics) {
    metrics = new ExecMetrics({
      pools: () => [
        node.pools.sigRecover,
        node.pools.trieHash,
        ...(node.pools.evmCall === null ? [] : [node.pools.evmCall]),
      ],
      head: () => node.chain.head.number,
      importTimings: () => node.chain.importTimings,
    });
    const addr = config["metrics.addr"];
    if (addr !== undefined && addr !== "") {
      const server = new MetricsServer({ addr, port: config["metrics.port"] }, { metrics });
      const a = await server.listen();
      owned.push(server);
      log.info("Starting metrics server", { addr: `http://${a.address}:${a.port}${GETH_METRICS_PATH}` });
    } else if (!config["pprof.enabled"]) {
      log.warn("--metrics is set but nothing serves the metrics: add --metrics.addr or --pprof.enabled");
    }
  }
  if (config["pprof.enabled"]) {
    const server = new PprofServer(
      { "pprof.addr": config["pprof.addr"], "pprof.port": config["pprof.port"] },
      { log, metrics },
    );
    await server.listen(); // logs its own address
    owned.push(server);
  }
}

/** Runs opal-exec; returns the exit status. `argv` excludes `node` and the script. */
export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  io: Io = processIo,
): Promise<number> {
  const parsed = parseExecArgs(argv, env);
  try {
    switch (parsed.kind) {
      case "help":
      case "version":
        io.out(parsed.text.trimEnd());
        return EXIT_OK;
      case "error": {
        const hint = parsed.command === undefined ? "opal-exec --help" : `opal-exec ${parsed.command} --help`;
        io.err(`opal-exec: ${oneLine(parsed.error)} (see '${hint}')`);
        return EXIT_USAGE;
      }
      case "run":
        return await runNode(parsed.config, parsed.warnings, io);
      case "command":
        switch (parsed.command) {
          case "init":
            return await runInit(parsed.config, parsed.args[0]!, io);
          case "import":
            return await runImport(parsed.config, parsed.args, io);
          case "export":
            return await runExport(parsed.config, parsed.args, io);
          case "init-state":
            return await runInitState(parsed.config, parsed.args[0]!, parsed.options, io);
          case "genesis":
            return runGenesis(parsed.options.chainid, parsed.options.fork, parsed.options.out, io);
          case "dumpconfig":
            io.out(dumpConfig(EXEC_FLAGS, parsed.config));
            return EXIT_OK;
        }
    }
  } catch (e) {
    if (e instanceof ExitError) {
      io.err(`opal-exec: ${e.message}`);
      return e.code;
    }
    io.err(`opal-exec: ${errText(e)}`);
    return EXIT_FAILED;
  }
  return EXIT_FAILED;
}

/** Runs `main` for a process and sets its exit status; no stack trace reaches the user. */
export async function runProcess(argv: readonly string[]): Promise<void> {
  try {
    if (prepareProcess("opal-exec")) process.exitCode = await main(argv);
  } catch (e) {
    writeAll(2, `opal-exec: internal error: ${errText(e)}\n`);
    process.exitCode = EXIT_FAILED;
  }
  // Worker pools and sockets are closed by now; exit without waiting for stray handles.
  process.exit();
}

// Run when this file is the process entry; the launcher bin/opal-exec.mjs calls runProcess itself.
const entry = process.argv[1];
if (entry !== undefined && existsSync(entry) && import.meta.url === pathToFileURL(resolve(entry)).href) {
  await runProcess(process.argv.slice(2));
}
