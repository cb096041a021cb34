/**
 * OP Stack actions against the OP dev chain's predeploys. viem's `publicActionsL2` (L1 fee and gas
 * through the GasPriceOracle 0x4200…000F) and the receipts' OP fields are checked against the L1
 * data fee computed here (test/ecosystem/opFees.ts: the block's L1-attributes deposit decoded,
 * FastLZ, Fjord's regression): for a small transfer, where estimate and charge both sit at the
 * 100-byte minimum and must be equal, and for a tx with 384 incompressible calldata bytes, where
 * the GasPriceOracle estimates from the unsigned tx plus 68 bytes and the receipt charges the
 * signed one. The sender pays exactly value + L2 gas + L1 fee + operator fee.
 * `walletActionsL2().initiateWithdrawal` and an ethers Contract call must reach the
 * L2ToL1MessagePasser 0x4200…0016 of contracts-bedrock: `MessagePassed` with the fields that were
 * sent and the withdrawal hash computed here, the versioned `messageNonce` advancing, the message
 * recorded in `sentMessages`, the value held by the passer.
 */
import { strict as assert } from "node:assert";
import { type ContractTransactionResponse, Transaction, Wallet } from "ethers";
import {
  concatHex,
  createPublicClient,
  createWalletClient,
  decodeFunctionData,
  defineChain,
  encodeAbiParameters,
  getAddress,
  type Hash,
  type Hex,
  hexToBytes,
  keccak256,
  numberToHex,
  parseEther,
  parseEventLogs,
  parseGwei,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { chainConfig, getWithdrawals, publicActionsL2, walletActionsL2 } from "viem/op-stack";
import { GAS_PRICE_ORACLE, GAS_PRICE_ORACLE_ABI, MESSAGE_PASSER, MESSAGE_PASSER_ABI } from "../artifacts.js";
import { ACCOUNT, OP_CHAIN_ID } from "../chains.js";
import { type Ctx, ethersContract, httpTransport } from "../clients.js";
import {
  decodeL1Attributes,
  FLZ_VECTORS,
  fjordL1Fee,
  fjordL1GasUsed,
  flzCompressLen,
  type L1Attributes,
  operatorFee,
} from "../opFees.js";

/** viem's OP dev chain with its precise type, so receipts carry the OP fields (l1Fee, l1GasUsed, l1GasPrice). */
function opChain(url: string) {
  return defineChain({
    ...chainConfig,
    id: OP_CHAIN_ID,
    name: "opal OP dev",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
}

/** The withdrawal hash contracts-bedrock computes: keccak256(abi.encode(nonce, sender, target, value, gasLimit, data)). */
function withdrawalHash(w: {
  nonce: bigint;
  sender: Hex;
  target: Hex;
  value: bigint;
  gasLimit: bigint;
  data: Hex;
}): Hex {
  return keccak256(
    encodeAbiParameters(
      [
        { type: "uint256" },
        { type: "address" },
        { type: "address" },
        { type: "uint256" },
        { type: "uint256" },
        { type: "bytes" },
      ],
      [w.nonce, w.sender, w.target, w.value, w.gasLimit, w.data],
    ),
  );
}

/** 384 calldata bytes that do not compress (keccak256 of 0, 1, …), so the L1 fee is above its minimum. */
const BULKY_DATA = concatHex(Array.from({ length: 12 }, (_, i) => keccak256(numberToHex(i, { size: 32 }))));

/** The OP fields of a receipt, as op-geth answers them (raw JSON: viem's formatter keeps only some). */
interface RawOpReceipt {
  l1Fee: Hex;
  l1GasUsed: Hex;
  l1GasPrice: Hex;
  l1BaseFeeScalar?: Hex;
  l1BlobBaseFee?: Hex;
  l1BlobBaseFeeScalar?: Hex;
  operatorFeeScalar?: Hex;
  operatorFeeConstant?: Hex;
}

export function opStackSection(get: () => Ctx): void {
  describe("OP Stack actions (GasPriceOracle and L1 fees, L2ToL1MessagePasser)", () => {
    const clients = () => {
      const ctx = get();
      const chain = opChain(ctx.chain.url);
      const transport = httpTransport(ctx.chain);
      const account = privateKeyToAccount(ACCOUNT.viemOp.privateKey);
      const pc = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 }).extend(publicActionsL2());
      const wallet = createWalletClient({ account, chain, transport, pollingInterval: 50, cacheTime: 0 }).extend(
        walletActionsL2(),
      );
      return { ctx, pc, wallet, account };
    };

    /** The L1 attributes of block `blockHash`, from its first tx (the L1-attributes deposit). */
    const l1AttributesOf = async (blockHash: Hash): Promise<L1Attributes> => {
      const block = await clients().pc.getBlock({ blockHash, includeTransactions: true });
      const deposit = block.transactions[0];
      assert.equal(deposit?.type, "deposit", "an OP block opens with the L1-attributes deposit");
      return decodeL1Attributes(deposit.input);
    };

    /** The receipt's OP fields equal the block's L1 attributes. */
    const assertReceiptAttributes = (raw: RawOpReceipt, a: L1Attributes) => {
      assert.equal(BigInt(raw.l1GasPrice), a.baseFee);
      assert.equal(BigInt(raw.l1BaseFeeScalar ?? "0x0"), a.baseFeeScalar, "l1BaseFeeScalar");
      assert.equal(BigInt(raw.l1BlobBaseFee ?? "0x0"), a.blobBaseFee, "l1BlobBaseFee");
      assert.equal(BigInt(raw.l1BlobBaseFeeScalar ?? "0x0"), a.blobBaseFeeScalar, "l1BlobBaseFeeScalar");
      if (a.format !== "ecotone") {
        assert.equal(BigInt(raw.operatorFeeScalar ?? "0x0"), a.operatorFeeScalar, "operatorFeeScalar");
        assert.equal(BigInt(raw.operatorFeeConstant ?? "0x0"), a.operatorFeeConstant, "operatorFeeConstant");
      }
    };

    it("the test's own FastLZ length agrees with op-geth's and revm's published vectors", () => {
      for (const [data, size] of FLZ_VECTORS) assert.equal(flzCompressLen(data), size);
    });

    it("viem estimateL1Fee, estimateL1Gas and getL1BaseFee of a small transfer equal the receipt's l1Fee, l1GasUsed and l1GasPrice, and Fjord's minimum", async () => {
      const { ctx, pc, wallet, account } = clients();
      // A short transfer: estimate and charge both sit at Fjord's 100-byte minimum size.
      const transfer = { account, to: ACCOUNT.recipient.address, value: parseEther("0.001") };
      const fee = await pc.estimateL1Fee(transfer);
      const gas = await pc.estimateL1Gas(transfer);
      const baseFee = await pc.getL1BaseFee();
      const hash = await wallet.sendTransaction(transfer);
      const r = await pc.waitForTransactionReceipt({ hash, pollingInterval: 25, timeout: 10_000 });
      assert.equal(r.status, "success");
      assert.equal(r.l1Fee, fee);
      assert.equal(r.l1GasUsed, gas);
      assert.equal(r.l1GasPrice, baseFee);

      const a = await l1AttributesOf(r.blockHash);
      assert.equal(baseFee, a.baseFee);
      const raw = await ctx.provider.send("eth_getTransactionReceipt", [hash]);
      const size = flzCompressLen(hexToBytes(await ctx.provider.send("eth_getRawTransactionByHash", [hash])));
      assert.ok(size < 170, `a transfer of ${size} FastLZ bytes is above the minimum`);
      assert.equal(r.l1Fee, fjordL1Fee(size, a));
      assert.equal(r.l1GasUsed, fjordL1GasUsed(size));
      assert.ok(fee > 0n);
      assertReceiptAttributes(raw, a);
    });

    it("viem estimateL1Fee of a tx with 384 calldata bytes is Fjord's fee of the unsigned tx + 68 bytes; the receipt charges the signed tx's, and the balance pays exactly that", async () => {
      const { ctx, pc, wallet, account } = clients();
      const request = { account, to: ACCOUNT.recipient.address, value: 12_345n, data: BULKY_DATA };
      // The estimates run at the latest block, with its L1 attributes.
      const estimatedAt = await l1AttributesOf((await pc.getBlock()).hash);
      const mark = ctx.chain.recorder.mark();
      const fee = await pc.estimateL1Fee(request);
      const gas = await pc.estimateL1Gas(request);
      // What viem asked the GasPriceOracle about: the unsigned tx it serialized.
      const asked = ctx.chain.recorder.calls("eth_call", mark).map((c) => {
        const call = c.params[0] as { to: string; data?: Hex; input?: Hex };
        assert.equal(getAddress(call.to), GAS_PRICE_ORACLE);
        const { functionName, args } = decodeFunctionData({
          abi: GAS_PRICE_ORACLE_ABI,
          data: (call.data ?? call.input)!,
        });
        return { functionName, tx: args?.[0] as Hex };
      });
      assert.deepEqual(
        asked.map((x) => x.functionName),
        ["getL1Fee", "getL1GasUsed"],
      );
      const unsigned = asked[0]!.tx;
      assert.equal(Transaction.from(unsigned).data, BULKY_DATA);

      const estimateSize = flzCompressLen(hexToBytes(unsigned)) + 68;
      assert.equal(fee, fjordL1Fee(estimateSize, estimatedAt));
      assert.equal(gas, fjordL1GasUsed(estimateSize));

      const hash = await wallet.sendTransaction(request);
      const r = await pc.waitForTransactionReceipt({ hash, pollingInterval: 25, timeout: 10_000 });
      assert.equal(r.status, "success");
      const a = await l1AttributesOf(r.blockHash);

      const signed = (await ctx.provider.send("eth_getRawTransactionByHash", [hash])) as Hex;
      const size = flzCompressLen(hexToBytes(signed));
      assert.ok(size > 171, `${size} FastLZ bytes: not above Fjord's minimum`);
      assert.equal(r.l1Fee, fjordL1Fee(size, a));
      assert.equal(r.l1GasUsed, fjordL1GasUsed(size));
      assert.ok(r.l1Fee! > fjordL1Fee(0, a), "above the minimum fee");
      const raw = await ctx.provider.send("eth_getTransactionReceipt", [hash]);
      assertReceiptAttributes(raw, a);

      const after = await pc.getBalance({ address: account.address, blockNumber: r.blockNumber });
      const before = await pc.getBalance({ address: account.address, blockNumber: r.blockNumber - 1n });
      assert.equal(
        before - after,
        request.value + r.gasUsed * r.effectiveGasPrice + r.l1Fee! + operatorFee(r.gasUsed, a),
        "value + L2 gas + L1 fee + operator fee",
      );
    });

    it("ethers: GasPriceOracle.getL1Fee(unsigned tx) and l1BaseFee() through a Contract: Fjord's fee of the unsigned tx + 68 bytes at the L1 attributes; the receipt charges the signed tx", async () => {
      const { ctx } = clients();
      const signer = new Wallet(ACCOUNT.ethersOp.privateKey, ctx.provider);
      const gpo = ethersContract(GAS_PRICE_ORACLE, GAS_PRICE_ORACLE_ABI, ctx.provider);
      const populated = await signer.populateTransaction({ to: ACCOUNT.recipient.address, data: BULKY_DATA });
      const { from: _from, ...fields } = populated;
      const unsigned = Transaction.from(fields).unsignedSerialized;
      const estimatedAt = await l1AttributesOf((await ctx.pc.getBlock()).hash);
      const fee: bigint = await gpo.getFunction("getL1Fee")(unsigned);
      const baseFee: bigint = await gpo.getFunction("l1BaseFee")();
      assert.equal(fee, fjordL1Fee(flzCompressLen(hexToBytes(unsigned as Hex)) + 68, estimatedAt));
      assert.equal(baseFee, estimatedAt.baseFee);
      const sent = await signer.sendTransaction(populated);
      const r = await sent.wait(1, 10_000);
      assert.equal(r?.status, 1);
      const a = await l1AttributesOf(r.blockHash as Hash);
      // ethers' receipt drops the OP fields: read them from the raw receipt.
      const raw = await ctx.provider.send("eth_getTransactionReceipt", [sent.hash]);
      assertReceiptAttributes(raw, a);
      const signedSize = flzCompressLen(
        hexToBytes(await ctx.provider.send("eth_getRawTransactionByHash", [sent.hash])),
      );
      assert.equal(BigInt(raw.l1Fee), fjordL1Fee(signedSize, a));
    });

    it("viem initiateWithdrawal reaches the L2ToL1MessagePasser 0x4200…0016: MessagePassed as sent, the versioned messageNonce advances", async () => {
      const { pc, wallet, account } = clients();
      const code = await pc.getCode({ address: MESSAGE_PASSER });
      assert.ok(code !== undefined && code !== "0x", `the L2ToL1MessagePasser ${MESSAGE_PASSER} has no code`);
      const read = { address: MESSAGE_PASSER, abi: MESSAGE_PASSER_ABI } as const;
      const version = await pc.readContract({ ...read, functionName: "MESSAGE_VERSION" });
      assert.equal(version, 1, "contracts-bedrock's MESSAGE_VERSION");
      const nonce = await pc.readContract({ ...read, functionName: "messageNonce" });
      // Encoding.encodeVersionedNonce: the version in the top two bytes.
      assert.equal(nonce >> 240n, 1n, `messageNonce ${nonce} carries no version`);
      const balance = await pc.getBalance({ address: MESSAGE_PASSER });

      const request = { gas: 100_000n, to: ACCOUNT.recipient.address, value: parseGwei("1"), data: "0x1234" as Hex };
      const gas = await pc.estimateInitiateWithdrawalGas({ account, request });
      assert.ok(gas > 21_000n, `estimate ${gas}`);
      const hash = await wallet.initiateWithdrawal({ request, gas });
      const r = await pc.waitForTransactionReceipt({ hash, pollingInterval: 25, timeout: 10_000 });
      assert.equal(r.status, "success");
      assert.ok(r.gasUsed <= gas, `used ${r.gasUsed} > estimate ${gas}`);
      assert.equal(r.to && getAddress(r.to), MESSAGE_PASSER);

      const passed = parseEventLogs({ abi: MESSAGE_PASSER_ABI, logs: r.logs, eventName: "MessagePassed" });
      assert.equal(passed.length, 1, `MessagePassed logs in the receipt: ${passed.length} of ${r.logs.length} logs`);
      const ev = passed[0]!;
      assert.equal(getAddress(ev.address), getAddress(MESSAGE_PASSER));
      const expected = {
        nonce,
        sender: account.address,
        target: getAddress(request.to),
        value: request.value,
        gasLimit: request.gas,
        data: request.data,
      };
      const expectedHash = withdrawalHash(expected);
      assert.deepEqual(ev.args, { ...expected, withdrawalHash: expectedHash });
      assert.deepEqual(getWithdrawals({ logs: r.logs }), [{ ...expected, withdrawalHash: expectedHash }]);

      assert.equal(await pc.readContract({ ...read, functionName: "messageNonce" }), nonce + 1n);
      assert.equal(await pc.readContract({ ...read, functionName: "sentMessages", args: [expectedHash] }), true);
      assert.equal(await pc.getBalance({ address: MESSAGE_PASSER }), balance + request.value);
    });

    it("ethers: initiateWithdrawal through a Contract on the passer emits MessagePassed (parsed by the Interface) and advances messageNonce", async () => {
      const { ctx } = clients();
      const code = await ctx.provider.getCode(MESSAGE_PASSER);
      assert.ok(code !== "0x", `the L2ToL1MessagePasser ${MESSAGE_PASSER} has no code`);
      const signer = new Wallet(ACCOUNT.ethersOp.privateKey, ctx.provider);
      const passer = ethersContract(MESSAGE_PASSER, MESSAGE_PASSER_ABI, signer);
      const nonce: bigint = await passer.getFunction("messageNonce")();
      const tx: ContractTransactionResponse = await passer.getFunction("initiateWithdrawal")(
        ACCOUNT.recipient.address,
        50_000n,
        "0xabcd",
        { value: 1n },
      );
      const r = await tx.wait(1, 10_000);
      assert.ok(r !== null);
      assert.equal(r.status, 1);
      const parsed = r.logs.map((l) => passer.interface.parseLog(l)).filter((l) => l?.name === "MessagePassed");
      assert.equal(parsed.length, 1, `MessagePassed logs in the receipt: ${parsed.length} of ${r.logs.length} logs`);
      const args = parsed[0]!.args;
      const expected = {
        nonce,
        sender: signer.address as Hex,
        target: getAddress(ACCOUNT.recipient.address),
        value: 1n,
        gasLimit: 50_000n,
        data: "0xabcd" as Hex,
      };
      assert.deepEqual([...args], [...Object.values(expected), withdrawalHash(expected)]);
      assert.equal(await passer.getFunction("messageNonce")(), nonce + 1n);
      assert.equal(await passer.getFunction("sentMessages")(withdrawalHash(expected)), true);
    });
  });
}
