/**
 * util/slicer.ts: a short job answers inline; a long one gives the event loop back between slices
 * (a callback queued after it runs before it ends); at most `maxActive` jobs run at once, the
 * others start in order; a job parked on a promise keeps its place and resumes with the outcome;
 * a job's throw rejects its promise (or throws inline).
 */
import { strict as assert } from "node:assert";
import { type SliceJob, Slicer } from "../../../src/util/slicer.js";

function* count(n: number): SliceJob<number> {
  for (let i = 0; i < n; i++) yield;
  return n;
}

/** A job of `steps` units, noting when it starts and ends. */
function* steps(name: string, n: number, seen: string[]): SliceJob<string> {
  seen.push(`${name} start`);
  for (let i = 0; i < n; i++) yield;
  seen.push(`${name} end`);
  return name;
}

describe("Slicer", () => {
  it("a job that ends within its first slice answers inline, without a promise", () => {
    const s = new Slicer({ sliceMs: 1000 });
    assert.equal(s.run(count(3)), 3);
    assert.equal(s.turns, 0);
  });

  it("a job that needs the event loop to move on gets it: it only ends once a later callback has run", async () => {
    const s = new Slicer({ sliceMs: 1 });
    let flag = false;
    function* waitFlag(): SliceJob<string> {
      while (!flag) yield;
      return "seen";
    }
    const r = s.run(waitFlag());
    assert.ok(r instanceof Promise);
    setImmediate(() => {
      flag = true;
    });
    assert.equal(await r, "seen");
    assert.ok(s.turns >= 1);
  });

  // sliceMs 0: one unit a turn (and one inline), so the order below does not depend on timing.
  it("maxActive 1: a second job waits until the first ends; both results arrive", async () => {
    const s = new Slicer({ sliceMs: 0, maxActive: 1 });
    const seen: string[] = [];
    const a = s.run(steps("a", 5, seen));
    const b = s.run(steps("b", 5, seen));
    assert.deepEqual(await Promise.all([a, b]), ["a", "b"]);
    assert.deepEqual(seen, ["a start", "a end", "b start", "b end"]);
    assert.equal(s.pending, 0);
  });

  it("maxActive 2: two jobs run side by side, a third starts when one ends", async () => {
    const s = new Slicer({ sliceMs: 0, maxActive: 2 });
    const seen: string[] = [];
    const a = s.run(steps("a", 20, seen));
    const b = s.run(steps("b", 2, seen));
    const c = s.run(steps("c", 2, seen));
    await Promise.all([a, b, c]);
    assert.deepEqual(seen, ["a start", "b start", "b end", "c start", "c end", "a end"]);
  });

  it("a throw inside a job rejects its promise; the slicer goes on with the others", async () => {
    const s = new Slicer({ sliceMs: 0 });
    function* failLate(): SliceJob<number> {
      for (let i = 0; i < 3; i++) yield;
      throw new Error("boom");
    }
    const bad = s.run(failLate());
    const good = s.run(count(50));
    await assert.rejects(Promise.resolve(bad), /boom/);
    assert.equal(await good, 50);
    function* failNow(): SliceJob<number> {
      if (s.pending === 0) throw new Error("now");
      yield;
      return 0;
    }
    assert.throws(() => new Slicer().run(failNow()), /now/);
  });
  it("a job that yields a promise is parked in its place: it resumes with the value, later jobs wait behind it", async () => {
    const s = new Slicer({ sliceMs: 1000, maxActive: 1 });
    const seen: string[] = [];
    let release: (v: number) => void = () => undefined;
    const gate = new Promise<number>((r) => {
      release = r;
    });
    function* parked(): SliceJob<number> {
      seen.push("parked start");
      const v = (yield gate) as number;
      seen.push(`parked got ${v}`);
      return v + 1;
    }
    const a = s.run(parked());
    const b = s.run(steps("next", 2, seen));
    assert.ok(a instanceof Promise && b instanceof Promise);
    // Turns of the loop go by while the first job waits: the second must not start meanwhile.
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
    assert.deepEqual(seen, ["parked start"]);
    assert.equal(s.pending, 2);
    release(41);
    assert.equal(await a, 42);
    assert.equal(await b, "next");
    assert.deepEqual(seen, ["parked start", "parked got 41", "next start", "next end"]);
  });

  it("a rejected promise is thrown where the job yielded it", async () => {
    const s = new Slicer({ sliceMs: 1000, maxActive: 1 });
    function* recovers(): SliceJob<string> {
      try {
        yield Promise.reject(new Error("worker failed"));
        return "no throw";
      } catch (e) {
        return `caught ${(e as Error).message}`;
      }
    }
    assert.equal(await s.run(recovers()), "caught worker failed");
  });
});
