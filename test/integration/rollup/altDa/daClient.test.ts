/**
 * Alt-DA's DA client against a local node:http DA server that behaves like op-alt-da's daserver.go:
 * round trips for keccak and da-service commitments, verify-on-read, 404 / 5xx / timeouts as typed
 * errors, the concurrency bound. The commitment codecs and the challenge state, without a server:
 * test/unit/rollup/altDa/altDa.test.ts.
 */
import { strict as assert } from "node:assert";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { bytesKey, utf8ToBytes } from "../../../../src/primitives/bytes.js";
import { bytesToHex, hexToBytes } from "../../../../src/primitives/hex.js";
import {
  AltDaCommitmentError,
  commitmentUrlKey,
  encodeCommitment,
  genericCommitment,
  keccakCommitment,
} from "../../../../src/rollup/altDa/commitment.js";
import {
  DaClient,
  DaInvalidInputError,
  DaNotFoundError,
  DaTransientError,
} from "../../../../src/rollup/altDa/daClient.js";

function codeOf(code: string) {
  return (e: unknown) => {
    assert.ok(e instanceof AltDaCommitmentError, String(e));
    assert.equal(e.code, code);
    return true;
  };
}

// ---- a DA server like op-alt-da daserver.go ----

interface MockDa {
  url: string;
  server: Server;
  store: Map<string, Uint8Array>;
  requests: string[];
  /** Status to answer the next requests with instead of serving them. */
  failWith: number[];
  delayMs: number;
  active: number;
  maxActive: number;
  /** da-service mode: how POST /put answers (raw bytes, as op-node's server; or hex text). */
  answer: "raw" | "hex";
  generic: boolean;
}

function readBody(req: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(new Uint8Array(Buffer.concat(chunks))));
    req.on("error", reject);
  });
}

async function startDa(): Promise<MockDa> {
  const m: MockDa = {
    url: "",
    server: undefined as unknown as Server,
    store: new Map(),
    requests: [],
    failWith: [],
    delayMs: 0,
    active: 0,
    maxActive: 0,
    answer: "raw",
    generic: true,
  };
  let nonce = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = req.url ?? "";
    m.requests.push(`${req.method} ${path}`);
    m.active++;
    m.maxActive = Math.max(m.maxActive, m.active);
    try {
      const body = await readBody(req);
      if (m.delayMs > 0) await new Promise((r) => setTimeout(r, m.delayMs));
      const fail = m.failWith.shift();
      if (fail !== undefined) {
        res.writeHead(fail).end("boom");
        return;
      }
      if (req.method === "GET" && path.startsWith("/get/")) {
        const key = bytesKey(hexToBytes(path.slice(5)));
        const v = m.store.get(key);
        if (v === undefined) res.writeHead(404).end();
        else res.writeHead(200, { "content-type": "application/octet-stream" }).end(v);
        return;
      }
      if (req.method === "POST" && (path === "/put" || path === "/put/")) {
        let comm: Uint8Array;
        if (m.generic) {
          nonce++;
          comm = Uint8Array.of(0x01, 0xff, nonce, 7);
        } else comm = encodeCommitment(keccakCommitment(body));
        m.store.set(bytesKey(comm), body);
        res.writeHead(200).end(m.answer === "raw" ? comm : bytesToHex(comm));
        return;
      }
      if (req.method === "POST" && path.startsWith("/put/")) {
        m.store.set(bytesKey(hexToBytes(path.slice(5))), body);
        res.writeHead(200).end();
        return;
      }
      res.writeHead(400).end();
    } finally {
      m.active--;
    }
  };
  m.server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((r) => m.server.listen(0, "127.0.0.1", () => r()));
  m.url = `http://127.0.0.1:${(m.server.address() as AddressInfo).port}`;
  return m;
}

function stop(m: MockDa): Promise<void> {
  m.server.closeAllConnections();
  return new Promise((r) => m.server.close(() => r()));
}

function client(m: MockDa, over: Partial<ConstructorParameters<typeof DaClient>[0]> = {}): DaClient {
  return new DaClient({
    url: `${m.url}/`,
    getTimeoutMs: 0,
    putTimeoutMs: 0,
    maxConcurrent: 1,
    verifyOnRead: true,
    daService: false,
    ...over,
  });
}

function transient(code: string, status = 0) {
  return (e: unknown) => {
    assert.ok(e instanceof DaTransientError, String(e));
    assert.equal(e.code, code);
    assert.equal(e.status, status);
    return true;
  };
}

