/**
 * The external block signer over HTTPS with TLS client authentication: a local op-signer stand-in
 * (node:https, `requestCert` + `rejectUnauthorized`, the certificates in test/fixtures/tls) answers
 * `opsigner_signBlockPayload`. It computes the signing hash itself from the spec — keccak256(domain
 * ‖ uint256 chainId ‖ payloadHash) — with @noble/hashes and signs with @noble/curves, so the test
 * does not lean on Opal's own signing code. Checked: op-service's request shape and the extra
 * headers; the signature reaching a verifier over gossip; a wrong client certificate, an untrusted
 * server, a wrong signing key, a JSON-RPC error and missing files, each a clear BlockSignerError.
 */
import "../../../src/p2p/polyfill.js";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { TLSSocket } from "node:tls";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { privateKeyToAddress } from "../../../src/crypto/secp256k1.js";
import { BlockSignerError, blockSignerFromConfig, RemoteBlockSigner } from "../../../src/p2p/blockSigner.js";
import { blocksTopic, blockVersionAt } from "../../../src/p2p/gossipBlock.js";
import { P2pNode } from "../../../src/p2p/host.js";
import { bytesToHex, hexToBytes } from "../../../src/primitives/hex.js";
import { Rollup } from "../../utils/actions/rollup.js";
import { tempDir, waitFor } from "../../utils/node.js";
import { p2pConfig, quiet } from "../../utils/p2p.js";

const TLS = join(import.meta.dirname, "..", "..", "fixtures", "tls");
const pem = (f: string) => join(TLS, f);
const SIGNER_KEY = hexToBytes(`0x${"5a".repeat(32)}`);
const SIGNER = bytesToHex(privateKeyToAddress(SIGNER_KEY));
const WRONG_KEY = hexToBytes(`0x${"3c".repeat(32)}`);

interface SignRequest {
  domain: number[];
  chainId: number;
  payloadHash: string;
  senderAddress: string;
}

/** The op-signer stand-in: what it saw, and what it answers with. */
class FakeSigner {
  server!: Server;
  url = "";
  readonly seen: { params: SignRequest; headers: Record<string, unknown>; clientCn: string }[] = [];
  key: Uint8Array = SIGNER_KEY;
  error: { code: number; message: string } | null = null;

  async start(): Promise<void> {
    this.server = createServer(
      {
        key: readFileSync(pem("server.key")),
        cert: readFileSync(pem("server.pem")),
        ca: readFileSync(pem("ca.pem")),
        requestCert: true,
        rejectUnauthorized: true,
      },
      (req, res) => {
        let body = "";
        req.on("data", (c) => (body += c));
        req.on("end", () => {
          const msg = JSON.parse(body) as { id: number; method: string; params: [SignRequest] };
          const params = msg.params[0];
          const cert = (req.socket as TLSSocket).getPeerCertificate();
          this.seen.push({ params, headers: req.headers, clientCn: String(cert.subject?.CN) });
          res.setHeader("content-type", "application/json");
          if (this.error !== null || msg.method !== "opsigner_signBlockPayload") {
            res.end(
              JSON.stringify({ jsonrpc: "2.0", id: msg.id, error: this.error ?? { code: -32601, message: "no" } }),
            );
            return;
          }
          // The signing hash from the spec, computed here: domain ‖ uint256(chainId) ‖ payloadHash.
          const input = new Uint8Array(96);
          input.set(Uint8Array.from(params.domain), 0);
          input.set(hexToBytes(`0x${BigInt(params.chainId).toString(16).padStart(64, "0")}`), 32);
          input.set(Buffer.from(params.payloadHash, "base64"), 64);
          const sig = secp256k1.sign(keccak_256(input), this.key, { prehash: false, format: "recovered" });
          // noble's recovered format is v ‖ r ‖ s; op-signer answers r ‖ s ‖ v with v as 27/28.
          const out = new Uint8Array(65);
          out.set(sig.subarray(1), 0);
          out[64] = sig[0]! + 27;
          res.end(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result: bytesToHex(out) }));
        });
      },
    );
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((r) => this.server.close(() => r()));
  }
}

function remote(url: string, over: Partial<{ ca: string; cert: string; key: string }> = {}, address = SIGNER) {
  return new RemoteBlockSigner({
    endpoint: url,
    address,
    headers: ["X-Api-Key=secret", "X-Team = sequencers"],
    tls: {
      enabled: true,
      ca: pem(over.ca ?? "ca.pem"),
      cert: pem(over.cert ?? "client.pem"),
      key: pem(over.key ?? "client.key"),
    },
    timeoutMs: 5000,
  });
}

