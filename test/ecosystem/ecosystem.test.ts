/**
 * The ecosystem suite: viem and ethers drive opal-exec as a dapp would, against one plain L1 dev
 * chain and one OP dev chain (test/ecosystem/chains.ts), each node started once and shared by
 * every test of its chain. The sections (test/ecosystem/sections/, listed in
 * test/ecosystem/README.md) run on both chains; the OP Stack section on the OP chain only. A failing
 * test's message ends with the JSON-RPC exchanges it made (through the recording proxy), so the
 * node's half of a library error is in the report.
 */
import { ACCOUNT, type ChainKind, startChain } from "./chains.js";
import { type Ctx, openCtx } from "./clients.js";
import { formatExchanges } from "./rpcRecorder.js";
import { contractsSection } from "./sections/contracts.js";
import { creationCallsSection } from "./sections/creationCalls.js";
import { feeHistorySection } from "./sections/feeHistory.js";
import { gasAndLogsSection } from "./sections/gasAndLogs.js";
import { localSigningSection } from "./sections/localSigning.js";
import { opStackSection } from "./sections/opStack.js";
import { signingSection } from "./sections/signing.js";
import { subscriptionsSection } from "./sections/subscriptions.js";

const TITLES: Record<ChainKind, string> = {
  l1: "L1 dev chain (opal-exec --dev, chain 1337)",
  op: "OP dev chain (opDevGenesis → opal-exec init → --dev, chain 901)",
};

/** Appends the test's JSON-RPC exchanges to a failed test's error (message and stack). */
function annotate(test: Mocha.Test | undefined, exchanges: string): void {
  const err = test?.state === "failed" ? (test as Mocha.Test & { err?: Error }).err : undefined;
  if (err === undefined) return;
  const message = err.message;
  err.message = `${message}\n${exchanges}`;
  if (typeof err.stack === "string" && err.stack.includes(message)) {
    err.stack = err.stack.replace(message, err.message);
  }
}

describe("ecosystem: viem and ethers drive opal-exec as a dapp does", function () {
  this.timeout(30_000);

  for (const kind of ["l1", "op"] as const) {
    describe(TITLES[kind], () => {
      let ctx: Ctx | null = null;
      let mark = 0;
      const get = (): Ctx => {
        if (ctx === null) throw new Error(`the ${kind} dev chain did not start`);
        return ctx;
      };

      before(async () => {
        ctx = openCtx(await startChain(kind));
        // Fail fast, with the node's answer, if the dev accounts are not funded.
        const balance = await ctx.pc.getBalance({ address: ACCOUNT.viemLocal.address });
        if (balance === 0n) throw new Error(`dev account ${ACCOUNT.viemLocal.address} is not funded`);
      });

      after(async () => {
        const c = ctx;
        ctx = null;
        await c?.close();
        await c?.chain.stop();
      });

      beforeEach(() => {
        mark = ctx?.chain.recorder.mark() ?? 0;
      });

      afterEach(function () {
        if (ctx !== null) annotate(this.currentTest, formatExchanges(ctx.chain.recorder.since(mark)));
      });

      contractsSection(get);
      creationCallsSection(get, kind);
      localSigningSection(get);
      signingSection(get);
      gasAndLogsSection(get);
      feeHistorySection(get);
      subscriptionsSection(get);
      if (kind === "op") opStackSection(get);
    });
  }
});
