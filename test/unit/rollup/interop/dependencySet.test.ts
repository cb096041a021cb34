/**
 * `--interop.dependency-set` files (op-supervisor depset.StaticConfigDependencySet's JSON): a good
 * file's chains, indices and times as the supervisor reads them, the form op-supervisor writes back,
 * and each malformed value refused with the field it is in.
 */
import { strict as assert } from "node:assert";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DependencySetError,
  loadDependencySet,
  MESSAGE_EXPIRY_WINDOW_SECONDS,
  parseDependencySet,
} from "../../../../src/rollup/interop/dependencySet.js";

describe("rollup/interop/dependencySet", () => {
  const dir = mkdtempSync(join(tmpdir(), "opal-depset-"));
  after(() => rmSync(dir, { recursive: true, force: true }));

  const file = (name: string, text: string): string => {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  };

  it("loads op-supervisor's form: chains sorted, execute/initiate bounds, index lookups", () => {
    // As op-supervisor's json.Marshal writes it: chain index as a decimal string.
    const p = file(
      "good.json",
      JSON.stringify({
        dependencies: {
          "901": { chainIndex: "901", activationTime: 30, historyMinTime: 20 },
          "900": { chainIndex: "900", activationTime: 42, historyMinTime: 100 },
        },
      }),
    );
    const ds = loadDependencySet(p);
    assert.deepEqual(ds.chains(), [900n, 901n]);
    assert.equal(ds.canExecuteAt(900n, 42), true);
    assert.equal(ds.canExecuteAt(900n, 41), false);
    assert.equal(ds.canInitiateAt(900n, 100), true);
    assert.equal(ds.canInitiateAt(900n, 99), false);
    assert.equal(ds.canExecuteAt(901n, 30), true);
    assert.equal(ds.canExecuteAt(901n, 29), false);
    assert.equal(ds.canInitiateAt(901n, 19), false);
    assert.equal(ds.canExecuteAt(902n, 100000), false, "902 is not a dependency");
    assert.equal(ds.canInitiateAt(902n, 100000), false);
    assert.equal(ds.chainIndexOf(901n), 901);
    assert.equal(ds.chainIdOfIndex(900), 900n);
    assert.equal(ds.chainIdOfIndex(5), null);
    assert.equal(ds.messageExpiryWindow(), BigInt(MESSAGE_EXPIRY_WINDOW_SECONDS));
    // Written back the way op-supervisor writes it, and read again to the same set.
    const again = parseDependencySet(JSON.parse(JSON.stringify(ds.toJson())));
    assert.deepEqual(again.toJson(), ds.toJson());
    assert.deepEqual((ds.toJson().dependencies as Record<string, unknown>)["900"], {
      chainIndex: "900",
      activationTime: 42,
      historyMinTime: 100,
    });
  });

  it("takes hex chain ids, integer chain indices, defaults for the times, and the expiry override", () => {
    const big = (1n << 255n) + 7n;
    const ds = parseDependencySet({
      dependencies: { "0x385": { chainIndex: 0 }, [big.toString()]: { chainIndex: 4294967295 } },
      overrideMessageExpiryWindow: 3600,
    });
    assert.deepEqual(ds.chains(), [901n, big]);
    assert.equal(ds.entry(901n)?.activationTime, 0n);
    assert.equal(ds.entry(901n)?.historyMinTime, 0n);
    assert.equal(ds.chainIndexOf(big), 4294967295);
    assert.equal(ds.messageExpiryWindow(), 3600n);
    assert.equal(ds.toJson().overrideMessageExpiryWindow, 3600);
    assert.equal(parseDependencySet({ dependencies: {} }).chains().length, 0);
  });

  const bad: [string, unknown, string, RegExp][] = [
    ["not an object", [1, 2], "", /expected a JSON object, got array/],
    ["no dependencies", {}, "dependencies", /missing/],
    ["dependencies not an object", { dependencies: [] }, "dependencies", /expected an object, got array/],
    ["unknown top-level field", { dependencies: {}, dependency: {} }, "dependency", /unknown field/],
    [
      "chain id not a number",
      { dependencies: { op: { chainIndex: 1 } } },
      "dependencies.op",
      /not a decimal or 0x-hex/,
    ],
    [
      "chain id with leading zero",
      { dependencies: { "0901": { chainIndex: 1 } } },
      "dependencies.0901",
      /not a decimal/,
    ],
    ["chain id 0", { dependencies: { "0": { chainIndex: 1 } } }, "dependencies.0", /chain id 0/],
    [
      "chain id over 256 bits",
      { dependencies: { [(1n << 256n).toString()]: { chainIndex: 1 } } },
      `dependencies.${1n << 256n}`,
      /exceeds 256 bits/,
    ],
    [
      "one chain twice (decimal and hex)",
      { dependencies: { "901": { chainIndex: 1 }, "0x385": { chainIndex: 2 } } },
      "dependencies.0x385",
      /also given as "901"/,
    ],
    ["entry not an object", { dependencies: { "901": 5 } }, "dependencies.901", /expected an object, got number/],
    ["missing chainIndex", { dependencies: { "901": {} } }, "dependencies.901.chainIndex", /missing/],
    [
      "misspelt field",
      { dependencies: { "901": { chainIndex: 1, activationtime: 5 } } },
      "dependencies.901.activationtime",
      /unknown field/,
    ],
    ["chainIndex negative", { dependencies: { "901": { chainIndex: -1 } } }, "dependencies.901.chainIndex", /unsigned/],
    [
      "chainIndex over uint32",
      { dependencies: { "901": { chainIndex: "4294967296" } } },
      "dependencies.901.chainIndex",
      /exceeds uint32/,
    ],
    [
      "chainIndex hex text",
      { dependencies: { "901": { chainIndex: "0x1" } } },
      "dependencies.901.chainIndex",
      /not a decimal number/,
    ],
    [
      "chainIndex bool",
      { dependencies: { "901": { chainIndex: true } } },
      "dependencies.901.chainIndex",
      /got boolean/,
    ],
    [
      "activationTime as text",
      { dependencies: { "901": { chainIndex: 1, activationTime: "5" } } },
      "dependencies.901.activationTime",
      /got string/,
    ],
    [
      "historyMinTime fractional",
      { dependencies: { "901": { chainIndex: 1, historyMinTime: 1.5 } } },
      "dependencies.901.historyMinTime",
      /got 1.5/,
    ],
    [
      "activationTime beyond exact JSON",
      { dependencies: { "901": { chainIndex: 1, activationTime: 2 ** 60 } } },
      "dependencies.901.activationTime",
      /not exact/,
    ],
    [
      "shared chain index",
      { dependencies: { "900": { chainIndex: 7 }, "901": { chainIndex: "7" } } },
      "dependencies.901.chainIndex",
      /same index \(7\) as chain 900/,
    ],
    [
      "expiry override negative",
      { dependencies: {}, overrideMessageExpiryWindow: -1 },
      "overrideMessageExpiryWindow",
      /unsigned/,
    ],
  ];
  for (const [name, json, field, why] of bad) {
    it(`refuses ${name}, naming ${field === "" ? "the document" : field}`, () => {
      assert.throws(
        () => parseDependencySet(json),
        (e: unknown) => {
          assert.ok(e instanceof DependencySetError, String(e));
          assert.equal(e.field, field);
          assert.match(e.reason, why);
          return true;
        },
      );
    });
  }

  it("a bad file names the file and the field; missing and non-JSON files are one line", () => {
    const p = file("bad.json", JSON.stringify({ dependencies: { "901": { chainIndex: 1, activationTime: -3 } } }));
    assert.throws(
      () => loadDependencySet(p),
      (e: unknown) =>
        e instanceof DependencySetError &&
        e.path === p &&
        e.field === "dependencies.901.activationTime" &&
        e.message === `${p}: dependencies.901.activationTime: expected an unsigned integer, got -3`,
    );
    const missing = join(dir, "nope.json");
    assert.throws(() => loadDependencySet(missing), { message: `${missing}: no such file` });
    const garbage = file("garbage.json", "{dependencies:");
    assert.throws(
      () => loadDependencySet(garbage),
      (e: unknown) => {
        assert.ok(e instanceof DependencySetError);
        assert.match(e.message, new RegExp(`^${garbage.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}: not JSON`));
        assert.ok(!e.message.includes("\n"));
        return true;
      },
    );
  });
});