describe("rollup/altDa DaClient", () => {
  let m: MockDa;
  beforeEach(async () => {
    m = await startDa();
  });
  afterEach(async () => {
    await stop(m);
  });

  it("keccak round trip: commitment computed locally, POST /put/0x00‖hash, GET /get/0x00‖hash", async () => {
    const c = client(m);
    const input = utf8ToBytes("\x00some frames");
    const comm = await c.setInput(input);
    assert.deepEqual(comm, keccakCommitment(input));
    const key = commitmentUrlKey(comm);
    assert.deepEqual(m.requests, [`POST /put/${key}`]);
    assert.deepEqual(await c.getInput(comm), input);
    assert.equal(m.requests[1], `GET /get/${key}`);
    await assert.rejects(c.setInput(new Uint8Array(0)), DaInvalidInputError);
  });

  it("da-service round trip: POST /put returns the generic commitment (raw or hex)", async () => {
    const c = client(m, { daService: true });
    const a = utf8ToBytes("\x00blob a");
    const ca = await c.setInput(a);
    assert.equal(ca.type, "GenericCommitment");
    assert.deepEqual(ca.data, Uint8Array.of(0xff, 1, 7));
    assert.deepEqual(m.requests, ["POST /put"]);
    assert.deepEqual(await c.getInput(ca), a);
    m.answer = "hex";
    const b = utf8ToBytes("\x00blob b");
    const cb = await c.setInput(b);
    assert.deepEqual(cb.data, Uint8Array.of(0xff, 2, 7));
    assert.deepEqual(await c.getInput(cb), b);
    // a da-service server making keccak commitments
    m.generic = false;
    m.answer = "raw";
    assert.deepEqual(await c.setInput(b), keccakCommitment(b));
  });

  it("verify-on-read catches a tampered keccak input; off, or generic, it passes through", async () => {
    const input = utf8ToBytes("\x00honest");
    const comm = keccakCommitment(input);
    m.store.set(bytesKey(encodeCommitment(comm)), utf8ToBytes("\x00tampered"));
    await assert.rejects(client(m).getInput(comm), codeOf("MISMATCH"));
    assert.deepEqual(await client(m, { verifyOnRead: false }).getInput(comm), utf8ToBytes("\x00tampered"));
    const g = genericCommitment(Uint8Array.of(0xff, 3));
    m.store.set(bytesKey(encodeCommitment(g)), utf8ToBytes("whatever"));
    assert.deepEqual(await client(m).getInput(g), utf8ToBytes("whatever"));
  });

  it("404 → DaNotFoundError; 5xx, other statuses and refused connections → DaTransientError", async () => {
    const c = client(m);
    const comm = keccakCommitment(utf8ToBytes("missing"));
    await assert.rejects(c.getInput(comm), (e: unknown) => {
      assert.ok(e instanceof DaNotFoundError);
      assert.deepEqual(e.commitment, comm);
      return true;
    });
    m.failWith.push(503);
    await assert.rejects(c.getInput(comm), transient("HTTP_STATUS", 503));
    m.failWith.push(500);
    await assert.rejects(c.setInput(utf8ToBytes("x")), transient("HTTP_STATUS", 500));
    m.failWith.push(400);
    await assert.rejects(c.getInput(comm), transient("HTTP_STATUS", 400));
    m.failWith.push(502);
    await assert.rejects(client(m, { daService: true }).setInput(utf8ToBytes("x")), transient("HTTP_STATUS", 502));
    const dead = new DaClient({ ...c.opts, url: "http://127.0.0.1:1" });
    await assert.rejects(dead.getInput(comm), transient("NETWORK"));
  });

  it("a da-service answer that is no commitment is an AltDaCommitmentError", async () => {
    const s = createServer((_req, res) => res.writeHead(200).end(Buffer.from([7, 1, 2])));
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
    try {
      const c = new DaClient({
        ...client(m).opts,
        daService: true,
        url: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
      });
      await assert.rejects(c.setInput(utf8ToBytes("x")), codeOf("UNKNOWN_TYPE"));
    } finally {
      s.closeAllConnections();
      s.close();
    }
  });

  it("get and put timeouts → DaTransientError TIMEOUT; 0 means none; the caller's signal aborts", async () => {
    m.delayMs = 300;
    const comm = keccakCommitment(utf8ToBytes("slow"));
    const t0 = performance.now();
    await assert.rejects(client(m, { getTimeoutMs: 50 }).getInput(comm), transient("TIMEOUT"));
    assert.ok(performance.now() - t0 < 250);
    await assert.rejects(client(m, { putTimeoutMs: 50 }).setInput(utf8ToBytes("slow put")), transient("TIMEOUT"));
    // put timeout does not apply to gets, and 0 waits as long as it takes
    await assert.rejects(client(m, { putTimeoutMs: 50 }).getInput(comm), DaNotFoundError);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 30);
    await assert.rejects(client(m).getInput(comm, ctl.signal), transient("ABORTED"));
  });

  it("at most maxConcurrent requests are in flight", async () => {
    m.delayMs = 40;
    const inputs = Array.from({ length: 7 }, (_, i) => utf8ToBytes(`\x00input ${i}`));
    const c2 = client(m, { maxConcurrent: 2 });
    const comms = await Promise.all(inputs.map((x) => c2.setInput(x)));
    assert.equal(m.maxActive, 2);
    m.maxActive = 0;
    const c1 = client(m, { maxConcurrent: 1 });
    const got = await Promise.all(comms.map((x) => c1.getInput(x)));
    assert.deepEqual(got, inputs);
    assert.equal(m.maxActive, 1);
    m.maxActive = 0;
    const c5 = client(m, { maxConcurrent: 5 });
    await Promise.all(comms.map((x) => c5.getInput(x)));
    assert.equal(m.maxActive, 5);
    assert.equal(c5.inFlight, 0);
    // a failing request releases its slot
    m.delayMs = 0;
    m.failWith.push(500, 500);
    const r = await Promise.allSettled(comms.slice(0, 4).map((x) => c1.getInput(x)));
    assert.deepEqual(
      r.map((x) => x.status),
      ["rejected", "rejected", "fulfilled", "fulfilled"],
    );
  });
});
