/**
 * The sequencer state machine of spec part 3 and op-node's admin-state file: stopped → running only
 * through admin_startSequencer naming the unsafe head, running → stopped through
 * admin_stopSequencer (returning the head), op-node's error messages, and persistence: the file is
 * written atomically on each move and a stored state overrides --sequencer.stopped on restart.
 */
import { strict as assert } from "node:assert";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bytesToHex } from "../../../../src/primitives/hex.js";
import { AdminStateError, readAdminState, writeAdminState } from "../../../../src/rollup/sequencer/adminState.js";
import { SequencerControl, SequencerControlError } from "../../../../src/rollup/sequencer/sequencerControl.js";

const HEAD = new Uint8Array(32).fill(0xab);
const OTHER = new Uint8Array(32).fill(0xcd);

describe("rollup/sequencerControl and adminState", () => {
  let dir = "";
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "opal-seqctl-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const control = (o: Partial<ConstructorParameters<typeof SequencerControl>[0]> = {}): SequencerControl =>
    new SequencerControl(
      { enabled: true, stopped: false, adminStatePath: null, conductorEnabled: false, ...o },
      () => HEAD,
    );

  it("--sequencer.stopped: no sequencing until admin_startSequencer names the unsafe head", () => {
    const c = control({ stopped: true });
    const seen: boolean[] = [];
    c.onChange((a) => seen.push(a));
    assert.equal(c.active, false);
    assert.throws(() => c.stop(), new SequencerControlError("sequencer not running"));
    assert.throws(
      () => c.start(OTHER),
      new SequencerControlError(`block hash does not match: head ${bytesToHex(HEAD)}, received ${bytesToHex(OTHER)}`),
    );
    assert.equal(c.active, false);
    c.start(HEAD);
    assert.equal(c.active, true);
    assert.throws(() => c.start(HEAD), new SequencerControlError("sequencer already running"));
    assert.deepEqual(c.stop(), HEAD);
    assert.equal(c.active, false);
    assert.deepEqual(seen, [true, false]);
  });

  it("a node without --sequencer.enabled refuses both moves", () => {
    const c = control({ enabled: false });
    assert.equal(c.active, false);
    assert.throws(() => c.start(HEAD), new SequencerControlError("sequencer is not enabled"));
    assert.throws(() => c.stop(), new SequencerControlError("sequencer is not enabled"));
  });

  it("--rpc.admin-state persists each move, and the stored state overrides --sequencer.stopped", () => {
    const path = join(dir, "sub", "admin.json");
    const a = control({ stopped: true, adminStatePath: path });
    assert.equal(a.restoredFrom, null);
    assert.equal(existsSync(path), false);
    a.start(HEAD);
    assert.equal(readFileSync(path, "utf8"), '{"sequencerStarted":true}');
    assert.equal(existsSync(`${path}.tmp`), false);
    // Restart with --sequencer.stopped=true: the stored "started" wins.
    const b = control({ stopped: true, adminStatePath: path });
    assert.deepEqual(b.restoredFrom, { sequencerStarted: true });
    assert.equal(b.active, true);
    b.stop();
    // Restart without --sequencer.stopped: the stored "stopped" wins.
    const c = control({ stopped: false, adminStatePath: path });
    assert.equal(c.active, false);
  });

  it("a stored state with --conductor.enabled fails at startup", () => {
    const path = join(dir, "admin.json");
    writeAdminState(path, { sequencerStarted: false });
    assert.throws(() => control({ adminStatePath: path, conductorEnabled: true }), SequencerControlError);
  });

  it("a failed write leaves the state unchanged", () => {
    const c = control({ stopped: true, adminStatePath: join(dir, "sub", "admin.json") });
    writeFileSync(join(dir, "sub"), "a file where the directory should be");
    assert.throws(() => c.start(HEAD), /failed to persist sequencer start/);
    assert.equal(c.active, false);
  });

  it("readAdminState: missing is unset; strict decoding otherwise", () => {
    const path = join(dir, "s.json");
    assert.equal(readAdminState(path), null);
    for (const [text, why] of [
      ["{", /not JSON/],
      ["[]", /expected a JSON object/],
      ["{}", /missing sequencerStarted/],
      ['{"sequencerStarted":1}', /must be true or false/],
      ['{"sequencerStarted":true,"x":1}', /unknown field "x"/],
    ] as const) {
      writeFileSync(path, text);
      assert.throws(
        () => readAdminState(path),
        (e: unknown) => e instanceof AdminStateError && why.test(e.message),
      );
    }
    writeFileSync(path, '{"sequencerStarted":false}');
    assert.deepEqual(readAdminState(path), { sequencerStarted: false });
  });
});
