/**
 * CORS for the HTTP JSON-RPC server, as geth's `--http.corsdomain` (node/rpcstack.go newCorsHandler:
 * rs/cors v1.7.0 with methods POST and GET, headers `*`, max-age 600). An empty list disables CORS:
 * no headers at all, and an OPTIONS preflight falls through to the JSON-RPC handler.
 */
import type { IncomingHttpHeaders } from "node:http";

const ALLOWED_METHODS = new Set(["POST", "GET", "OPTIONS"]);

/** Headers to add to a response (values may repeat, as `Vary`). */
export type HeaderList = [name: string, value: string][];

export class CorsPolicy {
  private readonly all: boolean;
  private readonly exact = new Set<string>();
  private readonly wildcards: [prefix: string, suffix: string][] = [];

  constructor(origins: readonly string[]) {
    let all = false;
    for (const raw of origins) {
      const o = raw.toLowerCase();
      if (o === "*") {
        all = true;
        break;
      }
      const i = o.indexOf("*");
      if (i >= 0) this.wildcards.push([o.slice(0, i), o.slice(i + 1)]);
      else this.exact.add(o);
    }
    this.all = all;
  }

  private originAllowed(origin: string): boolean {
    if (this.all) return true;
    const o = origin.toLowerCase();
    if (this.exact.has(o)) return true;
    for (const [p, s] of this.wildcards) {
      if (o.length >= p.length + s.length && o.startsWith(p) && o.endsWith(s)) return true;
    }
    return false;
  }

  /** A preflight is an OPTIONS request with Access-Control-Request-Method; it is answered 200, empty. */
  static isPreflight(method: string | undefined, headers: IncomingHttpHeaders): boolean {
    return method === "OPTIONS" && !!headers["access-control-request-method"];
  }

  /** rs/cors handlePreflight. */
  preflight(headers: IncomingHttpHeaders, out: HeaderList): void {
    out.push(["Vary", "Origin"], ["Vary", "Access-Control-Request-Method"], ["Vary", "Access-Control-Request-Headers"]);
    const origin = headers.origin;
    if (!origin || !this.originAllowed(origin)) return;
    const reqMethod = String(headers["access-control-request-method"]).toUpperCase();
    if (!ALLOWED_METHODS.has(reqMethod)) return;
    const reqHeaders = parseHeaderList(headers["access-control-request-headers"] ?? "");
    out.push(["Access-Control-Allow-Origin", this.all ? "*" : origin]);
    out.push(["Access-Control-Allow-Methods", reqMethod]);
    if (reqHeaders.length > 0) out.push(["Access-Control-Allow-Headers", reqHeaders.join(", ")]);
    out.push(["Access-Control-Max-Age", "600"]);
  }

  /** rs/cors handleActualRequest. */
  actual(method: string | undefined, headers: IncomingHttpHeaders, out: HeaderList): void {
    out.push(["Vary", "Origin"]);
    const origin = headers.origin;
    if (!origin || !this.originAllowed(origin)) return;
    if (!ALLOWED_METHODS.has((method ?? "").toUpperCase())) return;
    out.push(["Access-Control-Allow-Origin", this.all ? "*" : origin]);
  }
}

/** rs/cors parseHeaderList: splits on space/comma, keeps [A-Za-z0-9_-], canonicalizes case. */
function parseHeaderList(list: string): string[] {
  const out: string[] = [];
  let h = "";
  let upper = true;
  for (let i = 0; i < list.length; i++) {
    const b = list[i]!;
    const c = b.charCodeAt(0);
    if (c >= 97 && c <= 122) h += upper ? b.toUpperCase() : b;
    else if (c >= 65 && c <= 90) h += upper ? b : b.toLowerCase();
    else if (b === "-" || b === "_" || (c >= 48 && c <= 57)) h += b;
    if (b === " " || b === "," || i === list.length - 1) {
      if (h.length > 0) {
        out.push(h);
        h = "";
        upper = true;
      }
    } else {
      upper = b === "-" || b === "_";
    }
  }
  return out;
}
