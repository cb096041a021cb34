/**
 * The runtime config read from L1 state and `--rollup.halt`: protocol-version encoding and
 * comparison as geth defines them, the halt levels, and a load against a real L1 chain whose
 * ProtocolVersions and SystemConfig storage is proven with eth_getProof (untrusted) or read with
 * eth_getStorageAt (trusted) — both giving the same values.
 */
import { strict as assert } from "node:assert";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import {
  compareProtocolVersions,
  decodeProtocolVersion,
  encodeProtocolVersion,
  formatProtocolVersion,
  OPAL_PROTOCOL_SUPPORT,
  shouldHalt,
} from "../../../../src/rollup/config/protocolVersion.js";
import {
  loadRuntimeConfig,
  RECOMMENDED_PROTOCOL_VERSION_SLOT,
  REQUIRED_PROTOCOL_VERSION_SLOT,
  UNSAFE_BLOCK_SIGNER_SLOT,
} from "../../../../src/rollup/config/runtimeConfig.js";
import { L1Client } from "../../../../src/rollup/l1/l1Client.js";
import { SYSTEM_CONFIG } from "../../../utils/actions/l1Miner.js";
import { Rollup } from "../../../utils/actions/rollup.js";

const v = (major: number, minor = 0, patch = 0, preRelease = 0): Uint8Array =>
  encodeProtocolVersion({ build: new Uint8Array(8), major, minor, patch, preRelease });

describe("rollup/runtimeConfig and protocol versions", () => {
  it("slots are op-node's", () => {
    assert.equal(
      bytesToHex(UNSAFE_BLOCK_SIGNER_SLOT),
      "0x65a7ed542fb37fe237fdfbdd70b31598523fe5b32879e307bae27a0bd9581c08",
    );
    assert.equal(
      bytesToHex(REQUIRED_PROTOCOL_VERSION_SLOT),
      "0x4aaefe95bd84fd3f32700cf3b7566bc944b73138e41958b5785826df2aecace0",
    );
    assert.equal(
      bytesToHex(RECOMMENDED_PROTOCOL_VERSION_SLOT),
      "0xe314dfc40f0025322aacc0ba8ef420b62fb3b702cf01e0cdf3d829117ac2ff1a",
    );
  });

  it("encodes, decodes and compares like geth's ProtocolVersion", () => {
    const w = v(9, 1, 2, 3);
    assert.equal(bytesToHex(w), `0x${"00".repeat(16)}000000090000000100000002${"00000003"}`);
    assert.deepEqual(decodeProtocolVersion(w)?.major, 9);
    assert.equal(formatProtocolVersion(w), "v9.1.2-3");
    assert.equal(formatProtocolVersion(OPAL_PROTOCOL_SUPPORT), "v9.0.0");
    assert.equal(compareProtocolVersions(v(9), v(9)), "matching");
    assert.equal(compareProtocolVersions(v(9), v(10)), "outdated-major");
    assert.equal(compareProtocolVersions(v(9), v(9, 1)), "outdated-minor");
    assert.equal(compareProtocolVersions(v(9, 1), v(9, 1, 1)), "outdated-patch");
    assert.equal(compareProtocolVersions(v(10), v(9)), "ahead-major");
    assert.equal(compareProtocolVersions(v(9), v(9, 0, 0, 1)), "ahead-prerelease");
    assert.equal(compareProtocolVersions(v(9, 0, 0, 1), v(9)), "outdated-prerelease");
    assert.equal(compareProtocolVersions(v(9, 0, 0, 1), v(9, 0, 0, 2)), "outdated-prerelease");
    const other = v(9);
    other[0] = 1;
    assert.equal(compareProtocolVersions(v(9), other), "invalid");
    const build = v(9);
    build[15] = 1;
    assert.equal(compareProtocolVersions(v(9), build), "diff-build");
  });

  it("--rollup.halt levels: halt only at or above the chosen granularity", () => {
    assert.equal(shouldHalt(undefined, "outdated-major"), false);
    assert.equal(shouldHalt("none", "outdated-major"), false);
    assert.equal(shouldHalt("major", "outdated-major"), true);
    assert.equal(shouldHalt("major", "outdated-minor"), false);
    assert.equal(shouldHalt("minor", "outdated-major"), true);
    assert.equal(shouldHalt("minor", "outdated-minor"), true);
    assert.equal(shouldHalt("minor", "outdated-patch"), false);
    assert.equal(shouldHalt("patch", "outdated-patch"), true);
    assert.equal(shouldHalt("patch", "outdated-prerelease"), false);
    assert.equal(shouldHalt("patch", "ahead-major"), false);
  });

  it("loads the signer and versions from L1 state, proven (untrusted) or read (trusted), identically", async () => {
    const pv = "0x00000000000000000000000000000000000a0a0a";
    const signer = "0x000000000000000000000000000000000000beef";
    const word = (b: Uint8Array) => bytesToHex(b);
    const r = new Rollup({
      protocolVersionsAddress: pv,
      l1Alloc: {
        [pv]: {
          balance: "0x0",
          code: "0x00",
          storage: {
            [word(REQUIRED_PROTOCOL_VERSION_SLOT)]: word(v(10)),
            [word(RECOMMENDED_PROTOCOL_VERSION_SLOT)]: word(v(11)),
          },
        },
        [bytesToHex(SYSTEM_CONFIG)]: {
          storage: { [word(UNSAFE_BLOCK_SIGNER_SLOT)]: `0x${"00".repeat(12)}${signer.slice(2)}` },
        },
      },
    });
    const head = await r.miner.mine();
    for (const trustRpc of [false, true]) {
      const l1 = new L1Client({ url: "in-process://l1", transport: r.miner.exec.rpc, trustRpc });
      const rc = await loadRuntimeConfig(r.cfg, l1, head);
      assert.equal(formatProtocolVersion(rc.required), "v10.0.0");
      assert.equal(formatProtocolVersion(rc.recommended), "v11.0.0");
      assert.equal(bytesToHex(rc.unsafeBlockSigner), signer);
      assert.equal(shouldHalt("major", compareProtocolVersions(OPAL_PROTOCOL_SUPPORT, rc.required)), true);
    }
  });
});
