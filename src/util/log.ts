/**
 * The rollup node's structured logger, after op-service/log: levels silent/error/warn/info/debug/
 * detail (0–5, spec part 3; op-node's admin_setLogLevel also takes trace and crit), formats
 * `terminal` (geth's aligned `INFO [11-22|10:20:28.123] msg   k=v`, coloured with `color`), `text`
 * (the same without colour), `logfmt` (`t=… lvl=… msg=… k=v`), `json` (one object per line) and
 * `json-pretty` (indented), an optional `pid` field, context fields from `child`, and a level that
 * changes at run time. A record below the level returns before anything is formatted.
 */

export const LOG_FORMATS = ["text", "terminal", "logfmt", "json", "json-pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** 0 silent … 5 detail; a record is written when its level ≤ the logger's. */
export type LogLevelNumber = 0 | 1 | 2 | 3 | 4 | 5;

const NAMES: Readonly<Record<string, LogLevelNumber>> = {
  silent: 0,
  crit: 1,
  error: 1,
  warn: 2,
  info: 3,
  debug: 4,
  detail: 5,
  trace: 5,
};

/** A level by name (silent…detail, op-service's trace/crit) or number 0–5; a string says why not. */
export function parseLogLevel(v: string | number): LogLevelNumber | string {
  if (typeof v === "number" || /^[0-5]$/.test(v)) {
    const n = Number(v);
    return Number.isInteger(n) && n >= 0 && n <= 5 ? (n as LogLevelNumber) : `unknown log level ${v}`;
  }
  const n = NAMES[v.toLowerCase()];
  return n === undefined ? `unknown log level ${JSON.stringify(v)}` : n;
}

const LABEL = ["", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"] as const;
const LOWER = ["", "error", "warn", "info", "debug", "trace"] as const;
const COLOR = ["", "\x1b[31m", "\x1b[33m", "\x1b[32m", "\x1b[36m", "\x1b[34m"] as const;
const RESET = "\x1b[0m";
const MSG_WIDTH = 40;

export type LogFields = Readonly<Record<string, unknown>>;

/**
 * What a component logs through, taken in its deps: `Log` below implements it, tests pass silent or
 * recording objects. The one logger type of src/ (a receipt's log is block/log.ts `ReceiptLog`).
 */
export interface Logger {
  error(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  debug(msg: string, fields?: LogFields): void;
}

/** A Logger that drops every record (the default where logging is optional). */
export const SILENT_LOGGER: Logger = Object.freeze({
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
});

export interface LogOptions {
  readonly level: LogLevelNumber;
  readonly format: LogFormat;
  readonly color?: boolean;
  readonly pid?: boolean;
  /** Where lines go (default stderr). */
  readonly sink?: (line: string) => void;
  readonly clock?: () => Date;
}

function hex(b: Uint8Array): string {
  let s = "0x";
  for (let i = 0; i < b.length; i++) s += (b[i]! < 16 ? "0" : "") + b[i]!.toString(16);
  return s;
}

/** A field value as text (bytes as 0x-hex, errors by message). */
function text(v: unknown): string {
  if (typeof v === "string") return v;
  if (typeof v === "bigint" || typeof v === "number" || typeof v === "boolean") return String(v);
  if (v === null || v === undefined) return "nil";
  if (v instanceof Uint8Array) return hex(v);
  if (v instanceof Error) return v.message;
  if (Array.isArray(v)) return `[${v.map(text).join(",")}]`;
  return JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? x.toString() : x instanceof Uint8Array ? hex(x) : x));
}

/** A JSON value for a field (numbers and booleans kept, the rest as text). */
function jsonValue(v: unknown): unknown {
  return typeof v === "number" || typeof v === "boolean" || typeof v === "string" || v === null ? v : text(v);
}

/**
 * logfmt quoting as geth's handlers: bare unless holding spaces, quotes, `=`, backslashes or control
 * characters; an empty value is written bare (`prefix=`), as geth prints it.
 */
function quote(s: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must be quoted
  return /[\s"=\\\x00-\x1f\x7f]/.test(s) ? JSON.stringify(s) : s;
}

function pad(n: number, w = 2): string {
  return String(n).padStart(w, "0");
}

export class Log implements Logger {
  private readonly sink: (line: string) => void;
  private readonly clock: () => Date;

  constructor(
    private readonly opts: LogOptions,
    private readonly context: LogFields = {},
    /** Shared with children, so setLevel on any of them applies to all. */
    private readonly shared: { level: LogLevelNumber } = { level: opts.level },
  ) {
    this.sink = opts.sink ?? ((l) => process.stderr.write(`${l}\n`));
    this.clock = opts.clock ?? (() => new Date());
  }

  /** The current level (admin_setLogLevel changes it for this logger and its children). */
  get currentLevel(): LogLevelNumber {
    return this.shared.level;
  }

  setLevel(level: LogLevelNumber): void {
    this.shared.level = level;
  }

  /** A logger that adds `fields` to every record. */
  child(fields: LogFields): Log {
    return new Log(this.opts, { ...this.context, ...fields }, this.shared);
  }

  error(msg: string, fields?: LogFields): void {
    if (this.shared.level >= 1) this.write(1, msg, fields);
  }
  warn(msg: string, fields?: LogFields): void {
    if (this.shared.level >= 2) this.write(2, msg, fields);
  }
  info(msg: string, fields?: LogFields): void {
    if (this.shared.level >= 3) this.write(3, msg, fields);
  }
  debug(msg: string, fields?: LogFields): void {
    if (this.shared.level >= 4) this.write(4, msg, fields);
  }
  detail(msg: string, fields?: LogFields): void {
    if (this.shared.level >= 5) this.write(5, msg, fields);
  }

  private write(level: 1 | 2 | 3 | 4 | 5, msg: string, fields: LogFields | undefined): void {
    this.sink(this.format(level, msg, fields));
  }

  /** One record as a line (exported for tests through `write`). */
  format(level: 1 | 2 | 3 | 4 | 5, msg: string, fields?: LogFields): string {
    const t = this.clock();
    const all: [string, unknown][] = [];
    if (this.opts.pid === true) all.push(["pid", process.pid]);
    for (const e of Object.entries(this.context)) all.push(e);
    if (fields !== undefined) for (const e of Object.entries(fields)) all.push(e);
    const f = this.opts.format;
    if (f === "json" || f === "json-pretty") {
      const o: Record<string, unknown> = { t: t.toISOString(), lvl: LOWER[level], msg };
      for (const [k, v] of all) o[k] = jsonValue(v);
      return f === "json" ? JSON.stringify(o) : JSON.stringify(o, null, 2);
    }
    const kv = all.map(([k, v]) => `${k}=${quote(text(v))}`).join(" ");
    if (f === "logfmt") {
      const head = `t=${t.toISOString()} lvl=${LOWER[level]} msg=${quote(msg)}`;
      return kv === "" ? head : `${head} ${kv}`;
    }
    const stamp = `${pad(t.getMonth() + 1)}-${pad(t.getDate())}|${pad(t.getHours())}:${pad(t.getMinutes())}:${pad(t.getSeconds())}.${pad(t.getMilliseconds(), 3)}`;
    const label = LABEL[level].padEnd(5);
    const lvl = f === "terminal" && this.opts.color === true ? `${COLOR[level]}${label}${RESET}` : label;
    const head = `${lvl} [${stamp}] ${kv === "" ? msg : msg.padEnd(MSG_WIDTH)}`;
    return kv === "" ? head.trimEnd() : `${head} ${kv}`;
  }
}
