/** One job of an agenda: due at `atMs`; `order` keeps the order jobs were added in for ties. */
export interface AgendaEntry<J> {
  atMs: number;
  order: number;
  job: J;
}

/**
 * Jobs due at clock instants, run in time order (ties in the order they were added). A job gets
 * the clock time it actually runs at, so what it stamps never goes back before frames already sent.
 * Jobs are whatever `run` takes: closures, or plain data where the agenda is saved with the venue.
 */
export class Agenda<J> {
  #jobs: Array<AgendaEntry<J>> = [];
  #order = 0;

  constructor(private readonly run: (job: J, nowMs: number) => void) {}

  at(atMs: number, job: J): void {
    this.#jobs.push({ atMs, order: this.#order++, job });
    this.#jobs.sort((a, b) => a.atMs - b.atMs || a.order - b.order);
  }

  /** Runs every job due by `nowMs`, including jobs that due jobs add for the same instant. */
  runDue(nowMs: number): void {
    for (;;) {
      const next = this.#jobs[0];
      if (!next || next.atMs > nowMs) return;
      this.#jobs.shift();
      this.run(next.job, nowMs);
    }
  }

  get size(): number {
    return this.#jobs.length;
  }

  /** The jobs not run yet, in the order they will run. */
  entries(): ReadonlyArray<AgendaEntry<J>> {
    return this.#jobs;
  }

  /** Takes saved jobs back (a resumed venue); jobs already due run at the next `runDue`. */
  restore(entries: ReadonlyArray<AgendaEntry<J>>): void {
    this.#jobs = [...entries].sort((a, b) => a.atMs - b.atMs || a.order - b.order);
    this.#order = Math.max(this.#order, ...entries.map((e) => e.order + 1));
  }
}

/** An agenda of closures (what is never saved: faults). */
export function closureAgenda(): Agenda<(nowMs: number) => void> {
  return new Agenda((job, nowMs) => job(nowMs));
}
