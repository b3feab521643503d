import { SingleBar } from 'cli-progress';

/**
 * A progress bar on stderr (cli-progress: it redraws in place on a terminal and keeps to the
 * terminal's width; no need to write that again). Elsewhere (a pipe, a log) cli-progress draws
 * nothing, so each step is a plain line instead and logs stay readable.
 */
export class ProgressBar {
  readonly #out: NodeJS.WriteStream;
  #bar: SingleBar | undefined;
  #label = '';

  constructor(out: NodeJS.WriteStream = process.stderr) {
    this.#out = out;
  }

  /** `label [█████░░░░░]  44% 12/27 what` */
  update(label: string, done: number, total: number, what: string): void {
    if (!this.#out.isTTY) {
      const share = total === 0 ? 1 : Math.min(1, done / total);
      this.#out.write(`${label} ${String(Math.floor(share * 100)).padStart(3)}% ${done}/${total} ${what}\n`);
      return;
    }
    if (this.#bar === undefined || label !== this.#label) {
      this.#bar?.stop();
      this.#label = label;
      this.#bar = new SingleBar({
        stream: this.#out,
        format: `${label} [{bar}] {percentage}% {value}/{total} {what}`,
        hideCursor: true,
        clearOnComplete: false,
        barsize: 30,
      });
      this.#bar.start(total, done, { what });
    } else {
      this.#bar.setTotal(total);
      this.#bar.update(done, { what });
    }
  }

  /** Leaves the terminal on a fresh line. */
  end(): void {
    this.#bar?.stop();
    this.#bar = undefined;
  }
}
