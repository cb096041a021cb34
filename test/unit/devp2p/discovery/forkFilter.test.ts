/**
 * EIP-2124 validation (geth core/forkid TestValidation's mainnet cases): our filter over mainnet's
 * fork points, the hashes cross-checked against spec/forkId.ts and EIP-2124's published ids.
 */
import assert from "node:assert/strict";
import { ForkCheck, newForkFilter } from "../../../../src/devp2p/discovery/forkFilter.js";
import { bytesToHexRaw, hexToBytes } from "../../../../src/primitives/hex.js";
import { type ForkPoints, forkIdAt } from "../../../../src/spec/forkId.js";

const GENESIS = hexToBytes("0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3");
const POINTS: ForkPoints = {
  blocks: [
    1150000, 1920000, 2463000, 2675000, 4370000, 7280000, 9069000, 9200000, 12244000, 12965000, 13773000, 15050000,
  ],
  times: [1681338455, 1710338135],
};
const id = (h: string, next: number) => ({ hash: hexToBytes(h), next });

describe("devp2p/discovery/forkFilter (EIP-2124)", () => {
  it("our fork ids match EIP-2124's mainnet ids", () => {
    assert.equal(bytesToHexRaw(forkIdAt(GENESIS, POINTS, 0, 0).hash), "fc64ec04");
    assert.equal(bytesToHexRaw(forkIdAt(GENESIS, POINTS, 4370000, 0).hash), "a00bc324");
    assert.equal(bytesToHexRaw(forkIdAt(GENESIS, POINTS, 7987396, 0).hash), "668db0af");
  });

  const at = (number: number, time = 0) => newForkFilter(GENESIS, POINTS, () => ({ number, time }));
  const cases: [number, string, number, ForkCheck][] = [
    // Same fork, no future fork / unknown future fork: connect (1b).
    [7987396, "0x668db0af", 0, ForkCheck.Ok],
    [7987396, "0x668db0af", Number.MAX_SAFE_INTEGER, ForkCheck.Ok],
    // Local Byzantium, remote Byzantium knowing Petersburg.
    [7279999, "0xa00bc324", 7280000, ForkCheck.Ok],
    [7279999, "0xa00bc324", Number.MAX_SAFE_INTEGER, ForkCheck.Ok],
    // Remote behind on our schedule with the right next fork (2).
    [7987396, "0xa00bc324", 7280000, ForkCheck.Ok],
    [7987396, "0x3edd5b10", 4370000, ForkCheck.Ok],
    // Remote ahead on our schedule (3).
    [4369999, "0xa00bc324", 0, ForkCheck.Ok],
    // Remote behind without our next fork: stale (2).
    [7987396, "0xa00bc324", 0, ForkCheck.RemoteStale],
    [7987396, "0x3edd5b10", 0, ForkCheck.RemoteStale],
    // Unknown fork hashes: another chain (4).
    [7279999, "0x5cddc0e1", 0, ForkCheck.LocalIncompatibleOrStale],
    [7987396, "0xafec6b27", 0, ForkCheck.LocalIncompatibleOrStale],
    // Same fork, but the remote's next fork already passed here (1a).
    [7987396, "0x668db0af", 7987396, ForkCheck.LocalIncompatibleOrStale],
  ];
  for (const [head, hash, next, want] of cases) {
    it(`head ${head}, remote ${hash}/${next} → ${want}`, () => {
      assert.equal(at(head)(id(hash, next)), want);
    });
  }

  it("time forks compare with the head time (EIP-6122)", () => {
    const shanghai = forkIdAt(GENESIS, POINTS, 20_000_000, 1_700_000_000);
    assert.equal(bytesToHexRaw(shanghai.hash), "dce96c2d");
    assert.equal(shanghai.next, 1710338135);
    assert.equal(at(20_000_000, 1_700_000_000)(shanghai), ForkCheck.Ok);
    // A node past Cancun sees a remote still announcing Cancun as next at Shanghai: fine (2).
    assert.equal(at(20_000_000, 1_720_000_000)(shanghai), ForkCheck.Ok);
    // A remote announcing a time fork we passed without it (1a).
    assert.equal(
      at(20_000_000, 1_700_000_000)({ hash: shanghai.hash, next: 1_690_000_000 }),
      ForkCheck.LocalIncompatibleOrStale,
    );
  });
});
