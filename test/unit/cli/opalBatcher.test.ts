import { strict as assert } from "node:assert";
import { whenReachable } from "../../../src/cli/opalBatcher.js";
import { RpcCallError, RpcTransportError } from "../../../src/rollup/transport/rpcClient.js";

describe("cli/opalBatcher startup", () => {
  it("retries transport failures until the rollup node answers", async () => {
    let calls = 0;
    const retries: string[] = [];
    const v = await whenReachable(
      async () => {
        if (++calls < 3) throw new RpcTransportError("optimism_rollupConfig to http://x: connect ECONNREFUSED");
        return 42;
      },
      10_000,
      (e) => retries.push(e),
      1,
    );
    assert.equal(v, 42);
    assert.equal(calls, 3);
    assert.equal(retries.length, 2);
    assert.match(retries[0]!, /ECONNREFUSED/);
  });

  it("a JSON-RPC error or a bad answer fails at once", async () => {
    for (const err of [
      new RpcCallError("optimism_rollupConfig", -32601, "method not found"),
      new Error("bad config"),
    ]) {
      let calls = 0;
      await assert.rejects(
        whenReachable(
          async () => {
            calls++;
            throw err;
          },
          10_000,
          () => undefined,
          1,
        ),
        (e) => e === err,
      );
      assert.equal(calls, 1);
    }
  });

  it("gives up with the last transport failure when the wait is over", async () => {
    let clock = 0;
    let calls = 0;
    await assert.rejects(
      whenReachable(
        async () => {
          clock += 400;
          throw new RpcTransportError(`attempt ${++calls}`);
        },
        1_000,
        () => undefined,
        1,
        () => clock,
      ),
      /attempt 3/,
    );
    assert.equal(calls, 3);
  });
});
