/**
 * Every duration option of every binary has a decided meaning at 0, below 0 and above Node's longest
 * timer (issue 23: `--l1.epoch-poll-interval=0` polled L1 every millisecond). The table below says,
 * for each, what 0 and negatives do and where the runtime behaviour is tested; a duration option
 * added without an entry fails here. "refused" options are checked to be refused by the parser with
 * the option named; the others to be accepted (their meaning is exercised in the file named).
 */
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { parseBatcherArgs } from "../../../src/cli/batcherFlags.js";
import { CLI_DOCS } from "../../../src/cli/cliDocs.js";
import { type FlagSpec, parseValue } from "../../../src/cli/flagTable.js";

type Meaning =
  /** 0 or less is a usage error (upstream fails to start, or every call would fail). */
  | { readonly atOrBelowZero: "refused"; readonly why: string }
  /** 0 or less is accepted and means what `means` says; `tested` names the runtime test. */
  | { readonly atOrBelowZero: "accepted"; readonly means: string; readonly tested: string };

const RUNTIME = "test/integration/node/rollup/durationFlags.test.ts";

const MEANINGS: Readonly<Record<string, Meaning>> = {
  "opal-exec --rpc.evmtimeout": {
    atOrBelowZero: "accepted",
    means: "no timeout (geth); a huge one is capped at Node's longest timer (util/timers.ts)",
    tested: "test/unit/rpc/callOffload.test.ts",
  },
  "opal-exec --workers.evmcall.inline": {
    atOrBelowZero: "accepted",
    means: "every eth_call goes to the evmCall pool; a deadline read by the EVM, never a timer",
    tested: "test/unit/rpc/callOffload.test.ts",
  },
  "opal-exec --txpool.lifetime": {
    atOrBelowZero: "accepted",
    means: "the default 3h with geth's 'Sanitizing invalid txpool lifetime' warning; compared, never a timer",
    tested: "test/unit/txpool/parts.test.ts",
  },
  "opal-exec --rollup.historicalrpctimeout": {
    atOrBelowZero: "accepted",
    means: "op-geth's value for the historical RPC client; no timer is armed from it",
    tested: "(no runtime use)",
  },
  "opal-node --l1.epoch-poll-interval": {
    atOrBelowZero: "accepted",
    means: "safe/finalized polling disabled (op-service PollBlockChanges)",
    tested: RUNTIME,
  },
  "opal-node --l1.http-poll-interval": { atOrBelowZero: "accepted", means: "latest polling disabled", tested: RUNTIME },
  "opal-node --l1.runtime-config-reload-interval": {
    atOrBelowZero: "accepted",
    means: "read once at start, no reload loop",
    tested: RUNTIME,
  },
  "opal-node --l2.engine-rpc-timeout": {
    atOrBelowZero: "refused",
    why: "negative: every engine call would fail; 0 is accepted as op-service's default 10s",
  },
  "opal-node --p2p.ban.duration": {
    atOrBelowZero: "accepted",
    means: "a ban that has already expired (the peer book compares times; no timer)",
    tested: "test/unit/p2p/peerManager.test.ts",
  },
  "opal-node --p2p.peers.grace": { atOrBelowZero: "refused", why: "libp2p connmgr refuses a negative grace period" },
  "opal-node --p2p.gossip.timestamp.threshold": {
    atOrBelowZero: "accepted",
    means: "gossip blocks older than now - threshold are rejected, as op-node (compared, no timer)",
    tested: "test/unit/p2p/gossipBlock.test.ts",
  },
  "opal-node --conductor.rpc-timeout": { atOrBelowZero: "refused", why: "op-node bounds every conductor call by it" },
  "opal-node --altda.get-timeout": { atOrBelowZero: "accepted", means: "no timeout", tested: RUNTIME },
  "opal-node --altda.put-timeout": { atOrBelowZero: "accepted", means: "no timeout", tested: RUNTIME },
  "opal-batcher --poll-interval": {
    atOrBelowZero: "refused",
    why: "op-batcher's time.NewTicker panics on it; 0 here was a busy loop polling L2",
  },
  "opal-batcher --resubmission-timeout": {
    atOrBelowZero: "refused",
    why: "op-service txmgr: 'must provide ResubmissionTimeout'; 0 re-bumped the fee at once",
  },
};

function durationFlags(): [string, FlagSpec][] {
  const out: [string, FlagSpec][] = [];
  for (const doc of CLI_DOCS) {
    for (const spec of [doc.spec, ...(doc.subcommands ?? [])]) {
      for (const [name, f] of Object.entries(spec.flags as Record<string, FlagSpec>)) {
        if (f.type === "duration") out.push([`${spec.name} --${name}`, f]);
      }
    }
  }
  return out;
}

describe("cli: every duration option has a meaning at 0, below 0 and beyond 2^31-1 ms", () => {
  it("each duration option is in the table, and the table names no option that is gone", () => {
    const names = durationFlags().map(([n]) => n);
    assert.deepEqual(
      names.filter((n) => MEANINGS[n] === undefined),
      [],
      "duration options without a decided meaning",
    );
    assert.deepEqual(
      Object.keys(MEANINGS).filter((n) => !names.includes(n)),
      [],
    );
    for (const m of Object.values(MEANINGS)) {
      if (m.atOrBelowZero === "accepted" && m.tested.startsWith("test/")) assert.ok(existsSync(m.tested), m.tested);
    }
  });

  for (const [name, spec] of durationFlags()) {
    const m = MEANINGS[name];
    if (m === undefined) continue;
    it(`${name}: ${m.atOrBelowZero === "refused" ? `refused below its bound (${m.why})` : `≤0 = ${m.means}`}`, () => {
      // Huge values (Go's largest duration) parse everywhere: the timers cap them (util/timers.ts).
      assert.equal(parseValue(spec, "2562047h").ok, true, "2562047h");
      if (m.atOrBelowZero === "refused") {
        assert.equal(parseValue(spec, "-1s").ok, false, "-1s");
      } else {
        assert.equal(parseValue(spec, "0").ok, true, "0");
        assert.equal(parseValue(spec, "-1s").ok, true, "-1s");
      }
    });
  }

  it("opal-batcher: --poll-interval=0 and --resubmission-timeout=0 are one-line usage errors", () => {
    for (const flag of ["--poll-interval=0", "--resubmission-timeout=-5s"]) {
      const required = [
        "--l1-eth-rpc=http://127.0.0.1:8545",
        "--l2-eth-rpc=http://127.0.0.1:9545",
        "--rollup-rpc=http://127.0.0.1:7545",
        `--private-key=${"11".repeat(32)}`,
      ];
      assert.equal(parseBatcherArgs(required, {}).ok, true, "the required flags alone parse");
      const r = parseBatcherArgs([...required, flag], {});
      assert.equal(r.ok, false, flag);
      assert.match((r as { error: string }).error, new RegExp(flag.split("=")[0]!.replace(/-/g, "\\-")));
      assert.doesNotMatch((r as { error: string }).error, /\n/);
    }
  });
});
