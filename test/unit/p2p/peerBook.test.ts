/**
 * The peer book: bans expire, blocks stay until lifted, subnets match IPv4 and IPv6, everything
 * survives a reopen of the same folder (and nothing is written for `memory`), a damaged file is a
 * clear error; the network key file is created once and reused.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadOrCreateNetworkKey, peerIdOfNetworkKey } from "../../../src/p2p/netKey.js";
import { PeerBook, PeerBookError, parseCidr, SubnetSet } from "../../../src/p2p/peerBook.js";

function tempDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `opal-${prefix}-`));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

describe("p2p/peerBook", () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir("peerbook");
  });
  afterEach(() => dir.remove());

  it("bans expire; blocks stay until lifted; both survive a reopen", () => {
    let now = 1_000_000;
    const path = join(dir.path, "ps");
    const book = PeerBook.open(path, () => now);
    book.banPeer("16Uiu2A", 5000);
    book.banIp("10.1.2.3", 5000);
    book.blockPeer("16Uiu2B");
    book.blockAddr("192.168.0.9");
    book.blockSubnet("172.16.0.0/12");
    book.storePrivateKeyCopy("ab".repeat(32));
    assert.equal(book.peerAllowed("16Uiu2A"), false);
    assert.equal(book.peerAllowed("16Uiu2B"), false);
    assert.equal(book.peerAllowed("16Uiu2C"), true);
    assert.equal(book.ipAllowed("10.1.2.3"), false);
    assert.equal(book.ipAllowed("192.168.0.9"), false);
    assert.equal(book.ipAllowed("172.20.1.1"), false);
    assert.equal(book.ipAllowed("8.8.8.8"), true);

    const again = PeerBook.open(path, () => now);
    assert.equal(again.peerBanExpiry("16Uiu2A"), 1_005_000);
    assert.deepEqual(again.blockedPeers(), ["16Uiu2B"]);
    assert.deepEqual(again.blockedAddrs(), ["192.168.0.9"]);
    assert.deepEqual(again.blockedSubnets(), ["172.16.0.0/12"]);
    assert.equal(again.privateKeyCopy, "ab".repeat(32));
    now += 5000;
    assert.equal(again.peerAllowed("16Uiu2A"), true, "ban ended");
    assert.equal(again.ipAllowed("10.1.2.3"), true);
    assert.equal(again.peerAllowed("16Uiu2B"), false, "blocks do not expire");
    again.unblockPeer("16Uiu2B");
    again.unblockSubnet("172.16.0.0/12");
    again.unblockAddr("192.168.0.9");
    const third = PeerBook.open(path, () => now);
    assert.equal(third.peerAllowed("16Uiu2B"), true);
    assert.equal(third.ipAllowed("172.20.1.1"), true);
    assert.equal(third.ipAllowed("192.168.0.9"), true);
    assert.deepEqual(third.bannedPeers(), {});
  });

  it("memory keeps nothing on disk; a damaged file is a clear error", () => {
    const book = PeerBook.open("memory");
    book.banPeer("x", 1000);
    assert.equal(book.peerAllowed("x"), false);
    assert.deepEqual(readdirSync(dir.path), []);
    const path = join(dir.path, "ps");
    PeerBook.open(path).banPeer("y", 1000);
    writeFileSync(join(path, "opal_peerbook.json"), "{not json");
    assert.throws(
      () => PeerBook.open(path),
      (e: Error) => e instanceof PeerBookError && /not a peer book/.test(e.message),
    );
  });

  it("subnets: IPv4 and IPv6 CIDRs, bad masks refused", () => {
    const s = new SubnetSet(["10.0.0.0/8", "fd00::/8"]);
    assert.ok(s.has("10.200.0.1"));
    assert.ok(!s.has("11.0.0.1"));
    assert.ok(s.has("fd12::1"));
    assert.ok(!s.has("fe80::1"));
    assert.ok(!s.has("not an ip"));
    assert.equal(parseCidr("10.0.0.0/33"), null);
    assert.equal(parseCidr("10.0.0.0"), null);
    assert.throws(() => s.add("1.2.3.4/x"), PeerBookError);
    s.remove("10.0.0.0/8");
    assert.ok(!s.has("10.200.0.1"));
  });

  it("the network key is created once (mode 0600), reused, and gives a secp256k1 peer id", async () => {
    const path = join(dir.path, "sub", "p2p.key");
    const a = loadOrCreateNetworkKey(path);
    assert.equal(a.created, true);
    assert.ok(existsSync(path));
    const b = loadOrCreateNetworkKey(path);
    assert.equal(b.created, false);
    assert.deepEqual(b.key, a.key);
    assert.match(await peerIdOfNetworkKey(a.key), /^16Uiu2/);
    writeFileSync(path, "zz");
    assert.throws(() => loadOrCreateNetworkKey(path), /does not hold a hex secp256k1 private key/);
  });
});
