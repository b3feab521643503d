import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { faultName, planFaults, type Step } from './fault-plan.ts';
import {
  startEmbedded,
  startKafkaMode,
  startOwnKafka,
  startScaleOut,
  type Pipeline,
  type ScaleOutPipeline,
} from './pipelines.ts';
import { busLogStarts, scaleOutTimeline } from './scale-out-plan.ts';
import { Proc, ROOT, sampleRssEvery, sleep } from './procs.ts';
import type { CausedGap, Verdict, VerifyInput } from './verify.ts';

/**
 * One run of the fault suite: a simulator writing its ground truth, the pipeline in one mode,
 * `faultMs` of combined faults (venue faults, SIGKILLs, service restarts), `settleMs` of calm, a
 * clean stop, then the verdict on what the warehouse holds.
 */

export type Mode = 'embedded' | 'kafka' | 'scaleout';

export interface SuiteOptions {
  mode: Mode;
  seed: number;
  /** Synthetic book changes per second at the simulator. */
  rate: number;
  faultMs: number;
  settleMs: number;
  kafkaBrokers?: string;
  temporalAddress?: string;
  /** Prints progress. */
  log?(line: string): void;
  /** Keep the work directory (data, ground truth, logs) for a look afterwards. */
  keep?: boolean;
}

export interface RateLimits {
  earned: Record<string, number>;
  injected: number;
}

export interface Figures {
  mode: Mode;
  minutes: number;
  faults: Record<string, number>;
  verdict: Verdict;
  rateLimits: RateLimits;
  peakRssMiB: Record<string, number>;
  crashes: string[];
  /** Why a clean stop (or a stop during a fault) ended with another exit code than 0: the tail of its output. */
  uncleanStops: string[];
  exitCodes: Record<string, number | null>;
  workDir: string;
}

/** Stream endpoints whose data a step's fault loses: the gap it must cause, if any. */
function causedStreams(step: Step): string[] {
  if (step.type === 'kill') {
    if (step.target === 'run') return ['bus', 'market'];
    return step.target === 'capture' ? ['market'] : [];
  }
  if (step.type !== 'inject') return [];
  const { spec } = step;
  const endpoint = spec.endpoint ?? 'market';
  const losing =
    spec.kind === 'drop_connection' ||
    spec.kind === 'sequence_reset' ||
    spec.kind === 'silence' ||
    (spec.kind === 'error_frame' && (spec.action === 'reconnect' || spec.action === 'resubscribe'));
  return losing ? [endpoint] : [];
}

