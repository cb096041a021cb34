/**
 * Subscriptions over the node's WebSocket port: viem's watchers with a webSocket transport and
 * ethers' `WebSocketProvider` subscribe with eth_subscribe (newHeads, logs). Neither library says
 * when its subscription is in place, and a block sealed before it is never delivered, so each test
 * sends txs until a notification names one of them (`sendUntilSeen`); what is asserted is the
 * content of that notification against the chain, never how soon it came. The bound is the test's
 * timeout.
 */
import { strict as assert } from "node:assert";
import { Network, WebSocketProvider } from "ethers";
import { type Address, type Block, createPublicClient, type Hash, webSocket } from "viem";
import { STORE_ABI, STORE_BYTECODE } from "../artifacts.js";
import { ACCOUNT } from "../chains.js";
import { type Ctx, deployWithViem, ethersContract, receiptOf } from "../clients.js";

/** How long to wait for a tx's notification before sending another (a pace, not a deadline). */
const RESEND_AFTER_MS = 250;

/** Notifications as they come, and a way to wait for one (`wake` resolves the current waiter). */
class Inbox {
  private waiter: (() => void) | null = null;
  error: Error | null = null;

  wake(): void {
    this.waiter?.();
  }

  fail(e: Error): void {
    this.error = e;
    this.wake();
  }

  /** Resolves at the next `wake` or after `ms`. */
  next(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.waiter = done;
    });
  }
}

/**
 * Sends with `send` until `seen(result)` for one of the results; returns that result. Rethrows a
 * subscription error the inbox got.
 */
async function sendUntilSeen<T>(inbox: Inbox, send: () => Promise<T>, seen: (t: T) => boolean): Promise<T> {
  const sent: T[] = [];
  for (;;) {
    sent.push(await send());
    const end = Date.now() + RESEND_AFTER_MS;
    while (Date.now() < end) {
      if (inbox.error !== null) throw inbox.error;
      const hit = sent.find(seen);
      if (hit !== undefined) return hit;
      await inbox.next(end - Date.now());
    }
  }
}

function wsClient(ctx: Ctx) {
  return createPublicClient({
    chain: ctx.chain.viemChain,
    transport: webSocket(ctx.chain.wsUrl, { retryCount: 0, reconnect: false, keepAlive: false }),
  });
}

function wsProvider(ctx: Ctx): WebSocketProvider {
  const network = Network.from(ctx.chain.chainId);
  return new WebSocketProvider(ctx.chain.wsUrl, network, { staticNetwork: network, cacheTimeout: -1 });
}

