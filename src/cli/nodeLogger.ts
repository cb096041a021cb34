/**
 * The opal-node logger from `--log.level`, `--log.format`, `--log.color` and `--log.pid`, and the
 * level switch admin_setLogLevel uses (op-service's names: trace, debug, info, warn, error, crit,
 * plus spec part 3's silent and detail).
 */
import { Log, parseLogLevel } from "../util/log.js";
import type { NodeConfig } from "./nodeFlags.js";

export function makeNodeLogger(
  config: NodeConfig,
  io: { err(text: string): void },
): { log: Log; setLogLevel: (level: string) => string | null } {
  const level = parseLogLevel(config["log.level"]);
  const log = new Log({
    level: typeof level === "string" ? 3 : level,
    format: config["log.format"],
    color: config["log.color"],
    pid: config["log.pid"],
    sink: (line) => io.err(line),
  });
  const setLogLevel = (name: string): string | null => {
    const l = parseLogLevel(name);
    if (typeof l === "string") return l;
    log.setLevel(l);
    log.info("Log level changed", { level: name });
    return null;
  };
  return { log, setLogLevel };
}