export async function runFaultSuite(options: SuiteOptions): Promise<Figures> {
  const log = options.log ?? (() => undefined);
  const work = mkdtempSync(join(tmpdir(), `tapehouse-faults-${options.mode}-`));
  const logFile = join(work, 'output.log');
  const gtDir = join(work, 'ground-truth');
  const dataDir = join(work, 'data');
  const runId = `faults${options.mode}${Date.now()}`;
  let kafkaBrokers = options.kafkaBrokers ?? process.env.TAPEHOUSE_KAFKA_BROKERS ?? '127.0.0.1:9092';
  // The scale-out mode stops Kafka: its own broker, so the other modes running now do not see it.
  const ownKafka = options.mode === 'scaleout' ? await startOwnKafka(work) : undefined;
  if (ownKafka) kafkaBrokers = ownKafka.brokers;
  const temporalAddress = options.temporalAddress ?? process.env.TAPEHOUSE_TEMPORAL_ADDRESS ?? '127.0.0.1:7233';
  writeFileSync(logFile, '');

  const sim = new Proc({
    name: 'simulator',
    args: [
      'simulate',
      '--port',
      '0',
      '--control-port',
      '0',
      '--seed',
      String(options.seed),
      '--rate',
      String(options.rate),
      '--ground-truth',
      gtDir,
      '--recurring-cadence-s',
      '120',
    ],
    cwd: work,
    logFile,
  }).start();
  let pipeline: Pipeline | undefined;
  const stopSampling = sampleRssEvery(() => [sim, ...(pipeline?.procs ?? [])]);
  try {
    const venueUrl = (await sim.waitFor(/simulator listening on (\S+)/))[1]!;
    const token = (await sim.waitFor(/demo token .*?\): (\S+)/))[1]!;
    const controlUrl = (await sim.waitFor(/fault control on (\S+)/))[1]!;
    const ctx = { work, dataDir, venueUrl, token, logFile, runId, kafkaBrokers, temporalAddress };
    log(`${options.mode}: starting the pipeline (work dir ${work})`);
    pipeline =
      options.mode === 'embedded'
        ? await startEmbedded(ctx)
        : options.mode === 'kafka'
          ? await startKafkaMode(ctx)
          : await startScaleOut(ctx, ownKafka!);
    // Let capture cover every market and the sync jobs run once before the first fault.
    await sleep(20_000);

    const faults: Record<string, number> = {};
    const caused: CausedGap[] = [];
    const startedAt = Date.now();
    const problems: string[] = [];
    if (options.mode === 'scaleout') {
      // Membership, warehouse and Kafka faults on a script of their own; the venue stays calm.
      await scaleOutTimeline(pipeline as ScaleOutPipeline, faults, problems, (line) =>
        log(`scaleout: +${Math.round((Date.now() - startedAt) / 1000)} s ${line}`),
      );
    } else {
      await runPlan(options, pipeline, controlUrl, startedAt, faults, caused, log);
    }
    const remaining = startedAt + options.faultMs - Date.now();
    if (remaining > 0) await sleep(remaining);
    const settleFrom = Date.now();
    log(`${options.mode}: faults over; settling for ${Math.round(options.settleMs / 1000)} s`);
    await sleep(options.settleMs);

    const rateLimits = (await (
      await request(`${controlUrl}/rate-limits`, { dispatcher: CONTROL })
    ).body.json()) as RateLimits;
    const checkedTo = Date.now() - 2_000;
    const exitCodes = await pipeline.stop();
    await sim.stop();
    log(`${options.mode}: stopped; judging`);
    const verifyInput: VerifyInput = {
      dataDir,
      gtDir,
      fromMs: startedAt,
      toMs: checkedTo,
      // The sync jobs run every 10 s (30 s for the embedded defaults) and page to the end.
      fillsToMs: settleFrom,
      topicPrefix: options.mode === 'embedded' ? 'tapehouse' : runId,
      // On Kafka every bus gap must be a loss Kafka confirms: its log start past the missing offsets.
      busLogStarts: options.mode === 'embedded' ? undefined : await busLogStarts(kafkaBrokers, runId),
      caused,
      booksPerToken: Math.max(10, Math.round(options.faultMs / 15_000)),
    };
    // Kept with the run (--keep): the verdict can be judged again with `node --import tsx test/faults/verify.ts "$(cat
    // verify-input.json)"`.
    writeFileSync(join(work, 'verify-input.json'), JSON.stringify(verifyInput));
    const verdict = await judge(verifyInput);
    const procs = [sim, ...pipeline.procs];
    return {
      mode: options.mode,
      minutes: Math.round(((options.faultMs + options.settleMs) / 60_000) * 10) / 10,
      faults,
      verdict,
      rateLimits,
      peakRssMiB: Object.fromEntries(procs.map((p) => [p.name, Math.round(p.peakRssKiB / 1024)])),
      crashes: [...problems, ...procs.flatMap((p) => p.crashes)],
      exitCodes,
      uncleanStops: procs.flatMap((p) => p.uncleanStops),
      workDir: work,
    };
  } finally {
    stopSampling();
    if (pipeline) await pipeline.stop().catch(() => undefined);
    await sim.stop();
    await ownKafka?.stop().catch(() => undefined);
    if (!options.keep && !process.env.TAPEHOUSE_FAULTS_KEEP) rmSync(work, { recursive: true, force: true });
  }
}

/** The venue faults, kills and restarts of the embedded and Kafka modes, on their seeded plan. */
async function runPlan(
  options: SuiteOptions,
  pipeline: Pipeline,
  controlUrl: string,
  startedAt: number,
  faults: Record<string, number>,
  caused: CausedGap[],
  log: (line: string) => void,
): Promise<void> {
  const steps = planFaults({
    seed: options.seed,
    faultMs: options.faultMs,
    mode: options.mode === 'embedded' ? 'embedded' : 'kafka',
  });
  log(`${options.mode}: ${steps.length} faults over ${Math.round(options.faultMs / 1000)} s`);
  // Kills and restarts run alongside the venue faults: the timeline does not wait for them.
  const disruptions: Promise<void>[] = [];
  for (const step of steps) {
    const wait = startedAt + step.atMs - Date.now();
    if (wait > 0) await sleep(wait);
    const name = faultName(step);
    const at = Date.now();
    faults[name] = (faults[name] ?? 0) + 1;
    log(`${options.mode}: +${Math.round((at - startedAt) / 1000)} s ${name}`);
    const streams = causedStreams(step);
    const done = perform(step, pipeline, controlUrl).then(() => {
      const duration = step.type === 'inject' ? (step.spec.duration_ms ?? step.spec.gap_ms ?? 0) : Date.now() - at;
      if (streams.length > 0) caused.push({ name, startMs: at, endMs: at + duration, streams });
    });
    if (step.type === 'inject') await done;
    else disruptions.push(done);
  }
  await Promise.all(disruptions);
}