describe("p2p/blockSigner: external signer over mutual TLS", function () {
  this.timeout(60_000);
  const fake = new FakeSigner();
  const payloadHash = hexToBytes(`0x${"ab".repeat(32)}`);

  before(() => fake.start());
  after(() => fake.stop());
  afterEach(() => {
    fake.key = SIGNER_KEY;
    fake.error = null;
  });

  it("sends op-service's BlockPayloadArgs with the extra headers and returns a signature from the signer", async () => {
    const sig = await remote(fake.url).sign(901n, payloadHash);
    assert.equal(sig.length, 65);
    assert.ok(sig[64] === 0 || sig[64] === 1, "v normalised to 0/1 for gossip");
    const last = fake.seen.at(-1)!;
    assert.deepEqual(last.params, {
      domain: new Array(32).fill(0),
      chainId: 901,
      payloadHash: Buffer.from(payloadHash).toString("base64"),
      senderAddress: SIGNER,
    });
    assert.equal(last.headers["x-api-key"], "secret");
    assert.equal(last.headers["x-team"], "sequencers");
    assert.equal(last.clientCn, "opal-node");
  });

  it("the sequencer's blocks signed remotely reach a verifier and pass its signature check", async () => {
    const dir = tempDir("p2p-remote-signer");
    const rollup = new Rollup({ l1Timestamp: Math.floor(Date.now() / 1000) - 10 });
    const verifier = rollup.verifier();
    await verifier.sync();
    const deps = {
      cfg: rollup.cfg,
      log: quiet,
      unsafeSigner: () => hexToBytes(SIGNER),
      onUnsafePayload: () => undefined,
      payloadByNumber: async () => null,
    };
    const signer = blockSignerFromConfig({
      "signer.endpoint": fake.url,
      "signer.address": SIGNER,
      "signer.tls.enabled": true,
      "signer.tls.ca": pem("ca.pem"),
      "signer.tls.cert": pem("client.pem"),
      "signer.tls.key": pem("client.key"),
    });
    assert.ok(signer instanceof RemoteBlockSigner);
    const seq = await P2pNode.start(p2pConfig(dir.path, "seq"), { ...deps, blockSigner: signer });
    const ver = await P2pNode.start(p2pConfig(dir.path, "ver", { "p2p.static": [seq.listenAddrs()[0]!] }), {
      ...deps,
      onUnsafePayload: (env) => verifier.driver.addUnsafePayload(env),
    });
    try {
      const ref = await rollup.sequencer.buildBlock();
      const env = rollup.sequencer.envelopes.at(-1)!;
      const topic = blocksTopic(rollup.cfg.l2ChainId, blockVersionAt(rollup.cfg, env.timestamp));
      await waitFor(() => seq.libp2p.services.pubsub.getMeshPeers(topic).includes(ver.peerIdString), 15_000, "mesh");
      await seq.publishBlock(env);
      await waitFor(() => ver.counters.accepted === 1, 10_000, "the remotely signed block to be accepted");
      await verifier.driver.step();
      assert.equal(bytesToHex(verifier.heads.unsafe.hash), bytesToHex(ref.hash));
    } finally {
      await ver.stop();
      await seq.stop();
      dir.remove();
    }
  });

  it("a client certificate from another CA is refused by the signer: a clear TLS error", async () => {
    const before = fake.seen.length;
    await assert.rejects(
      remote(fake.url, { cert: "rogue-client.pem", key: "rogue-client.key" }).sign(901n, payloadHash),
      (e: unknown) => e instanceof BlockSignerError && /TLS handshake with signer .* failed/.test(e.message),
    );
    assert.equal(fake.seen.length, before, "the request never reached the handler");
  });

  it("a signer whose certificate our CA did not issue is not trusted", async () => {
    await assert.rejects(
      remote(fake.url, { ca: "rogue-ca.pem" }).sign(901n, payloadHash),
      (e: unknown) => e instanceof BlockSignerError && /TLS handshake .* failed .*certificate/i.test(e.message),
    );
  });

  it("a signature from another key, or a JSON-RPC error, is an error naming the cause", async () => {
    fake.key = WRONG_KEY;
    await assert.rejects(
      remote(fake.url).sign(901n, payloadHash),
      (e: unknown) =>
        e instanceof BlockSignerError &&
        e.message === `signer signature is from ${bytesToHex(privateKeyToAddress(WRONG_KEY))}, not ${SIGNER}`,
    );
    fake.key = SIGNER_KEY;
    fake.error = { code: -32000, message: "key not allowed" };
    await assert.rejects(
      remote(fake.url).sign(901n, payloadHash),
      (e: unknown) => e instanceof BlockSignerError && /returned error -32000: key not allowed/.test(e.message),
    );
  });

  it("missing certificate files and bad options fail at startup", () => {
    assert.throws(
      () => remote(fake.url, { cert: "nope.pem" }),
      (e: unknown) => e instanceof BlockSignerError && /^--signer\.tls\.cert: cannot read .*nope\.pem/.test(e.message),
    );
    assert.throws(
      () => remote("http://127.0.0.1:1"),
      (e: unknown) => e instanceof BlockSignerError && /TLS is enabled but .* is not https/.test(e.message),
    );
    assert.throws(
      () =>
        blockSignerFromConfig({
          "signer.endpoint": fake.url,
          "signer.tls.enabled": true,
          "signer.tls.ca": pem("ca.pem"),
          "signer.tls.cert": pem("client.pem"),
          "signer.tls.key": pem("client.key"),
        }),
      /--signer\.endpoint needs --signer\.address/,
    );
  });
});
