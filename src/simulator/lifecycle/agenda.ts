/**
 * Jobs due at clock instants, run in time order (ties in the order they were added). A job gets
 * the clock time it actually runs at, so what it stamps never goes back before frames already sent.
 */
export class Agenda {
  #jobs: Array<{ atMs: number; order: number; run: (nowMs: number) => void }> = [];
  #order = 0;

  at(atMs: number, run: (nowMs: number) => void): void {
    this.#jobs.push({ atMs, order: this.#order++, run });
    this.#jobs.sort((a, b) => a.atMs - b.atMs || a.order - b.order);
  }

  /** Runs every job due by `nowMs`, including jobs that due jobs add for the same instant. */
  runDue(nowMs: number): void {
    for (;;) {
      const next = this.#jobs[0];
      if (!next || next.atMs > nowMs) return;
      this.#jobs.shift();
      next.run(nowMs);
    }
  }

  get size(): number {
    return this.#jobs.length;
  }
}
