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

const BIN = join(import.meta.dirname, "..", "bin", "opal-exec.mjs");
const PORTS = { http: 18645, auth: 18651, metrics: 18660 };

/** A block as the Engine API carries it. */
export interface EngineBlock {
  readonly payload: unknown;
  readonly beaconRoot: string;
  readonly hash: string;
  readonly gasUsed: number;
}

export function engineBlock(header: Header, body: BlockBody, hash: Uint8Array, op: boolean): EngineBlock {
  return {
    payload: blockToPayload(header, body, hash, 4, op),
    beaconRoot: bytesToHex(header.parentBeaconBlockRoot ?? new Uint8Array(32)),
    hash: bytesToHex(hash),
    gasUsed: header.gasUsed,
  };
}

export async function rpc(url: string, method: string, params: unknown[], jwt?: Uint8Array): Promise<any> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (jwt !== undefined) headers.authorization = `Bearer ${signJwt(jwt, Math.floor(Date.now() / 1000))}`;
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const j = (await res.json()) as { result?: unknown; error?: { message: string } };
  if (j.error !== undefined) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
}

/** A counter or gauge of the Prometheus text (0 when absent). */
export function metric(text: string, name: string): number {
  const m = new RegExp(`^${name} ([\\d.e+-]+)$`, "m").exec(text);
  return m === null ? 0 : Number(m[1]);
}

export class ExecProcess {
  readonly http = `http://127.0.0.1:${PORTS.http}`;
  readonly auth = `http://127.0.0.1:${PORTS.auth}`;
  readonly metricsUrl = `http://127.0.0.1:${PORTS.metrics}/metrics`;
  /** The Engine API's JWT secret (written to the datadir as `--authrpc.jwtsecret`). */
  readonly secret = new Uint8Array(32).fill(7);
  private stderr = "";

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
        await rpc(p.http, "eth_blockNumber", []);
        return p;
      } catch {
        if (i > 600) throw new Error(`opal-exec did not start: ${p.stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /** engine_newPayloadV4 then engine_forkchoiceUpdatedV3 (head = safe = finalized = the block); both must be VALID. */
  async feed(b: EngineBlock): Promise<void> {
    const st = await rpc(this.auth, "engine_newPayloadV4", [b.payload, [], b.beaconRoot, []], this.secret);
    if (st.status !== "VALID") throw new Error(`newPayload ${b.hash}: ${JSON.stringify(st)}`);
    const fc = await rpc(
      this.auth,
      "engine_forkchoiceUpdatedV3",
      [{ headBlockHash: b.hash, safeBlockHash: b.hash, finalizedBlockHash: b.hash }, null],
      this.secret,
    );
    if (fc.payloadStatus.status !== "VALID") throw new Error(`forkchoice ${b.hash}: ${JSON.stringify(fc)}`);
  }

  async metrics(): Promise<string> {
    return (await fetch(this.metricsUrl)).text();
  }

  async stop(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const gone = new Promise((r) => this.proc.once("exit", r));
    this.proc.kill("SIGTERM");
    await gone;
  }
}
