/**
 * Issue 24's loopback acceptance, as an operator would run it: a source opal-exec holding a chain
 * (made by scripts/genChain.ts) and a fresh opal-exec initialised from the same genesis.json, given
 * only the source's enode URL in `--bootnodes` (with `--nodiscover`, so the bootnode is dialled
 * directly). With nothing else, the fresh node follows the head its eth/69 peer announces
 * (`--sync.followpeers`, on by default) and fetches and executes the chain over devp2p. With
 * `--engine` it is instead told the source's head with engine_forkchoiceUpdatedV3 over its
 * JWT-authenticated port — what op-node's `--syncmode execution-layer` does — and answers SYNCING.
 * With `--kill-at N` it is SIGKILLed once its head passes N and started again: the second run must
 * resume (its first head is ≥ N, not 0) and finish. Prints the head, root and timings of both
 * nodes, and each process's peak RSS.
 *   tsx scripts/elSyncLoopback.ts --chain /tmp/elsync [--kill-at 2500] [--engine]
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { signJwt } from "../src/engine/jwt.js";
import { hexToBytes } from "../src/primitives/hex.js";
import { call } from "../test/utils/jsonRpc.js";

const { values } = parseArgs({
  options: { chain: { type: "string" }, "kill-at": { type: "string" }, engine: { type: "boolean" } },
});
const viaEngine = values.engine === true;
if (values.chain === undefined) throw new Error("--chain DIR (from scripts/genChain.ts) is required");
const dir = values.chain;
const killAt = values["kill-at"] === undefined ? null : Number(values["kill-at"]);
const BIN = join(import.meta.dirname, "..", "bin", "opal-exec.mjs");
const fresh = join(dir, "fresh");
const P = { srcP2p: 30411, srcHttp: 8565, srcAuth: 8561, dstP2p: 30412, dstHttp: 8566, dstAuth: 8562 };

/** A call's result (`any`: the script reads the fields it knows), the Engine API's with a fresh JWT. */
async function rpc(url: string, method: string, params: unknown[] = [], jwt?: Uint8Array): Promise<any> {
  return call(
    url,
    method,
    params,
    jwt === undefined ? {} : { authorization: `Bearer ${signJwt(jwt, Date.now() / 1000)}` },
  );
}

async function until<T>(f: () => Promise<T | null>, ms: number, what: string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    try {
      const v = await f();
      if (v !== null) return v;
    } catch {}
    if (Date.now() > end) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function start(name: string, args: string[]): ChildProcess {
  const p = spawn("/usr/bin/time", ["-f", `${name} peak RSS %M KB`, process.execPath, BIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: a signal reaches the node under /usr/bin/time, not only time itself.
    detached: true,
  });
  const show = (b: Buffer) => {
    for (const line of b.toString().split("\n")) {
      if (/Sync progress|peak RSS|SYNCING|Resuming|Started P2P|following|rror/.test(line))
        console.log(`[${name}] ${line.trim()}`);
    }
  };
  p.stdout!.on("data", show);
  p.stderr!.on("data", show);
  return p;
}

const src = start("source", [
  "--datadir",
  join(dir, "datadir"),
  "--port",
  String(P.srcP2p),
  "--nodiscover",
  "--http",
  "--http.port",
  String(P.srcHttp),
  "--http.api",
  "eth,net,admin",
  "--authrpc.port",
  String(P.srcAuth),
  "--verbosity",
  "3",
]);
const srcUrl = `http://127.0.0.1:${P.srcHttp}`;
const info = await until(() => rpc(srcUrl, "admin_nodeInfo"), 30_000, "the source's admin_nodeInfo");
const head = await rpc(srcUrl, "eth_getBlockByNumber", ["latest", false]);
console.log(`source: head ${Number(head.number)} ${head.hash} root ${head.stateRoot}; ${info.enode}`);

rmSync(fresh, { recursive: true, force: true });
spawnSync(process.execPath, [BIN, "init", "--datadir", fresh, join(dir, "genesis.json")], { stdio: "inherit" });
const dstArgs = [
  "--datadir",
  fresh,
  "--port",
  String(P.dstP2p),
  "--nodiscover",
  "--bootnodes",
  info.enode,
  "--http",
  "--http.port",
  String(P.dstHttp),
  "--http.api",
  "eth,net,admin",
  "--authrpc.port",
  String(P.dstAuth),
  "--verbosity",
  "3",
];
const dstUrl = `http://127.0.0.1:${P.dstHttp}`;
const jwt = () => hexToBytes(`0x${readFileSync(join(fresh, "jwtsecret"), "utf8").trim().replace(/^0x/, "")}`);
const fcu = () =>
  rpc(
    `http://127.0.0.1:${P.dstAuth}`,
    "engine_forkchoiceUpdatedV3",
    [{ headBlockHash: head.hash, safeBlockHash: head.hash, finalizedBlockHash: head.hash }, null],
    jwt(),
  );

const t0 = Date.now();
let dst = start("fresh", dstArgs);
await until(async () => ((await rpc(dstUrl, "net_peerCount")) === "0x1" ? true : null), 30_000, "a peer");
console.log(
  `fresh: connected to the source in ${Date.now() - t0} ms; ${viaEngine ? `forkchoiceUpdated → ${(await fcu()).payloadStatus.status}` : "no consensus client"}`,
);
const number = async () => Number(await rpc(dstUrl, "eth_blockNumber"));
if (killAt !== null) {
  await until(async () => ((await number()) >= killAt ? true : null), 600_000, `head ≥ ${killAt}`);
  const at = await number();
  process.kill(-dst.pid!, "SIGKILL");
  await new Promise((r) => dst.once("exit", r));
  console.log(`fresh: SIGKILLed at head ${at} after ${Date.now() - t0} ms`);
  dst = start("fresh", dstArgs);
  const first = await until(() => number(), 60_000, "the restarted node's RPC");
  console.log(`fresh: restarted with head ${first} (${first >= killAt ? "resumed" : "NOT resumed"})`);
  await until(async () => ((await rpc(dstUrl, "net_peerCount")) === "0x1" ? true : null), 30_000, "a peer again");
  if (viaEngine) console.log(`fresh: forkchoiceUpdated again → ${(await fcu()).payloadStatus.status}`);
}
const syncing = await rpc(dstUrl, "eth_syncing");
console.log(`fresh: eth_syncing ${JSON.stringify(syncing)}`);
await until(async () => ((await number()) === Number(head.number) ? true : null), 900_000, "the source's head");
const got = await rpc(dstUrl, "eth_getBlockByNumber", ["latest", false]);
const s = (Date.now() - t0) / 1000;
console.log(
  `fresh: head ${Number(got.number)} ${got.hash} root ${got.stateRoot} in ${s.toFixed(1)} s (${(Number(head.number) / s).toFixed(0)} blocks/s)`,
);
console.log(got.hash === head.hash && got.stateRoot === head.stateRoot ? "SAME head hash and state root" : "MISMATCH");
// A consensus client arriving now finds the head there: VALID.
console.log(`fresh: forkchoiceUpdated → ${(await fcu()).payloadStatus.status}`);
process.kill(-dst.pid!, "SIGTERM");
process.kill(-src.pid!, "SIGTERM");
await Promise.all([new Promise((r) => dst.once("exit", r)), new Promise((r) => src.once("exit", r))]);
