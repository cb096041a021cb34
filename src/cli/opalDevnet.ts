/**
 * `opal-devnet` (`npm start`): a local OP rollup — dev L1, sequencer, batcher and verifier — in one
 * command (node/devnet.ts). Prints the endpoints and the funded dev accounts, then a status line
 * every few seconds; Ctrl-C stops everything; running it again resumes from the data folder.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { devAccounts, formatDevAccounts } from "../node/devGenesis.js";
import { activationNews, type DaType, Devnet, formatHeads } from "../node/devnet.js";
import { DEVNET_FORKS, devnetForkOffsets } from "../node/devnetConfig.js";
import type { RollupFork } from "../rollup/config.js";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, type Io, processIo, runAsProcess } from "./processIo.js";

export const DEVNET_HELP = `Usage: opal-devnet [options]   (npm start)

Runs a local OP Stack rollup: a dev L1 (opal-exec --dev with a beacon API), the sequencer's
opal-exec and opal-node, opal-batcher, and a verifier's opal-exec and opal-node that follows L1 only.
Prints the endpoints, then the heads every few seconds. Ctrl-C stops it; run it again to resume.

Options:
  --datadir PATH      data folder (default .devnet)
  --fresh             delete the data folder first and start a new devnet
  --block-time N      L2 block time in seconds (default 2; used for a new devnet)
  --l1-block-time N   L1 block time in seconds (default 2)
  --da TYPE           batch data: calldata, blobs or auto (default blobs)
  --forks NAME        newest fork active at genesis: ${DEVNET_FORKS.join(", ")} (default jovian)
  --activate F=N      activate the later fork F N seconds after L2 genesis (repeatable; e.g. karst=24);
                      the status lines then report its activation block on sequencer and verifier
  --status-every N    seconds between status lines (default 5)
  -h, --help          this text`;

const OPTIONS = {
  datadir: { type: "string" },
  fresh: { type: "boolean" },
  "block-time": { type: "string" },
  "l1-block-time": { type: "string" },
  da: { type: "string" },
  forks: { type: "string" },
  activate: { type: "string", multiple: true },
  "status-every": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function positive(name: string, v: string | undefined, def: number): number {
  if (v === undefined) return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`--${name}: want a whole number of seconds ≥ 1, got ${JSON.stringify(v)}`);
  return n;
}

export async function main(argv: readonly string[], io: Io = processIo): Promise<number> {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: false }>>["values"];
  let settings: {
    blockTime: number;
    l1BlockTime: number;
    da: DaType;
    upTo: RollupFork;
    activate: Partial<Record<RollupFork, number>>;
    every: number;
  };
  try {
    values = parseArgs({ args: [...argv], options: OPTIONS, strict: true }).values;
    if (values.help === true) {
      io.out(DEVNET_HELP);
      return EXIT_OK;
    }
    const da = values.da ?? "blobs";
    if (da !== "calldata" && da !== "blobs" && da !== "auto")
      throw new Error(`--da: want calldata, blobs or auto, got ${JSON.stringify(da)}`);
    const upTo = (values.forks ?? "jovian") as RollupFork;
    if (!DEVNET_FORKS.includes(upTo))
      throw new Error(`--forks: want one of ${DEVNET_FORKS.join(", ")}, got ${JSON.stringify(upTo)}`);
    const activate: Partial<Record<RollupFork, number>> = {};
    for (const a of values.activate ?? []) {
      const m = /^([a-z]+)=(.*)$/.exec(a);
      if (m === null) throw new Error(`--activate: want <fork>=<seconds>, got ${JSON.stringify(a)}`);
      const fork = m[1] as RollupFork;
      if (activate[fork] !== undefined) throw new Error(`--activate: ${fork} given twice`);
      activate[fork] = positive(`activate ${fork}`, m[2], 0);
    }
    // Checks the forks' names and order now, so a mistake is a usage error before anything starts.
    devnetForkOffsets(upTo, activate);
    settings = {
      blockTime: positive("block-time", values["block-time"], 2),
      l1BlockTime: positive("l1-block-time", values["l1-block-time"], 2),
      da,
      upTo,
      activate,
      every: positive("status-every", values["status-every"], 5),
    };
  } catch (e) {
    io.err(`opal-devnet: ${(e as Error).message.split("\n")[0]}`);
    return EXIT_USAGE;
  }
  const datadir = resolve(values.datadir ?? ".devnet");
  let net: Devnet;
  try {
    net = await Devnet.start({
      datadir,
      fresh: values.fresh === true,
      blockTime: settings.blockTime,
      l1BlockTime: settings.l1BlockTime,
      da: settings.da,
      upTo: settings.upTo,
      activate: settings.activate,
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
  }, settings.every * 1000);
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
