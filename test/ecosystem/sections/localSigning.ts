/**
 * Signing with local (private key) accounts, as a dapp with its own keys does: the libraries sign,
 * the node verifies and carries. Message and EIP-712 signatures of viem's local account and of an
 * ethers `Wallet` recover to the signer with both libraries' own verify functions, and viem's
 * `publicClient.verifyMessage` / `verifyTypedData` check them on the node with the ERC-6492
 * universal validator, a creation call whose answer is asserted in the recorded traffic (viem would
 * fall back to local recovery and hide a wrong answer). Every transaction type a wallet signs
 * (legacy with EIP-155, EIP-2930, EIP-1559, EIP-7702) goes in by eth_sendRawTransaction and the
 * node must keep it byte for byte; an unprotected (pre-EIP-155) legacy tx is refused over RPC by
 * default, as geth does without --rpc.allow-unprotected-txs.
 */
import { strict as assert } from "node:assert";
import {
  Transaction as EthersTransaction,
  keccak256 as ethersKeccak,
  verifyMessage as ethersVerifyMessage,
  verifyTypedData as ethersVerifyTypedData,
  TypedDataEncoder,
} from "ethers";
import {
  BaseError,
  type Chain,
  concatHex,
  createWalletClient,
  encodeFunctionData,
  getAddress,
  type Hex,
  hashTypedData,
  hexToBool,
  keccak256,
  type PrivateKeyAccount,
  parseEventLogs,
  parseGwei,
  recoverMessageAddress,
  recoverTypedDataAddress,
  type TransactionSerialized,
  type Transport,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { recoverAuthorizationAddress } from "viem/utils";
import { STORE_ABI, STORE_BYTECODE } from "../artifacts.js";
import { ACCOUNT, EXPECTED_CHAIN_ID } from "../chains.js";
import { type Ctx, deployWithViem, describeError, httpTransport, receiptOf } from "../clients.js";
import { domainOf, MAIL, MESSAGE, TYPES } from "./signingData.js";

/** The answers of the creation calls (eth_call without `to`) recorded since `mark`. */
function creationCallAnswers(ctx: Ctx, mark: number): unknown[] {
  return ctx.chain.recorder
    .calls("eth_call", mark)
    .filter((c) => (c.params[0] as { to?: unknown }).to === undefined)
    .map((c) => c.result ?? c.error);
}

export function localSigningSection(get: () => Ctx): void {
  describe("signing with local accounts (viem privateKeyToAccount, ethers Wallet)", () => {
    let wallet: WalletClient<Transport, Chain, PrivateKeyAccount>;
    const other = privateKeyToAccount(ACCOUNT.recipient.privateKey);

    before(() => {
      const ctx = get();
      wallet = createWalletClient({
        account: privateKeyToAccount(ACCOUNT.viemTypes.privateKey),
        chain: ctx.chain.viemChain,
        transport: httpTransport(ctx.chain),
        pollingInterval: 50,
        cacheTime: 0,
      });
    });

    it("viem: signMessage and signTypedData recover locally, and the node's ERC-6492 validator (a creation call) accepts them for the signer only", async () => {
      const ctx = get();
      const account = ctx.wallet.account;
      const signature = await ctx.wallet.signMessage({ message: MESSAGE });
      assert.equal(await recoverMessageAddress({ message: MESSAGE, signature }), account.address);
      assert.equal(ethersVerifyMessage(MESSAGE, signature), account.address);

      const typed = {
        domain: domainOf(ctx.chain.chainId),
        types: TYPES,
        primaryType: "Mail",
        message: MAIL,
      } as const;
      const typedSig = await ctx.wallet.signTypedData(typed);
      assert.equal(await recoverTypedDataAddress({ ...typed, signature: typedSig }), account.address);

      const mark = ctx.chain.recorder.mark();
      assert.equal(await ctx.pc.verifyMessage({ address: account.address, message: MESSAGE, signature }), true);
      assert.equal(await ctx.pc.verifyTypedData({ ...typed, address: account.address, signature: typedSig }), true);
      assert.equal(await ctx.pc.verifyMessage({ address: other.address, message: MESSAGE, signature }), false);
      const answers = creationCallAnswers(ctx, mark);
      assert.equal(answers.length, 3, `creation calls: ${JSON.stringify(answers)}`);
      assert.deepEqual(
        answers.map((a) => (typeof a === "string" ? hexToBool(a as Hex) : a)),
        [true, true, false],
        "the validator's answers on the node",
      );
    });

    it("ethers: Wallet signMessage and signTypedData recover with verifyMessage / verifyTypedData; viem verifies them on the node", async () => {
      const ctx = get();
      const signer = ctx.signer;
      const signature = await signer.signMessage(MESSAGE);
      assert.equal(ethersVerifyMessage(MESSAGE, signature), signer.address);
      assert.equal(await recoverMessageAddress({ message: MESSAGE, signature: signature as Hex }), signer.address);

      const domain = domainOf(ctx.chain.chainId);
      const types = { Person: [...TYPES.Person], Mail: [...TYPES.Mail] };
      const typedSig = await signer.signTypedData(domain, types, MAIL);
      assert.equal(ethersVerifyTypedData(domain, types, MAIL, typedSig), signer.address);
      // Both libraries hash the typed data alike.
      const typed = { domain, types: TYPES, primaryType: "Mail", message: MAIL } as const;
      assert.equal(await recoverTypedDataAddress({ ...typed, signature: typedSig as Hex }), getAddress(signer.address));
      assert.equal(TypedDataEncoder.hash(domain, types, MAIL), hashTypedData(typed));

      const mark = ctx.chain.recorder.mark();
      const address = getAddress(signer.address);
      assert.equal(await ctx.pc.verifyMessage({ address, message: MESSAGE, signature: signature as Hex }), true);
      assert.equal(await ctx.pc.verifyTypedData({ ...typed, address, signature: typedSig as Hex }), true);
      assert.deepEqual(
        creationCallAnswers(ctx, mark).map((a) => (typeof a === "string" ? hexToBool(a as Hex) : a)),
        [true, true],
      );
    });

    for (const type of ["legacy", "eip2930", "eip1559"] as const) {
      it(`viem: a signed ${type} tx goes in by eth_sendRawTransaction and the node keeps it byte for byte`, async () => {
        const ctx = get();
        const account = wallet.account;
        const fields = { to: ACCOUNT.recipient.address, value: 1_000n, data: "0xc0ffee" } as const;
        const accessList = [{ address: ACCOUNT.recipient.address, storageKeys: [`0x${"00".repeat(31)}01` as Hex] }];
        const request =
          type === "legacy"
            ? await wallet.prepareTransactionRequest({ ...fields, type })
            : type === "eip2930"
              ? await wallet.prepareTransactionRequest({ ...fields, type, accessList })
              : await wallet.prepareTransactionRequest({ ...fields, type });
        const raw = (await wallet.signTransaction(request)) as TransactionSerialized;
        const hash = await ctx.pc.sendRawTransaction({ serializedTransaction: raw });
        assert.equal(hash, keccak256(raw), "the tx hash is keccak256 of the signed envelope");
        const r = await receiptOf(ctx, hash);
        assert.equal(r.status, "success");
        assert.equal(r.type, type);
        assert.equal(getAddress(r.from), account.address);
        assert.equal(await ctx.provider.send("eth_getRawTransactionByHash", [hash]), raw);
        // ethers parses what viem signed to the same sender, chain and fields.
        const parsed = EthersTransaction.from(raw);
        assert.equal(parsed.from, account.address);
        assert.equal(parsed.chainId, BigInt(EXPECTED_CHAIN_ID[ctx.chain.kind]));
        assert.equal(parsed.type, { legacy: 0, eip2930: 1, eip1559: 2 }[type]);
        assert.equal(parsed.hash, hash);
        const tx = await ctx.pc.getTransaction({ hash });
        assert.equal(tx.type, type);
        assert.equal(tx.nonce, request.nonce);
        assert.equal(tx.input, "0xc0ffee");
        // EIP-155: v = chainId * 2 + 35 + yParity.
        if (type === "legacy") assert.equal((tx.v - 35n) / 2n, BigInt(EXPECTED_CHAIN_ID[ctx.chain.kind]));
      });
    }

    it("ethers: Wallet sends type 0, 1 and 2 txs; each is mined with its type and the node keeps the signed bytes", async () => {
      const ctx = get();
      const signer = ctx.signer;
      for (const type of [0, 1, 2]) {
        const populated = await signer.populateTransaction({ type, to: ACCOUNT.recipient.address, value: 7n });
        const raw = await signer.signTransaction(populated);
        const sent = await ctx.provider.broadcastTransaction(raw);
        assert.equal(sent.hash, ethersKeccak(raw));
        const r = await sent.wait(1, 10_000);
        assert.ok(r !== null);
        assert.equal(r.status, 1);
        assert.equal(r.type, type);
        assert.equal(r.from, signer.address);
        assert.equal(await ctx.provider.send("eth_getRawTransactionByHash", [sent.hash]), raw);
        const tx = await ctx.provider.getTransaction(sent.hash);
        assert.equal(tx?.type, type);
        assert.equal(tx?.chainId, BigInt(EXPECTED_CHAIN_ID[ctx.chain.kind]));
        assert.equal(tx?.from, signer.address);
      }
    });

    it("viem: an EIP-7702 authorization delegates an EOA to Store; the sponsor's type-4 tx runs Store's code in the EOA", async () => {
      const ctx = get();
      const store = (await deployWithViem(ctx, STORE_ABI, STORE_BYTECODE, [1n])).address;
      const authority = privateKeyToAccount(ACCOUNT.authority.privateKey);
      const authorization = await wallet.signAuthorization({ account: authority, contractAddress: store });
      assert.equal(authorization.chainId, EXPECTED_CHAIN_ID[ctx.chain.kind]);
      assert.equal(await recoverAuthorizationAddress({ authorization }), authority.address);

      const hash = await wallet.sendTransaction({
        authorizationList: [authorization],
        to: authority.address,
        data: encodeFunctionData({ abi: STORE_ABI, functionName: "set", args: [77n] }),
      });
      const r = await receiptOf(ctx, hash);
      assert.equal(r.status, "success");
      assert.equal(r.type, "eip7702");
      // The delegation designator: 0xef0100 ‖ the contract's address.
      assert.equal(
        await ctx.pc.getCode({ address: authority.address }),
        concatHex(["0xef0100", store.toLowerCase() as Hex]),
      );
      const events = parseEventLogs({ abi: STORE_ABI, logs: r.logs, eventName: "ValueSet" });
      assert.equal(events.length, 1);
      assert.equal(getAddress(events[0]!.address), authority.address, "the event comes from the EOA");
      assert.deepEqual(events[0]!.args, { setter: wallet.account.address, previous: 0n, value: 77n });
      // The EOA's own storage, not Store's.
      assert.equal(
        await ctx.pc.readContract({ address: authority.address, abi: STORE_ABI, functionName: "value" }),
        77n,
      );
      assert.equal(await ctx.pc.readContract({ address: store, abi: STORE_ABI, functionName: "value" }), 1n);
      assert.equal(await ctx.pc.getTransactionCount({ address: authority.address }), authorization.nonce + 1);

      const tx = await ctx.pc.getTransaction({ hash });
      assert.equal(tx.type, "eip7702");
      const echoed = tx.authorizationList?.[0];
      assert.ok(echoed !== undefined, "the node's tx has no authorizationList");
      assert.equal(await recoverAuthorizationAddress({ authorization: echoed }), authority.address);
      assert.equal(getAddress(echoed.address), store);
    });

    it("an unprotected legacy tx (no EIP-155 chain id) is refused over RPC, as geth does by default", async () => {
      const ctx = get();
      const account = wallet.account;
      const raw = await account.signTransaction({
        type: "legacy",
        nonce: await ctx.pc.getTransactionCount({ address: account.address, blockTag: "pending" }),
        gasPrice: parseGwei("10"),
        gas: 21_000n,
        to: ACCOUNT.recipient.address,
        value: 1n,
      });
      assert.equal(EthersTransaction.from(raw).chainId, 0n, "the tx carries no chain id");
      const e = await ctx.pc.sendRawTransaction({ serializedTransaction: raw }).then(
        () => null,
        (x: unknown) => x,
      );
      assert.ok(e instanceof BaseError, describeError(e));
      assert.match(e.details, /only replay-protected \(EIP-155\) transactions allowed over RPC/);
    });
  });
}
