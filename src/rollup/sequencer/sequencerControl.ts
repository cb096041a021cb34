/**
 * The sequencer's run state (spec part 3; op-node rollup/sequencing and driver): a node started
 * with `--sequencer.enabled` sequences unless `--sequencer.stopped`, and the admin API moves it
 * between stopped and running. `admin_startSequencer(hash)` must name the current unsafe head (the
 * sequencer resumes on exactly the block the operator saw); `admin_stopSequencer` returns the hash of
 * the last sequenced block (the unsafe head). With `--rpc.admin-state` each move is persisted
 * before it takes effect, and a stored state overrides `--sequencer.stopped` at startup.
 *
 * Block building itself is `sequencer.ts`'s: it asks `active` before each block
 * and subscribes to `onChange`. Errors carry op-node's messages.
 */
import { equalBytes } from "../../primitives/bytes.js";
import { bytesToHex } from "../../primitives/hex.js";
import { type AdminState, readAdminState, writeAdminState } from "./adminState.js";

export const SEQUENCER_ERRORS = {
  NOT_ENABLED: "sequencer is not enabled",
  ALREADY_STARTED: "sequencer already running",
  ALREADY_STOPPED: "sequencer not running",
} as const;

/** A refused move, with op-node's message. */
export class SequencerControlError extends Error {
  override readonly name = "SequencerControlError";
}

export interface SequencerControlOptions {
  /** --sequencer.enabled */
  readonly enabled: boolean;
  /** --sequencer.stopped */
  readonly stopped: boolean;
  /** --rpc.admin-state (null: not persisted). */
  readonly adminStatePath: string | null;
  /** --conductor.enabled: persistence cannot be combined with it once a state is stored. */
  readonly conductorEnabled: boolean;
}

export class SequencerControl {
  private running: boolean;
  private readonly listeners: ((active: boolean) => void)[] = [];
  /**
   * admin_setRecoverMode / --sequencer.recover: build deposit-only blocks with strict L1 origin
   * preparation (the sequencer reads it before each block).
   */
  recoverMode = false;
  /** Set when a stored admin state decided the start state (the caller logs it as a warning). */
  readonly restoredFrom: AdminState | null;

  /**
   * Reads the admin state (throws AdminStateError for an invalid file, SequencerControlError when
   * a stored state meets --conductor.enabled).
   */
  constructor(
    private readonly opts: SequencerControlOptions,
    /** The current unsafe L2 head's hash (the block a start must name). */
    private readonly unsafeHead: () => Uint8Array,
  ) {
    const stored = opts.adminStatePath === null ? null : readAdminState(opts.adminStatePath);
    if (stored !== null && opts.conductorEnabled) {
      throw new SequencerControlError(
        "admin state persistence cannot be used with --conductor.enabled (a sequencer state is stored)",
      );
    }
    this.restoredFrom = stored;
    this.running = opts.enabled && (stored !== null ? stored.sequencerStarted : !opts.stopped);
  }

  get enabled(): boolean {
    return this.opts.enabled;
  }

  /** admin_sequencerActive */
  get active(): boolean {
    return this.running;
  }

  onChange(f: (active: boolean) => void): void {
    this.listeners.push(f);
  }

  /** admin_startSequencer */
  start(headHash: Uint8Array): void {
    if (!this.opts.enabled) throw new SequencerControlError(SEQUENCER_ERRORS.NOT_ENABLED);
    if (this.running) throw new SequencerControlError(SEQUENCER_ERRORS.ALREADY_STARTED);
    const head = this.unsafeHead();
    if (!equalBytes(head, headHash)) {
      throw new SequencerControlError(
        `block hash does not match: head ${bytesToHex(head)}, received ${bytesToHex(headHash)}`,
      );
    }
    this.persist(true);
    this.set(true);
  }

  /** admin_stopSequencer: the hash of the last sequenced block. */
  stop(): Uint8Array {
    if (!this.opts.enabled) throw new SequencerControlError(SEQUENCER_ERRORS.NOT_ENABLED);
    if (!this.running) throw new SequencerControlError(SEQUENCER_ERRORS.ALREADY_STOPPED);
    this.persist(false);
    this.set(false);
    return this.unsafeHead();
  }

  private persist(started: boolean): void {
    if (this.opts.adminStatePath === null) return;
    try {
      writeAdminState(this.opts.adminStatePath, { sequencerStarted: started });
    } catch (e) {
      const what = started ? "start" : "stop";
      throw new SequencerControlError(
        `failed to persist sequencer ${what}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      );
    }
  }

  private set(active: boolean): void {
    this.running = active;
    for (const f of this.listeners) f(active);
  }
}
