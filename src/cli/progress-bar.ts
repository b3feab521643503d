/**
 * A progress bar on stderr, drawn as the main job's status line is (src/run/status-line.ts): on a
 * terminal one line rewritten in place, elsewhere (a pipe, a log) a plain line per step, so logs
 * stay readable. Hand-written rather than a library: the CLI already draws its status line this
 * way, and it is one line of output.
 */
export class ProgressBar {
  #drawn = false;
  constructor(
    private readonly out: NodeJS.WriteStream = process.stderr,
    private readonly width = 30,
  ) {}

  /** `label [#####-----]  12/27 what` */
  update(label: string, done: number, total: number, what: string): void {
    const share = total === 0 ? 1 : Math.min(1, done / total);
    const filled = Math.round(share * this.width);
    const line = `${label} [${'#'.repeat(filled)}${'-'.repeat(this.width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}% ${done}/${total} ${what}`;
    if (this.out.isTTY) {
      const columns = this.out.columns ?? 120;
      this.out.write(`\r\x1b[2K${line.length > columns ? `${line.slice(0, columns - 1)}…` : line}`);
      this.#drawn = true;
    } else {
      this.out.write(`${line}\n`);
    }
  }

  /** Leaves the terminal on a fresh line. */
  end(): void {
    if (this.#drawn) this.out.write('\n');
    this.#drawn = false;
  }
}
