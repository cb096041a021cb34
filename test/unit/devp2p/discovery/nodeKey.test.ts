/** The node key file (geth's nodekey format) and enode URLs. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatEnode, parseEnode } from "../../../../src/devp2p/discovery/enode.js";
import {
  compressPublicKey,
  decompressPublicKey,
  loadOrCreateNodeKey,
  NodeKeyError,
  nodeKeyPath,
} from "../../../../src/devp2p/discovery/nodeKey.js";
import { bytesToHexRaw } from "../../../../src/primitives/hex.js";

describe("devp2p/discovery/nodeKey", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "opal-nodekey-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("creates <datadir>/nodekey as 64 hex chars, mode 0600, and reads it back", () => {
    const a = loadOrCreateNodeKey(dir);
    const path = nodeKeyPath(dir);
    assert.equal(path, join(dir, "nodekey"));
    assert.equal(readFileSync(path, "latin1"), bytesToHexRaw(a.privateKey));
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const b = loadOrCreateNodeKey(dir);
    assert.deepEqual(b.privateKey, a.privateKey);
    assert.deepEqual(b.id, a.id);
    assert.equal(a.publicKey.length, 64);
    assert.deepEqual(decompressPublicKey(compressPublicKey(a.publicKey)), a.publicKey);
  });

  it("accepts geth's file with a trailing newline and refuses a damaged one", () => {
    writeFileSync(nodeKeyPath(dir), "b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291\n");
    assert.equal(
      bytesToHexRaw(loadOrCreateNodeKey(dir).publicKey).slice(0, 16),
      "ca634cae0d49acb4",
      "EIP-8's key b71c71a6… has public key ca634cae…",
    );
    writeFileSync(nodeKeyPath(dir), "zz");
    assert.throws(() => loadOrCreateNodeKey(dir), NodeKeyError);
    writeFileSync(nodeKeyPath(dir), "0".repeat(64));
    assert.throws(() => loadOrCreateNodeKey(dir), /not a valid secp256k1 key/);
  });
});

describe("devp2p/discovery/enode", () => {
  const PUB =
    "ca2774c3c401325850b2477fd7d0f27911efbf79b1e8b335066516e2bd8c4c9e0ba9696a94b1cb030a88eac582305ff55e905e64fb77fe0edcd70a4e5296d3ec";
  it("parses and formats, with discport and IPv6", () => {
    const n = parseEnode(`enode://${PUB}@34.65.175.185:30305`);
    assert.equal(n.tcpPort, 30305);
    assert.equal(n.udpPort, 30305);
    assert.deepEqual([...n.ip], [34, 65, 175, 185]);
    assert.equal(formatEnode(n), `enode://${PUB}@34.65.175.185:30305`);
    const d = parseEnode(`enode://${PUB}@10.0.0.1:30303?discport=30301`);
    assert.equal(d.udpPort, 30301);
    assert.equal(formatEnode(d), `enode://${PUB}@10.0.0.1:30303?discport=30301`);
    const v6 = parseEnode(`enode://${PUB}@[2001:db8::1]:30303`);
    assert.equal(v6.ip.length, 16);
    assert.equal(formatEnode(v6), `enode://${PUB}@[2001:db8::1]:30303`);
  });
  it("refuses malformed URLs", () => {
    for (const bad of [
      "enode://abc@1.2.3.4:30303",
      `enode://${PUB}@host.example:30303`,
      `enode://${PUB}@1.2.3.4:99999`,
      `enode://${PUB}@1.2.3.4`,
      `enode://${"00".repeat(64)}@1.2.3.4:1`,
      `enode://${PUB}@1.2.3.4:30303?discport=x`,
    ]) {
      assert.throws(() => parseEnode(bad), Error, bad);
    }
  });
});
