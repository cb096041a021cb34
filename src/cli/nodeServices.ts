/**
 * What `opal-node` starts around the node shell, from its flags: the logger (`--log.*`), metrics
 * (`--metrics.*`: the registry and its /metrics server, or the no-op twin), and the profiler
 * (`--pprof.*`: the HTTP server and/or the profile written at exit). Each started server is an
 * owned service the node closes on shutdown; a failure closes what was already started and
 * surfaces as one line.
 */

import { MetricsServer } from "../node/metricsServer.js";
import { PprofServer, ProfileOnExit, validateProfileType } from "../node/pprofServer.js";
import { type Metricer, NodeMetrics, NoopMetrics } from "../node/rollup/metrics.js";
import type { OwnedService } from "../node/rollup/rollupNode.js";
import type { Logger } from "../util/log.js";
import type { NodeConfig } from "./nodeFlags.js";
import { makeNodeLogger } from "./nodeLogger.js";

export interface NodeServices {
  readonly log: Logger;
  readonly metrics: Metricer;
  readonly setLogLevel: (level: string) => string | null;
  /** Started servers, in start order (the node closes them in reverse). */
  readonly owned: readonly OwnedService[];
  /** Closes every owned service (startup failed before the node took them over). */
  close(): Promise<void>;
}

export async function startNodeServices(
  config: NodeConfig,
  version: string,
  io: { err(text: string): void },
): Promise<NodeServices> {
  const { log, setLogLevel } = makeNodeLogger(config, io);
  const owned: OwnedService[] = [];
  const close = async (): Promise<void> => {
    for (const s of [...owned].reverse()) await s.close().catch(() => undefined);
  };
  try {
    validateProfileType(config["pprof.type"]);
    let metrics: Metricer = new NoopMetrics();
    if (config["metrics.enabled"]) {
      const m = new NodeMetrics();
      m.recordInfo(version);
      const server = new MetricsServer({ addr: config["metrics.addr"], port: config["metrics.port"] }, { metrics: m });
      const addr = await server.listen();
      owned.push(server);
      log.info("Started metrics server", { endpoint: `http://${addr.address}:${addr.port}/metrics` });
      metrics = m;
    }
    if (config["pprof.type"] === undefined && config["pprof.path"] !== undefined) {
      log.warn("--pprof.path has no effect without --pprof.type");
    }
    if (config["pprof.type"] !== undefined) {
      const p = new ProfileOnExit({ "pprof.type": config["pprof.type"], "pprof.path": config["pprof.path"] }, { log });
      p.start();
      owned.push(p);
      log.info("Profiling until shutdown", { type: p.type, file: p.path });
    }
    if (config["pprof.enabled"]) {
      const server = new PprofServer(
        { "pprof.addr": config["pprof.addr"], "pprof.port": config["pprof.port"] },
        { log },
      );
      await server.listen(); // logs its own address
      owned.push(server);
    }
    return { log, metrics, setLogLevel, owned, close };
  } catch (e) {
    await close();
    throw e;
  }
}
