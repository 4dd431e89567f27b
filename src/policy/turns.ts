/**
 * Turns of the event loop for long synchronous-looking work (reading a script before it starts):
 * as the shell does between statements (patches/README.md, H15), other sessions, the HTTP API
 * and timers — the shell call's own time limit among them — run in between.
 */
/** Milliseconds of reading between two turns of the event loop (the shell's own period). */
export const TURN_MS = 20;
/** Nodes visited between two turns at most, whatever the clock says. */
const TURN_NODES = 2_000;

/**
 * Gives the event loop a turn (`setImmediate`) every {@link TURN_MS} ms or {@link TURN_NODES}
 * steps, as the shell does between statements (patches/README.md, H15), and honours a signal.
 */
export class Turns {
  private last = performance.now();
  private steps = 0;
  constructor(private readonly signal?: AbortSignal) {}

  /** Counts one step: true when it is time to give the event loop a turn ({@link yield}). */
  due(): boolean {
    return ++this.steps >= TURN_NODES || (this.steps % 64 === 0 && performance.now() - this.last >= TURN_MS);
  }

  /** Gives the event loop one turn. @throws the signal's reason when aborted. */
  async yield(): Promise<void> {
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.steps = 0;
    this.last = performance.now();
    this.check();
  }

  /** Counts one step and gives a turn when due. @throws the signal's reason when aborted. */
  async step(): Promise<void> {
    if (this.due()) await this.yield();
  }

  /** @throws the signal's reason when aborted. */
  check(): void {
    if (this.signal?.aborted) throw this.signal.reason instanceof Error ? this.signal.reason : new Error("stopped");
  }
}
