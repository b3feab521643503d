/**
 * The long form of the fault suite (`npm run soak -- --minutes N`): both modes at once by default,
 * each against its own simulator, for N minutes of combined faults and a calm end, then the
 * figures. Exits 1 if any count that must be zero is not.
 *
 *   npm run soak -- --minutes 30 [--mode embedded|kafka|scaleout|both] [--seed 5] [--rate 15] [--keep]
 *
 * (`scaleout` follows its own script of about four minutes whatever --minutes says.)
 */
import { parseArgs } from 'node:util';
import { describeFigures, mustBeZero, runFaultSuite, type Figures, type Mode } from './suite.ts';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    mode: { type: 'string', default: 'both' },
    seed: { type: 'string', default: '5' },
    rate: { type: 'string', default: '15' },
    keep: { type: 'boolean', default: false },
  },
});
const minutes = Number(values.minutes);
if (!Number.isFinite(minutes) || minutes < 3) throw new Error('--minutes must be a number ≥ 3');
const modes: Mode[] = values.mode === 'both' ? ['embedded', 'kafka'] : [values.mode as Mode];
if (!modes.every((m) => m === 'embedded' || m === 'kafka' || m === 'scaleout'))
  throw new Error('--mode is embedded, kafka, scaleout or both');

const settleMs = 90_000;
const faultMs = minutes * 60_000 - settleMs - 20_000;
const started = Date.now();
const results: Figures[] = await Promise.all(
  modes.map((mode) =>
    runFaultSuite({
      mode,
      seed: Number(values.seed),
      rate: Number(values.rate),
      faultMs,
      settleMs,
      keep: values.keep,
      log: (line) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}\n`),
    }),
  ),
);
let failed = false;
for (const figures of results) {
  process.stdout.write(`${describeFigures(figures)}\n`);
  const nonZero = Object.entries(mustBeZero(figures)).filter(([, n]) => n !== 0);
  process.stdout.write(
    nonZero.length === 0
      ? 'every count that must be zero is zero\n\n'
      : `NOT ZERO: ${nonZero.map(([k, n]) => `${k} ${n}`).join(', ')}\n\n`,
  );
  if (values.keep) process.stdout.write(`kept: ${figures.workDir}\n`);
  failed ||= nonZero.length > 0;
}
process.stdout.write(`soak took ${Math.round((Date.now() - started) / 60_000)} min\n`);
process.exit(failed ? 1 : 0);