async function perform(step: Step, pipeline: Pipeline, controlUrl: string): Promise<void> {
  if (step.type === 'kill') return pipeline.kill(step.target, step.downMs);
  if (step.type === 'restart') return pipeline.restart(step.service);
  const response = await request(`${controlUrl}/faults`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(step.spec),
    dispatcher: CONTROL,
  });
  const text = await response.body.text();
  if (response.statusCode !== 201)
    throw new Error(`the simulator refused fault ${JSON.stringify(step.spec)}: ${response.statusCode} ${text}`);
}

/**
 * A new connection for every fault: a CI run failed on a kept-alive one that the simulator's
 * server closed (its idle timeout) as the next fault was sent on it ("other side closed"), with
 * the simulator busy enough that one fault call had taken 16 s.
 */
const CONTROL = new Agent({ pipelining: 0 });

/** Runs the verifier in its own process (one chDB data directory per process). */
function judge(input: VerifyInput): Promise<Verdict> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test/faults/verify.ts'), JSON.stringify(input)],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.once('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('VERDICT '));
      if (code === 0 && line) resolve(JSON.parse(line.slice('VERDICT '.length)) as Verdict);
      else reject(new Error(`verify exited ${code}: ${err.slice(-3000)}`));
    });
  });
}

/** The figures as a user reads them. */
export function describeFigures(f: Figures): string {
  const v = f.verdict;
  const lines = [
    `== fault suite, ${f.mode} mode, ${f.minutes} min ==`,
    `faults injected: ${Object.entries(f.faults)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `public fills (trades): expected ${v.trades.expected} (${v.trades.multiFillTrades} trades of several fills), stored once ${v.trades.storedOnce}, inside recorded gaps ${v.trades.inGaps}, duplicated ${v.trades.duplicated}, missing outside gaps ${v.trades.missing}, of which fills lost from a stored trade ${v.trades.fillsLost}`,
    `fills (demo account): expected ${v.fills.expected} (${v.activities.lateFills} reported late), stored ${v.fills.stored}, duplicated ${v.fills.duplicated}, missing ${v.fills.missing}`,
    `orders against activities (demo account): judged ${v.activities.ordersJudged}, disagreeing ${v.activities.disagreeing}`,
    `rows stored twice: ${Object.values(v.duplicateRows).reduce((a, b) => a + b, 0)} over ${Object.keys(v.duplicateRows).length} tables${Object.entries(
      v.duplicateRows,
    )
      .filter(([, n]) => n > 0)
      .map(([table, n]) => `; ${table} ${n}`)
      .join('')}`,
    ...v.duplicateExamples.map((example) => `  twice: ${example}`),
    `gaps recorded: ${Object.entries(v.gaps.recorded)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `gaps caused: ${v.gaps.caused}, of which unrecorded ${v.gaps.causedUnrecorded}; false gaps (bus gaps over records Kafka still holds): ${v.gaps.falseBusGaps}`,
    `books compared ${v.books.compared}, mismatched ${v.books.mismatched}`,
    `dead letters: ${v.deadLetters.count}; data-quality findings: ${v.dataQuality}`,
    `429s earned: ${Object.values(f.rateLimits.earned).reduce((a, b) => a + b, 0)} (${Object.entries(
      f.rateLimits.earned,
    )
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}); injected ${f.rateLimits.injected}`,
    `peak RSS MiB: ${Object.entries(f.peakRssMiB)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `crashes: ${f.crashes.length}; exit codes at the clean stop: ${JSON.stringify(f.exitCodes)}`,
  ];
  const examples = [
    ...v.gaps.falseExamples,
    ...v.trades.missingExamples,
    ...v.fills.missingExamples,
    ...v.activities.examples,
    ...v.books.examples,
    ...v.gaps.unrecordedExamples,
    ...f.crashes.map((c) => c.slice(0, 600)),
    ...f.uncleanStops.map((c) => c.slice(0, 1500)),
  ];
  if (examples.length > 0) lines.push('examples:', ...examples.map((e) => `  ${e}`));
  return lines.join('\n');
}

/** Every count that must be zero, by name: the suite fails on any that is not. */
export function mustBeZero(f: Figures): Record<string, number> {
  const v = f.verdict;
  return {
    trades_duplicated: v.trades.duplicated,
    trades_missing_outside_gaps: v.trades.missing,
    public_fills_lost: v.trades.fillsLost,
    fills_duplicated: v.fills.duplicated,
    fills_missing: v.fills.missing,
    orders_disagreeing_with_activities: v.activities.disagreeing,
    rows_stored_twice: Object.values(v.duplicateRows).reduce((a, b) => a + b, 0),
    gaps_caused_unrecorded: v.gaps.causedUnrecorded,
    false_gaps: v.gaps.falseBusGaps,
    books_mismatched: v.books.mismatched,
    dead_letters: v.deadLetters.count,
    rate_limits_earned: Object.values(f.rateLimits.earned).reduce((a, b) => a + b, 0),
    crashes: f.crashes.length,
    unclean_exits: Object.values(f.exitCodes).filter((c) => c !== 0).length,
  };
}

export { ROOT };
