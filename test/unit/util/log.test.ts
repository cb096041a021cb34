/**
 * The rollup node's logger: each format's exact line for a fixed clock, level filtering and the
 * run-time level shared with children, logfmt quoting, value rendering, pid, and colour only on the
 * terminal format.
 */
import { strict as assert } from "node:assert";
import { Log, type LogFormat, parseLogLevel } from "../../../src/util/log.js";

const CLOCK = () => new Date(2026, 10, 22, 10, 20, 28, 123);

function logger(format: LogFormat, extra: { color?: boolean; pid?: boolean } = {}) {
  const lines: string[] = [];
  const log = new Log({ level: 3, format, sink: (l) => lines.push(l), clock: CLOCK, ...extra });
  return { log, lines };
}

describe("util/log", () => {
  const fields = { number: 7, hash: new Uint8Array([0xab, 0x01]), big: 10n ** 20n, note: "two words", ok: true };

  it("terminal and text: geth's aligned line", () => {
    for (const f of ["terminal", "text"] as const) {
      const { log, lines } = logger(f);
      log.info("Imported block", fields);
      log.warn("Short");
      assert.deepEqual(lines, [
        'INFO  [11-22|10:20:28.123] Imported block                           number=7 hash=0xab01 big=100000000000000000000 note="two words" ok=true',
        "WARN  [11-22|10:20:28.123] Short",
      ]);
    }
  });

  it("logfmt, json and json-pretty", () => {
    const t = CLOCK().toISOString();
    const a = logger("logfmt");
    a.log.error("Bad thing", { err: new Error('no "way"'), empty: "" });
    assert.deepEqual(a.lines, [`t=${t} lvl=error msg="Bad thing" err="no \\"way\\"" empty=`]);
    const b = logger("json");
    b.log.info("x", fields);
    assert.deepEqual(JSON.parse(b.lines[0]!), {
      t,
      lvl: "info",
      msg: "x",
      number: 7,
      hash: "0xab01",
      big: "100000000000000000000",
      note: "two words",
      ok: true,
    });
    const c = logger("json-pretty");
    c.log.info("x", { a: 1 });
    assert.equal(c.lines[0], JSON.stringify({ t, lvl: "info", msg: "x", a: 1 }, null, 2));
  });

  it("levels: filtering, setLevel shared with children, parseLogLevel", () => {
    const { log, lines } = logger("logfmt");
    const child = log.child({ module: "rpc" });
    log.debug("hidden");
    child.info("seen");
    child.setLevel(1);
    log.warn("hidden too");
    log.error("still");
    log.setLevel(5);
    child.detail("deep");
    assert.equal(lines.length, 3);
    assert.match(lines[0]!, /msg=seen module=rpc$/);
    assert.match(lines[1]!, /lvl=error msg=still$/);
    assert.match(lines[2]!, /lvl=trace msg=deep module=rpc$/);
    assert.equal(parseLogLevel("silent"), 0);
    assert.equal(parseLogLevel("detail"), 5);
    assert.equal(parseLogLevel("trace"), 5);
    assert.equal(parseLogLevel("crit"), 1);
    assert.equal(parseLogLevel(4), 4);
    assert.equal(parseLogLevel("4"), 4);
    assert.equal(typeof parseLogLevel("loud"), "string");
    assert.equal(typeof parseLogLevel(9), "string");
  });

  it("pid field, and colour only on the terminal format", () => {
    const a = logger("logfmt", { pid: true, color: true });
    a.log.info("m");
    assert.match(a.lines[0]!, new RegExp(`msg=m pid=${process.pid}$`));
    assert.ok(!a.lines[0]!.includes("\x1b["));
    const b = logger("terminal", { color: true });
    b.log.info("m");
    assert.ok(b.lines[0]!.startsWith("\x1b[32mINFO \x1b[0m ["));
    const c = logger("text", { color: true });
    c.log.info("m");
    assert.ok(!c.lines[0]!.includes("\x1b["));
  });
});
