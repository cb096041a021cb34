/**
 * The `opal-node` command (op-node's role): parses and validates every option of spec part 4B
 * (cli/nodeFlags.ts), resolves the rollup config, starts the node shell (node/rollupNode.ts) with
 * its metrics and profiler servers, and runs until SIGINT/SIGTERM. Bad input is one line on stderr
 * naming the option, exit 2 for usage errors and 1 for startup failures; never a stack trace.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import {
  forkTimeFields,
  loadL1ChainConfig,
  nodeRollupConfigOf,
  type RollupConfigFlags,
  RollupNode,
  resolveRollupConfig,
} from "../node/rollup/rollupNode.js";
import type { RollupFork } from "../rollup/config/rollupConfig.js";
import type { ChainConfig } from "../spec/chainConfig.js";
import { batchDecodeMain } from "./batchDecode.js";
import { networksMain } from "./networks.js";
import { type NodeConfig, parseNodeArgs } from "./nodeFlags.js";
import { type NodeServices, startNodeServices } from "./nodeServices.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io, processIo, runAsProcess } from "./processIo.js";
import { OPAL_VERSION } from "./version.js";

/** optimism_version and /healthz: op-node's "<version>-<meta>". */
export const NODE_VERSION = `v${OPAL_VERSION}-opal`;

/** The `--override.<fork>` flags by rollup fork name. */
function overridesOf(c: NodeConfig): Partial<Record<RollupFork, bigint>> {
  return {
    canyon: c["override.canyon"],
    delta: c["override.delta"],
    ecotone: c["override.ecotone"],
    fjord: c["override.fjord"],
    granite: c["override.granite"],
    holocene: c["override.holocene"],
    isthmus: c["override.isthmus"],
    interop: c["override.interop"],
    jovian: c["override.jovian"],
    karst: c["override.karst"],
    pectraBlobSchedule: c["override.pectrablobschedule"],
  };
}

/** What selects the rollup config in a parsed opal-node config (`resolveRollupConfig`'s input). */
export function rollupConfigFlagsOf(c: NodeConfig): RollupConfigFlags {
  return {
    network: c.network,
    "rollup.config": c["rollup.config"],
    overrides: overridesOf(c),
    keepKarstUpgradeGas: c["override.keep-karst-upgrade-gas"],
  };
}

/** Starts the node and waits for a signal; returns the exit status. */
async function runNode(config: NodeConfig, warnings: readonly string[], io: Io): Promise<number> {
  let services: NodeServices;
  try {
    services = await startNodeServices(config, NODE_VERSION, io);
  } catch (e) {
    io.err(`opal-node: ${(e as Error).message}`);
    return EXIT_FAILED;
  }
  const { log } = services;
  for (const w of warnings) log.warn(w);
  let node: RollupNode;
  try {
    const rollup = resolveRollupConfig(rollupConfigFlagsOf(config));
    const l1ConfigPath = config["rollup.l1-chain-config"];
    let l1ChainConfig: ChainConfig | null = null;
    if (l1ConfigPath !== undefined) {
      l1ChainConfig = loadL1ChainConfig(l1ConfigPath, rollup.l1ChainId);
      log.info("L1 chain config", { chain_id: l1ChainConfig.chainId, file: l1ConfigPath });
    }
    log.info("Rollup config", {
      network: config.network ?? config["rollup.config"],
      l1_chain_id: rollup.l1ChainId,
      l2_chain_id: rollup.l2ChainId,
      block_time: rollup.blockTime,
      ...forkTimeFields(rollup),
      ...(rollup.karstTime === null ? {} : { keep_karst_upgrade_gas: rollup.keepKarstUpgradeGas }),
    });
    node = await RollupNode.start(config, {
      log,
      rollup: nodeRollupConfigOf(rollup),
      version: NODE_VERSION,
      metrics: services.metrics,
      setLogLevel: services.setLogLevel,
      services: services.owned,
      l1ChainConfig,
      derivationMetrics: services.metrics,
      p2pMetrics: services.metrics,
    });
  } catch (e) {
    await services.close();
    io.err(`opal-node: ${(e as Error).message}`);
    return EXIT_FAILED;
  }
  services.metrics.recordUp();
  log.info("Rollup node started", { version: NODE_VERSION });
  let haltReason: string | null = null;
  await new Promise<void>((done) => {
    void node.halted.then((reason) => {
      haltReason = reason;
      log.error("Halting the node", { reason });
      node.stop().then(done, () => done());
    });
    let got = false;
    const onSignal = (sig: NodeJS.Signals): void => {
      if (got) {
        log.warn("Already shutting down, forcing exit", { signal: sig });
        process.exit(1);
      }
      got = true;
      log.info("Received signal, shutting down", { signal: sig });
      const deadline = setTimeout(() => {
        log.error("Shutdown timed out, exiting");
        process.exit(1);
      }, 15_000);
      deadline.unref();
      node.stop().then(done, (e: unknown) => {
        log.error("Shutdown failed", { err: String(e) });
        done();
      });
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
  if (haltReason !== null) {
    io.err(`opal-node: ${haltReason}`);
    return EXIT_FAILED;
  }
  return EXIT_OK;
}

/** The subcommands, appended to `--help` (the flag table describes the node's own options only). */
export const COMMANDS_HELP = `COMMANDS:
  batch-decode FILE...  decode batcher transactions, frames and channels to JSON (batch-decode --help)
  networks              list the --network names with chain id, L1 and fork times (networks --help)`;

/** Runs opal-node; returns the exit status. `argv` excludes `node` and the script. */
export async function main(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  io: Io = processIo,
): Promise<number> {
  if (argv[0] === "batch-decode") return batchDecodeMain(argv.slice(1), io, env);
  if (argv[0] === "networks") return networksMain(argv.slice(1), io);
  const parsed = parseNodeArgs(argv, env);
  switch (parsed.kind) {
    case "help":
      io.out(`${parsed.text.trimEnd()}\n\n${COMMANDS_HELP}`);
      return EXIT_OK;
    case "version":
      io.out(parsed.text.trimEnd());
      return EXIT_OK;
    case "error":
      io.err(`opal-node: ${parsed.error}`);
      return EXIT_USAGE;
    case "run":
      return runNode(parsed.config, parsed.warnings, io);
    default:
      io.err("opal-node: unexpected command");
      return EXIT_USAGE;
  }
}

/** Runs `main` for a process and sets its exit status; no stack trace reaches the user. */
export function runProcess(argv: readonly string[]): Promise<void> {
  return runAsProcess("opal-node", (a) => main(a), argv);
}

const entry = process.argv[1];
if (entry !== undefined && existsSync(entry) && import.meta.url === pathToFileURL(resolve(entry)).href) {
  await runProcess(process.argv.slice(2));
}
