/**
 * An `opal-exec` process for the benches that measure the node as operators run it (`scale`,
 * `sync`): started on a datadir with HTTP, the Engine API behind a JWT and the metrics endpoint on
 * fixed loopback ports, P2P off; blocks fed as a verifier's rollup node feeds them
 * (engine_newPayloadV4, then engine_forkchoiceUpdatedV3 to that block).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BlockBody } from "../src/block/block.js";
import type { Header } from "../src/block/header.js";
import { signJwt } from "../src/engine/jwt.js";
import { blockToPayload } from "../src/engine/payload.js";
import { bytesToHex } from "../src/primitives/hex.js";
import { Http1Pool } from "../src/util/http1Client.js";
import { call } from "../test/utils/jsonRpc.js";

const BIN = join(import.meta.dirname, "..", "bin", "opal-exec.mjs");
/** `OPAL_BENCH_EXEC_PORT_OFFSET` moves them, for benches run side by side on one machine. */
const PORT_OFFSET = Number(process.env.OPAL_BENCH_EXEC_PORT_OFFSET ?? 0);
const PORTS = { http: 18645 + PORT_OFFSET, auth: 18651 + PORT_OFFSET, metrics: 18660 + PORT_OFFSET };

/**
 * A block as the Engine API carries it, with both request bodies serialised when the chain is built
 * (a rollup node's client encodes each payload once too; the timed loop then measures the node).
 */
export interface EngineBlock {
  readonly hash: string;
  readonly gasUsed: number;
  /** engine_newPayloadV4's request body. */
  readonly newPayload: string;
  /** engine_forkchoiceUpdatedV3's request body (head = safe = finalized = this block). */
  readonly forkchoice: string;
}

export function engineBlock(header: Header, body: BlockBody, hash: Uint8Array, op: boolean): EngineBlock {
  const payload = blockToPayload(header, body, hash, 4, op);
  const beaconRoot = bytesToHex(header.parentBeaconBlockRoot ?? new Uint8Array(32));
  const h = bytesToHex(hash);
  const fcs = { headBlockHash: h, safeBlockHash: h, finalizedBlockHash: h };
  return {
    hash: h,
    gasUsed: header.gasUsed,
    newPayload: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "engine_newPayloadV4",
      params: [payload, [], beaconRoot, []],
    }),
    forkchoice: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "engine_forkchoiceUpdatedV3", params: [fcs, null] }),
  };
}

/** A counter or gauge of the Prometheus text (0 when absent). */
export function metric(text: string, name: string): number {
  const m = new RegExp(`^${name} ([\\d.e+-]+)$`, "m").exec(text);
  return m === null ? 0 : Number(m[1]);
}

export class ExecProcess {
  readonly httpPort = PORTS.http;
  readonly http = `http://127.0.0.1:${PORTS.http}`;
  readonly auth = `http://127.0.0.1:${PORTS.auth}`;
  readonly metricsUrl = `http://127.0.0.1:${PORTS.metrics}/metrics`;
  /** The Engine API's JWT secret (written to the datadir as `--authrpc.jwtsecret`). */
  readonly secret = new Uint8Array(32).fill(7);
  private stderr = "";
  /** The HTTP/1.1 client opal-node posts to an `http:` engine with (util/http1Client.ts). */
  private readonly pool = new Http1Pool("127.0.0.1", PORTS.auth);
  private token = "";
  private tokenAt = -1;

  private constructor(private readonly proc: ChildProcess) {
    proc.stderr?.on("data", (d) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
  }

  /** Starts opal-exec on `datadir` (a chain must be there) and waits for its HTTP server. */
  static async start(datadir: string, extra: readonly string[] = []): Promise<ExecProcess> {
    const jwtFile = join(datadir, "bench-jwt.hex");
    const p = new ExecProcess(
      spawn(
        process.execPath,
        [
          // Node's own flags for the node under test, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
          ...(process.env.OPAL_BENCH_EXEC_NODE_ARGS ?? "").split(" ").filter((a) => a !== ""),
          BIN,
          "--datadir",
          datadir,
          "--http",
          "--http.addr=127.0.0.1",
          `--http.port=${PORTS.http}`,
          "--http.api=eth",
          "--authrpc.addr=127.0.0.1",
          `--authrpc.port=${PORTS.auth}`,
          `--authrpc.jwtsecret=${jwtFile}`,
          "--nodiscover",
          "--maxpeers=0",
          "--metrics",
          "--metrics.addr=127.0.0.1",
          `--metrics.port=${PORTS.metrics}`,
          "--verbosity=2",
          ...extra,
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      ),
    );
    writeFileSync(jwtFile, bytesToHex(p.secret));
    for (let i = 0; ; i++) {
      if (p.proc.exitCode !== null) throw new Error(`opal-exec exited: ${p.stderr}`);
      try {
        await call(p.http, "eth_blockNumber");
        return p;
      } catch {
        if (i > 600) throw new Error(`opal-exec did not start: ${p.stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** engine_newPayloadV4 then engine_forkchoiceUpdatedV3 (head = safe = finalized = the block); both must be VALID. */
  async feed(b: EngineBlock): Promise<void> {
    const st = (await this.engine(b.newPayload)) as { status: string };
    if (st.status !== "VALID") throw new Error(`newPayload ${b.hash}: ${JSON.stringify(st)}`);
    const fc = (await this.engine(b.forkchoice)) as { payloadStatus: { status: string } };
    if (fc.payloadStatus.status !== "VALID") throw new Error(`forkchoice ${b.hash}: ${JSON.stringify(fc)}`);
  }

  /**
   * One Engine API call on a kept-alive connection, with a token signed once per second (op-node's
   * and opal-node's clients do the same; the node verifies a token once, engine/jwt.ts).
   */
  private async engine(body: string): Promise<unknown> {
    const now = Math.floor(Date.now() / 1000);
    if (now !== this.tokenAt) {
      this.token = `Bearer ${signJwt(this.secret, now)}`;
      this.tokenAt = now;
    }
    const headers = `Content-Type: application/json\r\nAuthorization: ${this.token}\r\n`;
    const a = await this.pool.post("/", headers, body, 600_000);
    if (a.status !== 200) throw new Error(`engine call: HTTP ${a.status}: ${a.body.toString().slice(0, 200)}`);
    const j = JSON.parse(a.body.toString()) as { result?: unknown; error?: { message: string } };
    if (j.error !== undefined) throw new Error(j.error.message);
    return j.result;
  }

  async metrics(): Promise<string> {
    return (await fetch(this.metricsUrl)).text();
  }

  async stop(): Promise<void> {
    this.pool.close();
    if (this.proc.exitCode !== null) return;
    const gone = new Promise((r) => this.proc.once("exit", r));
    this.proc.kill("SIGTERM");
    await gone;
  }
}
