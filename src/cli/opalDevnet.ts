/**
 * `opal-devnet` (`npm start`): a local OP rollup — dev L1, sequencer, batcher and verifier — in one
 * command (node/devnet.ts). Prints the endpoints and the funded dev accounts, then a status line
 * every few seconds; Ctrl-C stops everything; running it again resumes from the data folder.
 * Options: devnetFlags.ts.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { activationNews, Devnet, formatHeads } from "../node/devnet/devnet.js";
import { DEVNET_FORKS, devnetForkOffsets } from "../node/devnet/devnetConfig.js";
import { devAccounts, formatDevAccounts } from "../node/exec/devGenesis.js";
import type { RollupFork } from "../rollup/config/rollupConfig.js";
import { type DevnetConfig, parseDevnetArgs } from "./devnetFlags.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io, processIo, runAsProcess } from "./processIo.js";

/**
 * The `--activate` items as fork → seconds after L2 genesis, checked as a whole (each item's shape
 * was checked by the flag table): a fork given twice, and the order and `--forks` rules of
 * `devnetForkOffsets`. Throws a one-line Error.
 */
function activations(config: DevnetConfig): Partial<Record<RollupFork, number>> {
  const activate: Partial<Record<RollupFork, number>> = {};
  for (const item of config.activate) {
    const [name, secs] = item.split("=");
    const fork = DEVNET_FORKS.find((f) => f === name);
    if (fork === undefined) throw new Error(`--activate: ${name} is not a devnet fork`);
    if (activate[fork] !== undefined) throw new Error(`--activate: ${fork} given twice`);
    activate[fork] = Number(secs);
  }
  // Checks the forks' names and order now, so a mistake is a usage error before anything starts.
  devnetForkOffsets(config.forks, activate);
  return activate;
}

/**
 * Runs opal-devnet; returns the exit status. `argv` excludes `node` and the script. Usage errors
 * (one line, exit 2) come before anything starts.
 */
export async function main(
  argv: readonly string[],
  io: Io = processIo,
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  const parsed = parseDevnetArgs(argv, env);
  let config: DevnetConfig;
  switch (parsed.kind) {
    case "help":
    case "version":
      io.out(parsed.text.trimEnd());
      return EXIT_OK;
    case "error":
      io.err(`opal-devnet: ${parsed.error}`);
      return EXIT_USAGE;
    default:
      config = parsed.config;
  }
  let activate: Partial<Record<RollupFork, number>>;
  try {
    activate = activations(config);
  } catch (e) {
    io.err(`opal-devnet: ${(e as Error).message.split("\n")[0]}`);
    return EXIT_USAGE;
  }
  let net: Devnet;
  try {
    net = await Devnet.start({
      datadir: resolve(config.datadir),
      fresh: config.fresh,
      blockTime: config["block-time"],
      l1BlockTime: config["l1-block-time"],
      da: config.da,
      upTo: config.forks,
      activate,
      elSync: config["el-sync"],
      print: (l) => io.out(l),
    });
  } catch (e) {
    io.err(`opal-devnet: ${(e as Error).message}`);
    return EXIT_FAILED;
  }
  io.out(net.banner());
  io.out(formatDevAccounts(devAccounts()));
  const seen = new Set<string>();
  const stamp = (): string => new Date().toISOString().slice(11, 19);
  for (const a of await net.activations()) {
    const name = a.fork[0]!.toUpperCase() + a.fork.slice(1);
    io.out(`${name} activates at ${a.time} (${new Date(a.time * 1000).toISOString()}), L2 block #${a.block}`);
  }
  const timer = setInterval(() => {
    void (async () => {
      io.out(`${stamp()} ${formatHeads(await net.heads())}`);
      for (const a of await net.activations()) {
        const news = activationNews(a, seen);
        if (news !== null) io.out(`${stamp()} ${news}`);
      }
    })();
  }, config["status-every"] * 1000);
  await new Promise<void>((done) => {
    let got = false;
    const onSignal = (): void => {
      if (got) return;
      got = true;
      io.out("Stopping the devnet…");
      clearInterval(timer);
      net.stop().then(done, done);
    };
    process.on("SIGINT", onSignal);
    process.on("SIGTERM", onSignal);
  });
  io.out("Devnet stopped.");
  return EXIT_OK;
}

/** Runs `main` for a process and sets its exit status; no stack trace reaches the user. */
export function runProcess(argv: readonly string[]): Promise<void> {
  return runAsProcess("opal-devnet", (a) => main(a), argv);
}

const entry = process.argv[1];
if (entry !== undefined && existsSync(entry) && import.meta.url === pathToFileURL(resolve(entry)).href) {
  await runProcess(process.argv.slice(2));
}
