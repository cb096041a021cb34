/**
 * Signing with an account the node holds (`--dev` holds the dev accounts), as a dapp does through
 * an injected wallet: viem's wallet client with a json-rpc account and ethers' `JsonRpcSigner`
 * send personal_sign, eth_sign, eth_signTypedData_v4, eth_signTransaction and eth_sendTransaction,
 * and every signature is checked by recovering the signer's address. Message signatures are also
 * compared with the same key's local signature (RFC 6979 makes them deterministic, and geth returns
 * v as 27/28).
 */
import { strict as assert } from "node:assert";
import { type JsonRpcSigner, Transaction, verifyMessage, verifyTypedData } from "ethers";
import {
  type Account,
  type Chain,
  createWalletClient,
  getAddress,
  getContractAddress,
  type Hex,
  parseGwei,
  parseTransaction,
  recoverMessageAddress,
  recoverTransactionAddress,
  recoverTypedDataAddress,
  type TransactionSerialized,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { STORE_ABI, STORE_BYTECODE } from "../artifacts.js";
import { ACCOUNT, EXPECTED_CHAIN_ID } from "../chains.js";
import { type Ctx, httpTransport, receiptOf } from "../clients.js";
import { domainOf, MAIL, MESSAGE, TYPES } from "./signingData.js";

const SAME_SIGNATURE =
  "the node's signature differs from the key's own (RFC 6979 is deterministic; v is 27/28 as geth)";
/** A message of raw bytes (personal_sign signs the bytes, not their hex text). */
const RAW_MESSAGE = { raw: "0xdeadbeef00ff" } as const;

/** eth_getRawTransactionByHash (which viem has no action for), through ethers' untyped `send`. */
async function rawTxOf(ctx: Ctx, hash: Hex): Promise<TransactionSerialized> {
  const raw: unknown = await ctx.provider.send("eth_getRawTransactionByHash", [hash]);
  assert.equal(typeof raw, "string", `eth_getRawTransactionByHash answered ${JSON.stringify(raw)}`);
  return raw as TransactionSerialized;
}

/**
 * The raw signed tx of an eth_signTransaction answer: wallets answer the raw hex, geth answers
 * `{raw, tx}`; a library hands either through unchanged.
 */
function rawOf(answer: unknown): TransactionSerialized {
  if (typeof answer === "string") return answer as TransactionSerialized;
  const raw = (answer as { raw?: unknown } | null)?.raw;
  assert.equal(typeof raw, "string", `eth_signTransaction answered ${JSON.stringify(answer)}`);
  return raw as TransactionSerialized;
}

export function signingSection(get: () => Ctx): void {
  describe("signing with a node-held dev account (viem json-rpc account, ethers JsonRpcSigner)", () => {
    const viemAddr = getAddress(ACCOUNT.viemJsonRpc.address);
    const ethersAddr = getAddress(ACCOUNT.ethersJsonRpc.address);
    let wallet: WalletClient<Transport, Chain, Account>;
    let signer: JsonRpcSigner;

    before(async () => {
      const ctx = get();
      wallet = createWalletClient({
        account: viemAddr,
        chain: ctx.chain.viemChain,
        transport: httpTransport(ctx.chain),
        pollingInterval: 50,
        cacheTime: 0,
      });
      signer = await ctx.provider.getSigner(ethersAddr);
    });

    it("eth_accounts lists the dev accounts (viem getAddresses, ethers listAccounts)", async () => {
      const ctx = get();
      const viaViem = await wallet.getAddresses();
      assert.ok(viaViem.map((a) => getAddress(a)).includes(viemAddr), JSON.stringify(viaViem));
      const viaEthers = (await ctx.provider.listAccounts()).map((s) => s.address);
      assert.ok(viaEthers.includes(ethersAddr), JSON.stringify(viaEthers));
    });

    it("viem: signMessage (personal_sign) recovers to the account and equals the key's own signature", async () => {
      const signature = await wallet.signMessage({ account: viemAddr, message: MESSAGE });
      assert.equal(await recoverMessageAddress({ message: MESSAGE, signature }), viemAddr);
      const key = privateKeyToAccount(ACCOUNT.viemJsonRpc.privateKey);
      assert.equal(signature, await key.signMessage({ message: MESSAGE }), SAME_SIGNATURE);
      const rawSig = await wallet.signMessage({ account: viemAddr, message: RAW_MESSAGE });
      assert.equal(await recoverMessageAddress({ message: RAW_MESSAGE, signature: rawSig }), viemAddr);
      assert.equal(rawSig, await key.signMessage({ message: RAW_MESSAGE }), SAME_SIGNATURE);
    });

    it("viem: signTypedData (eth_signTypedData_v4) recovers to the account and equals the key's own signature", async () => {
      const ctx = get();
      const typed = { domain: domainOf(ctx.chain.chainId), types: TYPES, primaryType: "Mail", message: MAIL } as const;
      const signature = await wallet.signTypedData({ account: viemAddr, ...typed });
      assert.equal(await recoverTypedDataAddress({ ...typed, signature }), viemAddr);
      const local = await privateKeyToAccount(ACCOUNT.viemJsonRpc.privateKey).signTypedData(typed);
      assert.equal(signature, local, SAME_SIGNATURE);
    });

    it("viem: prepareTransactionRequest + signTransaction (eth_signTransaction) gives a tx signed by the account", async () => {
      const ctx = get();
      const request = await wallet.prepareTransactionRequest({
        account: viemAddr,
        to: ACCOUNT.recipient.address,
        value: 1234n,
      });
      const raw = rawOf(await wallet.signTransaction(request));
      assert.equal(await recoverTransactionAddress({ serializedTransaction: raw }), viemAddr);
      const tx = parseTransaction(raw);
      assert.equal(tx.to?.toLowerCase(), ACCOUNT.recipient.address.toLowerCase());
      assert.equal(tx.value, 1234n);
      assert.equal(tx.nonce, request.nonce);
      assert.equal(tx.chainId, EXPECTED_CHAIN_ID[ctx.chain.kind]);
      // The signed tx is good for the chain: it is mined as signed.
      const hash = await ctx.pc.sendRawTransaction({ serializedTransaction: raw });
      const r = await receiptOf(ctx, hash);
      assert.equal(r.status, "success");
      assert.equal(getAddress(r.from), viemAddr);
      assert.equal(await rawTxOf(ctx, hash), raw);
    });

    it("viem: sendTransaction (eth_sendTransaction) is mined from the account; the raw tx recovers to it", async () => {
      const ctx = get();
      const hash = await wallet.sendTransaction({ account: viemAddr, to: ACCOUNT.recipient.address, value: 1n });
      const r = await receiptOf(ctx, hash);
      assert.equal(r.status, "success");
      assert.equal(getAddress(r.from), viemAddr);
      assert.equal(await recoverTransactionAddress({ serializedTransaction: await rawTxOf(ctx, hash) }), viemAddr);
    });

    it("viem: deployContract (eth_sendTransaction without `to`) deploys at the address of the account and its nonce", async () => {
      const ctx = get();
      const nonce = await ctx.pc.getTransactionCount({ address: viemAddr, blockTag: "pending" });
      const hash = await wallet.deployContract({
        account: viemAddr,
        abi: STORE_ABI,
        bytecode: STORE_BYTECODE,
        args: [5n],
      });
      const r = await receiptOf(ctx, hash);
      assert.equal(r.status, "success");
      assert.ok(r.contractAddress, "no contractAddress in the receipt");
      assert.equal(getAddress(r.contractAddress), getContractAddress({ from: viemAddr, nonce: BigInt(nonce) }));
      assert.equal(
        await ctx.pc.readContract({ address: r.contractAddress!, abi: STORE_ABI, functionName: "value" }),
        5n,
      );
    });

    it("viem: fillTransaction (eth_fillTransaction) with only maxPriorityFeePerGas fills nonce, fee cap and gas as geth's setDefaults", async () => {
      const ctx = get();
      const tip = parseGwei("1");
      const nonce = await ctx.pc.getTransactionCount({ address: viemAddr, blockTag: "pending" });
      const head = await ctx.pc.getBlock();
      const { raw, transaction } = await ctx.pc.fillTransaction({
        account: viemAddr,
        to: ACCOUNT.recipient.address,
        value: 1n,
        maxPriorityFeePerGas: tip,
      });
      // geth setFeeDefaults: maxFeePerGas = tip + 2 * the head's base fee; the gas estimated with those fees.
      const expected = { nonce, gas: 21_000n, maxPriorityFeePerGas: tip, maxFeePerGas: tip + 2n * head.baseFeePerGas! };
      // The node's answer: `raw` is the filled tx, unsigned.
      const parsed = parseTransaction(raw as TransactionSerialized);
      assert.deepEqual(
        {
          nonce: parsed.nonce,
          gas: parsed.gas,
          maxPriorityFeePerGas: parsed.maxPriorityFeePerGas,
          maxFeePerGas: parsed.maxFeePerGas,
        },
        expected,
      );
      assert.equal(parsed.type, "eip1559");
      // viem hands that on, with its 1.2 base-fee multiplier applied to a fee cap it was not given.
      assert.deepEqual(
        {
          nonce: transaction.nonce,
          gas: transaction.gas,
          maxPriorityFeePerGas: transaction.maxPriorityFeePerGas,
          maxFeePerGas: transaction.maxFeePerGas,
        },
        { ...expected, maxFeePerGas: (expected.maxFeePerGas * 12n) / 10n },
      );
      assert.equal(parsed.chainId, EXPECTED_CHAIN_ID[ctx.chain.kind]);
    });

    it("viem: sendTransaction (eth_sendTransaction) with only maxPriorityFeePerGas: the node fills maxFeePerGas before it estimates the gas", async () => {
      const ctx = get();
      // geth's setDefaults fills the fees first and estimates with them; a tip over a zero fee cap
      // cannot be estimated.
      const hash = await wallet.sendTransaction({
        account: viemAddr,
        to: ACCOUNT.recipient.address,
        value: 1n,
        maxPriorityFeePerGas: parseGwei("1"),
      });
      const r = await receiptOf(ctx, hash);
      assert.equal(r.status, "success");
      assert.equal(
        r.effectiveGasPrice - (await ctx.pc.getBlock({ blockHash: r.blockHash })).baseFeePerGas!,
        parseGwei("1"),
      );
      assert.equal(await recoverTransactionAddress({ serializedTransaction: await rawTxOf(ctx, hash) }), viemAddr);
    });

    it("ethers: signMessage (personal_sign) and the legacy eth_sign recover with verifyMessage to the signer", async () => {
      const personal = await signer.signMessage(MESSAGE);
      assert.equal(verifyMessage(MESSAGE, personal), ethersAddr);
      const local = await privateKeyToAccount(ACCOUNT.ethersJsonRpc.privateKey).signMessage({ message: MESSAGE });
      assert.equal(personal, local, SAME_SIGNATURE);
      const legacy = await signer._legacySignMessage(MESSAGE);
      assert.equal(verifyMessage(MESSAGE, legacy), ethersAddr);
      assert.equal(legacy, local, SAME_SIGNATURE);
    });

    it("ethers: signTypedData (eth_signTypedData_v4) recovers with verifyTypedData to the signer", async () => {
      const ctx = get();
      const domain = domainOf(ctx.chain.chainId);
      const types = { Person: [...TYPES.Person], Mail: [...TYPES.Mail] };
      const signature = await signer.signTypedData(domain, types, MAIL);
      assert.equal(verifyTypedData(domain, types, MAIL, signature), ethersAddr);
      const local = await privateKeyToAccount(ACCOUNT.ethersJsonRpc.privateKey).signTypedData({
        domain,
        types: TYPES,
        primaryType: "Mail",
        message: MAIL,
      });
      assert.equal(signature, local, SAME_SIGNATURE);
    });

    it("ethers: signTransaction (eth_signTransaction) of a filled-in tx gives a tx signed by the signer", async () => {
      const ctx = get();
      // JsonRpcSigner.populateTransaction leaves nonce, gas and fees to the node, and geth's
      // eth_signTransaction requires them: a dapp fills them in from the provider.
      const fees = await ctx.provider.getFeeData();
      const populated = {
        type: 2,
        chainId: BigInt(ctx.chain.chainId),
        nonce: await ctx.provider.getTransactionCount(ethersAddr, "pending"),
        to: ACCOUNT.recipient.address,
        value: 4321n,
        gasLimit: 21_000n,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      };
      const raw = rawOf(await signer.signTransaction(populated));
      const tx = Transaction.from(raw);
      assert.equal(tx.from, ethersAddr);
      assert.equal(tx.to, getAddress(ACCOUNT.recipient.address));
      assert.equal(tx.value, 4321n);
      assert.equal(tx.nonce, populated.nonce);
      assert.equal(tx.chainId, BigInt(EXPECTED_CHAIN_ID[ctx.chain.kind]));
      // The signed tx is good for the chain: it is mined as signed.
      const sent = await ctx.provider.broadcastTransaction(raw);
      const r = await sent.wait(1, 10_000);
      assert.equal(r?.status, 1);
      assert.equal(r?.from, ethersAddr);
    });

    it("ethers: sendTransaction (eth_sendTransaction) is mined from the signer; the raw tx recovers to it", async () => {
      const ctx = get();
      const sent = await signer.sendTransaction({ to: ACCOUNT.recipient.address, value: 1n });
      const r = await sent.wait(1, 10_000);
      assert.ok(r !== null);
      assert.equal(r.status, 1);
      assert.equal(r.from, ethersAddr);
      const raw = await ctx.provider.send("eth_getRawTransactionByHash", [sent.hash]);
      assert.equal(Transaction.from(raw).from, ethersAddr);
    });
  });
}
