/**
 * A real OP dev chain with Karst at genesis, as a user starts one: `opal-exec genesis --fork karst`
 * → `opal-exec init` → `opal-exec --dev`, and the same with `--fork jovian` for contrast. Over
 * JSON-RPC (eth_call runs in the evmCall worker, as configured by default):
 * - an eth_call without `to` whose init code runs CLZ (0x1e) returns the result at Karst and fails as
 *   an invalid opcode at Jovian (EIP-7939 comes with Karst's Osaka EVM);
 * - eth_sendRawTransaction of a tx with 2^24 + 1 gas gets op-reth's answer, code -32003 "gas limit
 *   too high" (reth's pool error for EIP-7825, rpc-eth-types RpcInvalidTransactionError), and is
 *   accepted at Jovian;
 * - eth_estimateGas of a plain transfer is 21,000;
 * - the dev sealer seals Karst blocks (L1-attributes deposit first, Jovian extraData).
 */
import { strict as assert } from "node:assert";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { main } from "../../../../src/cli/opalExec.js";
import { devAccounts } from "../../../../src/node/exec/devGenesis.js";
import { ExecNode } from "../../../../src/node/exec/execNode.js";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../../../src/tx/tx.js";
import { call, rpc } from "../../../utils/jsonRpc.js";
import { configOf, tempDir, waitFor } from "../../../utils/node.js";

const CHAIN_ID = 901n;
const CAP = 16_777_216n;
/** PUSH1 1; CLZ; PUSH1 0; MSTORE; PUSH1 32; PUSH1 0; RETURN: clz(1) = 255 as a 32-byte word. */
const CLZ_INITCODE = "0x60011e60005260206000f3";

function signedTransfer(nonce: bigint, gas: bigint): string {
  const [a, b] = devAccounts(2);
  const tx: FeeMarketTx = {
    type: TxType.FeeMarket,
    chainId: CHAIN_ID,
    nonce,
    maxPriorityFeePerGas: 1_000_000_000n,
    maxFeePerGas: 10_000_000_000n,
    gasLimit: gas,
    to: b!.address,
    value: 1n,
    data: new Uint8Array(0),
    accessList: [],
    yParity: 0,
    r: 0n,
    s: 0n,
  };
  return bytesToHex(encodeTx(signTx(tx, a!.privateKey)));
}

interface Started {
  node: ExecNode;
  url: string;
  genesis: { config: Record<string, unknown>; extraData: string };
  dir: ReturnType<typeof tempDir>;
}

async function startDev(fork: string): Promise<Started> {
  const dir = tempDir(`op-${fork}`);
  const file = join(dir.path, "genesis.json");
  const io = { out: () => undefined, err: () => undefined };
  assert.equal(await main(["genesis", "--chainid", String(CHAIN_ID), "--fork", fork, "--out", file], {}, io), 0);
  const genesis = JSON.parse(readFileSync(file, "utf8"));
  assert.equal(await main(["init", file, "--datadir", dir.path, "--verbosity", "0"], {}, io), 0);
  const node = await ExecNode.start(configOf(["--dev", "--datadir", dir.path, "--http"]), { print: () => undefined });
  return { node, url: `http://127.0.0.1:${node.httpServer?.address().port}`, genesis, dir };
}

describe("node: an OP dev chain with Karst at genesis (opal-exec genesis --fork karst, init, --dev)", function () {
  this.timeout(180_000);
  let karst: Started;
  let jovian: Started;
  const from = bytesToHex(devAccounts(1)[0]!.address);

  before(async () => {
    karst = await startDev("karst");
    jovian = await startDev("jovian");
  });

  after(async () => {
    for (const s of [karst, jovian]) {
      if (s === undefined) continue;
      await s.node.stop();
      s.dir.remove();
    }
  });

  it("the genesis carries karstTime, osakaTime and Jovian's extraData", () => {
    const c = karst.genesis.config;
    assert.deepEqual([c.jovianTime, c.karstTime, c.osakaTime], [0, 0, 0]);
    assert.equal(karst.genesis.extraData.length, 2 + 17 * 2, "17-byte Jovian extraData");
    assert.equal(jovian.genesis.config.karstTime, undefined);
    assert.equal(jovian.genesis.config.osakaTime, undefined);
  });

  it("eth_call without `to` runs CLZ at Karst; at Jovian it is an invalid opcode", async () => {
    const k = await rpc(karst.url, "eth_call", [{ from, data: CLZ_INITCODE }, "latest"]);
    assert.equal(k.json?.result, `0x${"00".repeat(31)}ff`);
    const j = await rpc(jovian.url, "eth_call", [{ from, data: CLZ_INITCODE }, "latest"]);
    assert.equal(j.json?.result, undefined);
    assert.match(j.json?.error?.message ?? "", /invalid opcode/);
  });

  it("eth_estimateGas of a plain transfer is 21,000", async () => {
    const to = bytesToHex(devAccounts(2)[1]!.address);
    assert.equal(await call(karst.url, "eth_estimateGas", [{ from, to, value: "0x1" }]), "0x5208");
  });

  it("eth_sendRawTransaction with 2^24 + 1 gas: op-reth's refusal at Karst, accepted at Jovian", async () => {
    const raw = signedTransfer(0n, CAP + 1n);
    const k = await rpc(karst.url, "eth_sendRawTransaction", [raw]);
    assert.deepEqual(k.json?.error, { code: -32003, message: "gas limit too high" });
    const j = await rpc(jovian.url, "eth_sendRawTransaction", [raw]);
    assert.equal(typeof j.json?.result, "string", j.body);
  });

  it("the dev sealer seals Karst blocks with a tx at the cap", async () => {
    const hash = (await call(karst.url, "eth_sendRawTransaction", [signedTransfer(0n, CAP)])) as string;
    let receipt: Record<string, string> | null = null;
    await waitFor(
      async () => {
        receipt = (await call(karst.url, "eth_getTransactionReceipt", [hash])) as Record<string, string> | null;
        return receipt !== null;
      },
      30_000,
      "the transfer's receipt",
    );
    const r = receipt as unknown as Record<string, string>;
    assert.equal(r.status, "0x1");
    const block = (await call(karst.url, "eth_getBlockByHash", [r.blockHash, true])) as {
      transactions: { type: string }[];
      extraData: string;
    };
    assert.equal(block.transactions[0]!.type, "0x7e", "the L1-attributes deposit opens the block");
    assert.equal(block.extraData, karst.genesis.extraData, "Jovian extraData with the chain's parameters");
  });
});
