/**
 * ENR (EIP-778): the example record of the EIP decodes, verifies and is reproduced byte for byte
 * from its key (RFC 6979 signatures); tampering, size and ordering rules; the `eth` entry; and a
 * cross-check with @chainsafe/enr, which discv5 uses.
 */
import assert from "node:assert/strict";
import { ENR } from "@chainsafe/enr";
import { Enr, EnrError } from "../../../../src/devp2p/discovery/enr.js";
import { ETH_ENR_KEY, ethEntryValue, parseEthEntry } from "../../../../src/devp2p/discovery/ethEntry.js";
import { generateNodeKey, nodeKeyOf } from "../../../../src/devp2p/discovery/nodeKey.js";
import { bytesToHexRaw, hexToBytes } from "../../../../src/primitives/hex.js";

// SPEC: EIP-778 "Test Vectors".
const EXAMPLE =
  "enr:-IS4QHCYrYZbAKWCBRlAy5zzaDZXJBGkcnh4MHcBFZntXNFrdvJjX04jRzjzCBOonrkTfj499SZuOh8R33Ls8RRcy5wBgmlkgnY0gmlwhH8AAAGJc2VjcDI1NmsxoQPKY0yuDUmstAHYpMa2_oxVtw0RW_QAdpzBQA8yWM0xOIN1ZHCCdl8";
const KEY = nodeKeyOf(hexToBytes("b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291"));

describe("devp2p/discovery/enr", () => {
  it("decodes EIP-778's example record", () => {
    const r = Enr.decodeTxt(EXAMPLE);
    assert.equal(r.seq, 1n);
    assert.equal(r.ip, "127.0.0.1");
    assert.equal(r.udp, 30303);
    assert.equal(r.tcp, undefined);
    assert.equal(bytesToHexRaw(r.id), "a448f24c6d18e575453db13171562b71999873db5b286df957af199ec94617f7");
    assert.deepEqual(r.publicKey, KEY.publicKey);
    assert.equal(r.encodeTxt(), EXAMPLE);
  });

  it("signs the same record from the example key", () => {
    const r = Enr.sign(
      KEY,
      1n,
      new Map([
        ["ip", new Uint8Array([127, 0, 0, 1])],
        ["udp", new Uint8Array([0x76, 0x5f])],
      ]),
    );
    assert.equal(r.encodeTxt(), EXAMPLE);
  });

  it("refuses tampered, oversized, unsorted and non-v4 records", () => {
    const raw = Enr.decodeTxt(EXAMPLE).raw.slice();
    raw[raw.length - 1] ^= 1; // the udp port
    assert.throws(() => Enr.decode(raw), EnrError);
    assert.throws(() => Enr.decode(new Uint8Array(301)), /exceeds 300/);
    assert.throws(() => Enr.decodeTxt("enr:@@@"), EnrError);
    assert.throws(() => Enr.decodeTxt("xyz"), EnrError);
    assert.throws(() => Enr.decode(new Uint8Array([0xc0])), EnrError);
    assert.throws(() => Enr.decode(new Uint8Array([0x80])), EnrError);
    const big = new Map([["x", new Uint8Array(260)]]);
    assert.throws(() => Enr.sign(KEY, 1n, big), /exceeds 300/);
    for (let i = 0; i < 500; i++) {
      const junk = new Uint8Array(Math.floor(Math.random() * 300));
      for (let j = 0; j < junk.length; j++) junk[j] = Math.floor(Math.random() * 256);
      assert.throws(() => Enr.decode(junk), EnrError);
    }
  });

  it("carries the eth entry [[forkHash, forkNext]] and agrees with @chainsafe/enr", () => {
    const key = generateNodeKey();
    const id = { hash: hexToBytes("0xfc64ec04"), next: 1150000 };
    const r = Enr.sign(
      key,
      5n,
      new Map([
        [ETH_ENR_KEY, ethEntryValue(id)],
        ["tcp", new Uint8Array([0x76, 0x5f])],
      ]),
    );
    assert.deepEqual(parseEthEntry(r.get(ETH_ENR_KEY)), id);
    // The value is a list inside the record (ca c9 84 <hash> 83 <next>), not a byte string.
    assert.equal(bytesToHexRaw(r.getRaw(ETH_ENR_KEY)!), "cac984fc64ec0483118c30");
    const theirs = ENR.decodeTxt(r.encodeTxt());
    assert.equal(theirs.nodeId, bytesToHexRaw(r.id));
    assert.equal(theirs.tcp, 30303);
    assert.equal(parseEthEntry(undefined), null);
    assert.equal(parseEthEntry([new Uint8Array(4)]), null);
    assert.equal(parseEthEntry([[new Uint8Array(3), new Uint8Array(0)]]), null);
    assert.deepEqual(parseEthEntry([[new Uint8Array(4), new Uint8Array(0)], new Uint8Array(1)]), {
      hash: new Uint8Array(4),
      next: 0,
    });
  });
});
