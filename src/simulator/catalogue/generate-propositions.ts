import type { GenContext } from './gen-context.ts';
import { scenarioMix } from './scenario.ts';

const PROPOSITIONS: Array<[question: string, root: string, leaf: string]> = [
  ['Will the Fed cut rates at the next meeting?', 'economics', 'fed-rates'],
  ['Will US CPI exceed 3% this month?', 'economics', 'inflation'],
  ['Will Bitcoin reach $150k this year?', 'crypto', 'bitcoin'],
  ['Will Ethereum flip $5k before July?', 'crypto', 'ethereum'],
  ['Will the incumbent win the mayoral race?', 'politics', 'us-elections'],
  ['Will a snap election be called this year?', 'politics', 'world-elections'],
  ['Will the champions defend their title?', 'sports', 'futures'],
  ['Will a spot SOL fund launch this year?', 'crypto', 'futures'],
  ['Will unemployment rise above 4.5%?', 'economics', 'inflation'],
  ['Will the Senate pass the budget bill?', 'politics', 'us-elections'],
];

const CANDIDATE_RACES: Array<[title: string, root: string, leaf: string, candidates: string[]]> = [
  [
    'Who will win the 2028 presidential election?',
    'politics',
    'us-elections',
    ['Ada Lane', 'Ben Ortiz', 'Cara Moss', 'Dev Patel', 'Eli Park'],
  ],
  ['Fed decision in March?', 'economics', 'fed-rates', ['No change', '25 bps cut', '50+ bps cut', '25+ bps hike']],
  ['Premier League winner?', 'sports', 'futures', ['Arsenal', 'Liverpool', 'Chelsea', 'Everton', 'Other']],
  ['Next country to hold a snap election?', 'politics', 'world-elections', ['France', 'Germany', 'Japan', 'Canada']],
  ['Bitcoin price at year end?', 'crypto', 'futures', ['<$80k', '$80k-$120k', '$120k-$160k', '>$160k']],
];

/** Past the end of a template list, titles repeat with a round number so slugs and titles stay distinct. */
function roundTitle(title: string, i: number, templates: number): string {
  return i < templates ? title : `${title} (${Math.floor(i / templates) + 1})`;
}

export function generatePropositions(ctx: GenContext, count: number): void {
  for (let i = 0; i < count; i++) {
    const [question, root, leaf] = PROPOSITIONS[i % PROPOSITIONS.length] ?? [
      'Will it happen?',
      'politics',
      'us-elections',
    ];
    const scenario = scenarioMix(i, false);
    const title = roundTitle(question, i, PROPOSITIONS.length);
    const event = ctx.newEvent({
      title,
      eventType: 'PROPOSITION',
      scenario,
      categoryKeys: ctx.leafKeysUnder(root, leaf),
      durationMs: ctx.rng.int(7, 120) * 86_400_000,
      offsetHours: ctx.rng.int(1, 400),
      tags: [root, leaf],
      description: `Resolves Yes if ${question.replace(/^Will /, '').replace(/\?$/, '')}.`,
    });
    ctx.addMarket(event, scenario, {
      question: title,
      sourceMarketType: 'binary',
      displayLabel: 'Yes / No',
      outcomes: [{ label: 'Yes' }, { label: 'No' }],
      initialPriceMicro: BigInt(ctx.rng.int(2, 98)) * 10_000n,
    });
  }
}

export function generateMultiOutcome(ctx: GenContext, count: number): void {
  for (let i = 0; i < count; i++) {
    const [title, root, leaf, candidates] = CANDIDATE_RACES[i % CANDIDATE_RACES.length] ?? [
      'Who?',
      'politics',
      'us-elections',
      ['A', 'B'],
    ];
    const scenario = scenarioMix(i + 1, false);
    const event = ctx.newEvent({
      title: roundTitle(title, i, CANDIDATE_RACES.length),
      eventType: 'MULTI_OUTCOME',
      scenario,
      categoryKeys: ctx.leafKeysUnder(root, leaf),
      durationMs: ctx.rng.int(30, 400) * 86_400_000,
      offsetHours: ctx.rng.int(1, 400),
      tags: [root, leaf],
      description: 'One candidate resolves Yes; every other candidate resolves No.',
    });
    const negRiskId = `0x${ctx.rng.hex(64)}`;
    event.negRiskId = negRiskId;
    // Prices of a neg-risk group sum to about one.
    const weights = candidates.map(() => ctx.rng.int(1, 10));
    const total = weights.reduce((s, w) => s + w, 0);
    const winnerIndex = ctx.rng.int(0, candidates.length - 1);
    candidates.forEach((candidate, c) => {
      ctx.addMarket(event, scenario, {
        question: `${event.title.replace(/\?$/, '')}: ${candidate}?`,
        sourceMarketType: 'candidate',
        displayLabel: candidate,
        outcomes: [{ label: 'Yes' }, { label: 'No' }],
        initialPriceMicro: (BigInt(weights[c] ?? 1) * 1_000_000n) / BigInt(total),
        negRiskId,
        ...(scenario === 'closed' || scenario === 'archived' ? { winner: c === winnerIndex ? 0 : 1 } : {}),
      });
    });
  }
}
