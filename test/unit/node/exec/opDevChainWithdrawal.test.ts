/**
 * A withdrawal on an OP dev chain (`opDevGenesis`, sealed by the dev sealer as `opal-exec --dev` does):
 * `L2ToL1MessagePasser.initiateWithdrawal(target, gasLimit, data)` with value at 0x4200…0016, the
 * genesis's real message passer behind its proxy (specs protocol/withdrawals.md). Checked through
 * the eth namespace: the tx succeeds and emits `MessagePassed(nonce, sender, target, value,
 * gasLimit, data, withdrawalHash)` with the versioned nonce (version 1 in the top two bytes) and
 * withdrawalHash = keccak256(abi.encode(nonce, sender, target, value, gasLimit, data)) built here;
 * `sentMessages(withdrawalHash)` is true and `messageNonce()` moved on; the ETH is the message
 * passer's balance; and the block's withdrawalsRoot (Isthmus) is the message passer's storage root.
 */
import { strict as assert } from "node:assert";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { devAccounts, opDevGenesis } from "../../../../src/node/exec/devGenesis.js";
import { DevSealer } from "../../../../src/node/exec/devSealer.js";
import { encodeTx } from "../../../../src/tx/envelope.js";
import { signTx } from "../../../../src/tx/signer.js";
import { type FeeMarketTx, TxType } from "../../../../src/tx/tx.js";
import { InProcessExec } from "../../../utils/inProcessExec.js";

const strip = (s: string): string => s.toLowerCase().replace(/^0x/, "");
const bytesOf = (h: string): Uint8Array => Uint8Array.from(Buffer.from(strip(h), "hex"));
const hexOf = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const keccakHex = (hex: string): string => hexOf(keccak_256(bytesOf(hex)));
const keccakText = (s: string): string => hexOf(keccak_256(new TextEncoder().encode(s)));
const word = (v: bigint): string => v.toString(16).padStart(64, "0");
/** ABI `bytes` tail: length word, then the bytes right-padded to a word. */
const abiBytes = (hex: string): string =>
  word(BigInt(hex.length / 2)) + hex.padEnd(Math.ceil(hex.length / 64) * 64, "0");

const MESSAGE_PASSER = "4200000000000000000000000000000000000016";
const CHAIN_ID = 901n;
const TARGET = "00000000000000000000000000000000000b0b00";
const GAS_LIMIT = 200_000n;
const DATA = "deadbeef0102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f20";
const VALUE = 1_500_000_000_000_000_000n;
/** Encoding.encodeVersionedNonce(0, 1): the version in the top two bytes. */
const NONCE = 1n << 240n;

describe("node/opDevGenesis: a withdrawal through the L2ToL1MessagePasser", function () {
  this.timeout(60_000);

  it("initiateWithdrawal with value emits MessagePassed and the ETH lands in the message passer", async () => {
    const sender = devAccounts(1)[0]!;
    const senderHex = hexOf(sender.address);
    const exec = InProcessExec.create(opDevGenesis({ chainId: CHAIN_ID, timestamp: 1000 }));
    const sealer = new DevSealer(
      { period: 1, feeRecipient: sender.address, gasCeil: 30_000_000n },
      {
        chain: exec.chain,
        pool: exec.pool,
        onHead: (c) => exec.pool.onNewHead(c.newHead),
        now: () => (exec.chain.head.timestamp + 2) * 1000,
      },
    );
    const rpc = exec.rpc;
    assert.ok((await rpc.call<string>("eth_getCode", [`0x${MESSAGE_PASSER}`, "latest"])).length > 2, "passer has code");

    const input =
      selectorOf("initiateWithdrawal(address,uint256,bytes)") +
      TARGET.padStart(64, "0") +
      word(GAS_LIMIT) +
      word(0x60n) +
      abiBytes(DATA);
    const unsigned: FeeMarketTx = {
      type: TxType.FeeMarket,
      chainId: CHAIN_ID,
      nonce: 0n,
      maxPriorityFeePerGas: 1_000_000n,
      maxFeePerGas: 10_000_000_000n,
      gasLimit: 300_000n,
      to: bytesOf(MESSAGE_PASSER),
      value: VALUE,
      data: bytesOf(input),
      accessList: [],
      yParity: 0,
      r: 0n,
      s: 0n,
    };
    const raw = encodeTx(signTx(unsigned, sender.privateKey, CHAIN_ID));
    const hash = await rpc.call<string>("eth_sendRawTransaction", [`0x${hexOf(raw)}`]);
    sealer.seal();

    const rc = await rpc.call<{
      status: string;
      blockNumber: string;
      logs: { address: string; topics: string[]; data: string }[];
    }>("eth_getTransactionReceipt", [hash]);
    assert.equal(rc.status, "0x1");
    assert.equal(rc.blockNumber, "0x1");
    assert.equal(rc.logs.length, 1);
    const log = rc.logs[0]!;
    const withdrawalHash = keccakHex(
      word(NONCE) +
        senderHex.padStart(64, "0") +
        TARGET.padStart(64, "0") +
        word(VALUE) +
        word(GAS_LIMIT) +
        word(0xc0n) +
        abiBytes(DATA),
    );
    assert.equal(strip(log.address), MESSAGE_PASSER);
    assert.deepEqual(log.topics.map(strip), [
      keccakText("MessagePassed(uint256,address,address,uint256,uint256,bytes,bytes32)"),
      word(NONCE),
      senderHex.padStart(64, "0"),
      TARGET.padStart(64, "0"),
    ]);
    assert.equal(strip(log.data), word(VALUE) + word(GAS_LIMIT) + word(0x80n) + withdrawalHash + abiBytes(DATA));

    const callPasser = (data: string): Promise<string> =>
      rpc.call<string>("eth_call", [{ to: `0x${MESSAGE_PASSER}`, data: `0x${data}` }, "latest"]);
    assert.equal(strip(await callPasser(selectorOf("sentMessages(bytes32)") + withdrawalHash)), word(1n));
    assert.equal(strip(await callPasser(selectorOf("messageNonce()"))), word(NONCE + 1n));

    assert.equal(BigInt(await rpc.call<string>("eth_getBalance", [`0x${MESSAGE_PASSER}`, "0x0"])), 0n);
    assert.equal(BigInt(await rpc.call<string>("eth_getBalance", [`0x${MESSAGE_PASSER}`, "0x1"])), VALUE);

    // Isthmus: the header's withdrawalsRoot is the message passer's storage root.
    const block = await rpc.call<{ withdrawalsRoot: string }>("eth_getBlockByNumber", ["0x1", false]);
    const proof = await rpc.call<{ storageHash: string }>("eth_getProof", [`0x${MESSAGE_PASSER}`, [], "0x1"]);
    const before = await rpc.call<{ storageHash: string }>("eth_getProof", [`0x${MESSAGE_PASSER}`, [], "0x0"]);
    assert.equal(block.withdrawalsRoot, proof.storageHash);
    assert.notEqual(proof.storageHash, before.storageHash, "the withdrawal changed the passer's storage");
  });
});

function selectorOf(sig: string): string {
  return keccakText(sig).slice(0, 8);
}
