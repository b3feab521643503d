import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProgressBar } from '../src/cli/progress-bar.ts';

/** A stream that says whether it is a terminal, and keeps what was written. */
function output(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), {
    isTTY,
    columns: 100,
    cursorTo: () => true,
    clearLine: () => true,
    moveCursor: () => true,
  }) as unknown as NodeJS.WriteStream;
  let text = '';
  (stream as unknown as PassThrough).on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

describe('the progress bar of long commands (tapehouse rederive)', () => {
  it('writes one plain line per step into a pipe or a log', () => {
    const out = output(false);
    const bar = new ProgressBar(out.stream);
    bar.update('rederive trades', 1, 4, 'partitions');
    bar.update('rederive trades', 4, 4, 'partitions');
    bar.end();
    expect(out.text()).toBe('rederive trades  25% 1/4 partitions\nrederive trades 100% 4/4 partitions\n');
  });

  it('draws a bar on a terminal, with the share done and what is counted', async () => {
    const out = output(true);
    const bar = new ProgressBar(out.stream);
    bar.update('rederive quotes', 1, 2, 'partitions');
    bar.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(out.text()).toContain('rederive quotes [');
    expect(out.text()).toContain('] 50% 1/2 partitions');
  });
});
