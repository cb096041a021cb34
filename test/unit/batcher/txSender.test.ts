/**
 * The batcher's blob wrapper version: cell proofs (EIP-7594 wrapper version 1) once the latest L1
 * block is at the L1's Osaka time, blob proofs (version 0) before, as op-batcher switches at
 * --txmgr.cell-proof-time (op-service txmgr.go). The Osaka time comes from the option, else from the
 * L1's eth_config (EIP-7910: the config listing P256VERIFY, Osaka's precompile on L1), else from the
 * L1s op-service knows. The L1 here is a stub that records what is sent.
 */
import { strict as assert } from "node:assert";
import { l1OsakaTime, TxSender } from "../../../src/batcher/txSender.js";
import { loadKzg } from "../../../src/crypto/kzg.js";
import { devAccounts } from "../../../src/node/exec/devGenesis.js";
import { hexToBytes } from "../../../src/primitives/hex.js";
import type { RpcTransport } from "../../../src/rollup/transport/rpcTransport.js";
import { decodeBlobTxNetwork } from "../../../src/tx/blobNetwork.js";

const P256 = { P256VERIFY: "0x0000000000000000000000000000000000000100" };
const BLOCK_HASH = `0x${"ab".repeat(32)}`;

/** An L1 stub: latest block at `headTime`, eth_config as given (undefined: not served). */
function stubL1(headTime: number, ethConfig: unknown): { l1: RpcTransport; sent: Uint8Array[] } {
  const sent: Uint8Array[] = [];
  const l1: RpcTransport = {
    async call<T>(method: string, params: readonly unknown[] = []): Promise<T> {
      const out = ((): unknown => {
        switch (method) {
          case "eth_config":
            if (ethConfig === undefined) throw new Error("the method eth_config does not exist/is not available");
            return ethConfig;
          case "eth_getTransactionCount":
            return "0x0";
          case "eth_getBlockByNumber":
            return params[0] === "latest"
              ? { baseFeePerGas: "0x7", timestamp: `0x${headTime.toString(16)}` }
              : { hash: BLOCK_HASH };
          case "eth_maxPriorityFeePerGas":
            return "0x1";
          case "eth_blobBaseFee":
            return "0x1";
          case "eth_sendRawTransaction":
            sent.push(hexToBytes(params[0] as string));
            return `0x${"cd".repeat(32)}`;
          case "eth_getTransactionReceipt":
            return { status: "0x1", blockNumber: "0x5", blockHash: BLOCK_HASH };
          case "eth_blockNumber":
            return "0x5";
          default:
            throw new Error(`unexpected ${method}`);
        }
      })();
      return out as T;
    },
    async callBatch() {
      throw new Error("no batches");
    },
  };
  return { l1, sent };
}

function sender(l1: RpcTransport, chainId: bigint, cellProofTime?: number | null): TxSender {
  return new TxSender(l1, {
    privateKey: devAccounts(1)[0]!.privateKey,
    chainId,
    numConfirmations: 1,
    resubmissionTimeoutMs: 1000,
    feeBumpPercent: 10,
    maxAttempts: 1,
    pollMs: 1,
    ...(cellProofTime === undefined ? {} : { cellProofTime }),
  });
}

const INBOX = hexToBytes("0xff00000000000000000000000000000000000901");

describe("batcher/txSender: the blob wrapper version follows the L1's Osaka", function () {
  this.timeout(60_000);

  it("l1OsakaTime: eth_config's config with P256VERIFY, else the known L1s, else none", async () => {
    const scheduled = {
      current: { activationTime: 0, precompiles: {} },
      next: { activationTime: 1000, precompiles: P256 },
      last: { activationTime: 1000, precompiles: P256 },
    };
    assert.equal(await l1OsakaTime(stubL1(0, scheduled).l1, 1337n), 1000);
    const active = { current: { activationTime: 5, precompiles: P256 }, next: null, last: null };
    assert.equal(await l1OsakaTime(stubL1(0, active).l1, 1337n), 5);
    assert.equal(await l1OsakaTime(stubL1(0, { current: { activationTime: 0, precompiles: {} } }).l1, 1337n), null);
    // No eth_config: geth v1.16.7 params' Osaka times of the L1s op-service knows.
    assert.equal(await l1OsakaTime(stubL1(0, undefined).l1, 1n), 1764798551);
    assert.equal(await l1OsakaTime(stubL1(0, undefined).l1, 11155111n), 1760427360);
    assert.equal(await l1OsakaTime(stubL1(0, undefined).l1, 1337n), null);
  });

  it("sends blob proofs before the L1's Osaka and cell proofs from it; the option overrides", async () => {
    const kzg = loadKzg();
    const scheduled = {
      current: { activationTime: 0, precompiles: {} },
      next: { activationTime: 1000, precompiles: P256 },
    };
    const cases: [number, number | null | undefined, 0 | 1][] = [
      [999, undefined, 0],
      [1000, undefined, 1],
      [5000, null, 0],
      [10, 10, 1],
    ];
    for (const [headTime, option, want] of cases) {
      const { l1, sent } = stubL1(headTime, scheduled);
      await sender(l1, 1337n, option).sendBlobs(INBOX, [Uint8Array.of(1, 2, 3)]);
      assert.equal(sent.length, 1);
      const w = decodeBlobTxNetwork(sent[0]!);
      assert.equal(w.wrapperVersion, want, `head ${headTime}, option ${option}`);
      if (want === 0) {
        assert.equal(kzg.verifyBlobKzgProof(w.blobs[0]!, w.commitments[0]!, w.proofs[0]!), true);
      } else {
        const cells = kzg.computeCells(w.blobs[0]!);
        const indices = cells.map((_, i) => i);
        const commitments = cells.map(() => w.commitments[0]!);
        assert.equal(kzg.verifyCellKzgProofBatch(commitments, indices, cells, [...w.proofs]), true);
      }
    }
  });
});