export function subscriptionsSection(get: () => Ctx): void {
  describe("subscriptions over WebSocket (eth_subscribe)", () => {
    let store: Address;
    /** The value the store holds (every write below sets the next one). */
    let stored = 0n;

    before(async () => {
      store = (await deployWithViem(get(), STORE_ABI, STORE_BYTECODE, [stored])).address;
    });

    /** A transfer from the viem local account; its receipt's block. */
    const transfer = async (ctx: Ctx): Promise<{ number: bigint; hash: Hash }> => {
      const hash = await ctx.wallet.sendTransaction({ to: ACCOUNT.recipient.address, value: 1n });
      const r = await receiptOf(ctx, hash);
      return { number: r.blockNumber, hash: r.blockHash };
    };

    it("viem watchBlocks (webSocket transport): newHeads delivers the block of a tx, as eth_getBlockByNumber has it", async () => {
      const ctx = get();
      const client = wsClient(ctx);
      const inbox = new Inbox();
      const blocks: Block[] = [];
      const unwatch = client.watchBlocks({
        onBlock: (b) => {
          blocks.push(b);
          inbox.wake();
        },
        onError: (e) => inbox.fail(e),
      });
      try {
        const sealed = await sendUntilSeen(
          inbox,
          () => transfer(ctx),
          (s) => blocks.some((b) => b.hash === s.hash),
        );
        const b = blocks.find((x) => x.hash === sealed.hash)!;
        const fetched = await ctx.pc.getBlock({ blockNumber: sealed.number });
        for (const k of [
          "number",
          "hash",
          "parentHash",
          "stateRoot",
          "receiptsRoot",
          "timestamp",
          "baseFeePerGas",
        ] as const) {
          assert.equal(b[k], fetched[k], k);
        }
      } finally {
        unwatch();
        (await client.transport.getRpcClient()).close();
      }
    });

    it("viem watchContractEvent (webSocket transport): logs delivers ValueSet with its decoded args, as the receipt has it", async () => {
      const ctx = get();
      const client = wsClient(ctx);
      const inbox = new Inbox();
      const seen: { args: unknown; tx: Hash; logIndex: number; blockHash: Hash }[] = [];
      const unwatch = client.watchContractEvent({
        address: store,
        abi: STORE_ABI,
        eventName: "ValueSet",
        onLogs: (logs) => {
          for (const l of logs)
            seen.push({ args: l.args, tx: l.transactionHash, logIndex: l.logIndex, blockHash: l.blockHash });
          inbox.wake();
        },
        onError: (e) => inbox.fail(e),
      });
      try {
        const sent = await sendUntilSeen(
          inbox,
          async () => {
            const previous = stored;
            const value = ++stored;
            const hash = await ctx.wallet.writeContract({
              address: store,
              abi: STORE_ABI,
              functionName: "set",
              args: [value],
            });
            return { receipt: await receiptOf(ctx, hash), previous, value };
          },
          (t) => seen.some((s) => s.tx === t.receipt.transactionHash),
        );
        const s = seen.find((x) => x.tx === sent.receipt.transactionHash)!;
        assert.deepEqual(s.args, { setter: ctx.wallet.account.address, previous: sent.previous, value: sent.value });
        assert.equal(s.blockHash, sent.receipt.blockHash);
        assert.equal(s.logIndex, sent.receipt.logs[0]!.logIndex);
      } finally {
        unwatch();
        (await client.transport.getRpcClient()).close();
      }
    });

    it("ethers WebSocketProvider on('block'): newHeads delivers the block number of a tx", async () => {
      const ctx = get();
      const ws = wsProvider(ctx);
      const inbox = new Inbox();
      const numbers: number[] = [];
      try {
        await ws.on("block", (n: number) => {
          numbers.push(n);
          inbox.wake();
        });
        const sealed = await sendUntilSeen(
          inbox,
          async () => {
            const tx = await ctx.signer.sendTransaction({ to: ACCOUNT.recipient.address, value: 1n });
            return (await tx.wait(1, 10_000))!;
          },
          (r) => numbers.includes(r.blockNumber),
        );
        assert.equal((await ws.getBlock(sealed.blockNumber))?.hash, sealed.blockHash);
      } finally {
        await ws.destroy();
      }
    });

    it("ethers Contract.on('ValueSet') over WebSocketProvider: logs delivers the event with its args", async () => {
      const ctx = get();
      const ws = wsProvider(ctx);
      const inbox = new Inbox();
      const seen: { args: unknown[]; tx: string }[] = [];
      try {
        const c = ethersContract(store, STORE_ABI, ws);
        await c.on(
          "ValueSet",
          (setter: string, previous: bigint, value: bigint, ev: { log: { transactionHash: string } }) => {
            seen.push({ args: [setter, previous, value], tx: ev.log.transactionHash });
            inbox.wake();
          },
        );
        const writer = ethersContract(store, STORE_ABI, ctx.signer).getFunction("set");
        const sent = await sendUntilSeen(
          inbox,
          async () => {
            const previous = stored;
            const value = ++stored;
            return { receipt: (await (await writer(value)).wait(1, 10_000))!, previous, value };
          },
          (t) => seen.some((s) => s.tx === t.receipt.hash),
        );
        const s = seen.find((x) => x.tx === sent.receipt.hash)!;
        assert.deepEqual(s.args, [ctx.signer.address, sent.previous, sent.value]);
      } finally {
        await ws.destroy();
      }
    });
  });
}
