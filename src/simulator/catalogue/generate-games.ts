import type { GenContext } from './gen-context.ts';
import { scenarioMix, type Scenario } from './scenario.ts';
import type { GameInfo, SimEvent, Team } from './types.ts';

const TEAMS: Record<GameInfo['sport'], Array<[name: string, abbreviation: string, color: string]>> = {
  soccer: [
    ['Arsenal', 'ARS', '#EF0107'],
    ['Chelsea', 'CHE', '#034694'],
    ['Liverpool', 'LIV', '#C8102E'],
    ['Everton', 'EVE', '#003399'],
    ['Real Madrid', 'RMA', '#FEBE10'],
    ['Sevilla', 'SEV', '#D80027'],
    ['Valencia', 'VAL', '#EE3524'],
    ['Girona', 'GIR', '#CD2534'],
  ],
  tennis: [
    ['Carlos Alcaraz', 'ALC', '#E4002B'],
    ['Jannik Sinner', 'SIN', '#00843D'],
    ['Iga Swiatek', 'SWI', '#DC143C'],
    ['Coco Gauff', 'GAU', '#002868'],
    ['Daniil Medvedev', 'MED', '#0039A6'],
    ['Aryna Sabalenka', 'SAB', '#00A651'],
  ],
  basketball: [
    ['Celtics', 'BOS', '#007A33'],
    ['Lakers', 'LAL', '#552583'],
    ['Nuggets', 'DEN', '#0E2240'],
    ['Knicks', 'NYK', '#F58426'],
    ['Warriors', 'GSW', '#1D428A'],
    ['Heat', 'MIA', '#98002E'],
  ],
};

const LEAGUES: Record<GameInfo['sport'], string[]> = {
  soccer: ['premier-league', 'la-liga'],
  tennis: ['atp', 'wta'],
  basketball: ['nba'],
};

function team(ctx: GenContext, sport: GameInfo['sport'], pick: number): Team {
  const list = TEAMS[sport];
  const [name, abbreviation, color] = list[pick % list.length] ?? ['Team', 'TEA', '#000000'];
  return {
    name,
    abbreviation,
    color,
    record: `${ctx.rng.int(0, 30)}-${ctx.rng.int(0, 30)}`,
    providerId: `prov-${ctx.rng.hex(8)}`,
    sourceTeamId: String(ctx.rng.int(1000, 9999)),
  };
}

function gameInfo(
  ctx: GenContext,
  sport: GameInfo['sport'],
  leagueSlug: string,
  scenario: Scenario,
  index: number,
): GameInfo {
  const teamA = team(ctx, sport, index * 2);
  const teamB = team(ctx, sport, index * 2 + 1);
  const lifecycle =
    scenario === 'live' ? 'in_progress' : scenario === 'upcoming' || scenario === 'draft' ? 'scheduled' : 'final';
  const sets: GameInfo['sets'] = [];
  if (sport === 'tennis' && lifecycle !== 'scheduled') {
    const played = lifecycle === 'final' ? 3 : ctx.rng.int(1, 2);
    for (let s = 0; s < played; s++) {
      const tiebreak = ctx.rng.chance(0.3);
      sets.push(tiebreak ? { a: 7, b: 6, tiebreak: { a: 7, b: ctx.rng.int(0, 5) } } : { a: 6, b: ctx.rng.int(0, 4) });
    }
  }
  const scored = lifecycle === 'scheduled' ? 0 : 1;
  return {
    sport,
    leagueSlug,
    teamA,
    teamB,
    lifecycle,
    liveLabel:
      lifecycle === 'in_progress'
        ? sport === 'tennis'
          ? `Set ${sets.length + 1}`
          : sport === 'soccer'
            ? `${ctx.rng.int(1, 89)}'`
            : `Q${ctx.rng.int(1, 4)}`
        : '',
    scoreA:
      scored *
      (sport === 'basketball'
        ? ctx.rng.int(40, 110)
        : sport === 'tennis'
          ? sets.filter((s) => s.a > s.b).length
          : ctx.rng.int(0, 3)),
    scoreB:
      scored *
      (sport === 'basketball'
        ? ctx.rng.int(40, 110)
        : sport === 'tennis'
          ? sets.filter((s) => s.b > s.a).length
          : ctx.rng.int(0, 3)),
    sets,
    hasThreeWay: sport === 'soccer',
    spreadsLines: sport === 'soccer' ? [-1.5, -2.5] : sport === 'tennis' ? [-1.5, -2.5] : [-3.5, -5.5, -7.5],
    totalsLines: sport === 'soccer' ? [1.5, 2.5, 3.5] : sport === 'tennis' ? [21.5, 22.5, 23.5] : [215.5, 220.5, 225.5],
    gameStateId: ctx.rng.uuid(),
  };
}

function addGameMarkets(ctx: GenContext, event: SimEvent, game: GameInfo, scenario: Scenario): void {
  const a = game.teamA.name;
  const b = game.teamB.name;
  if (game.hasThreeWay) {
    const negRiskId = `0x${ctx.rng.hex(64)}`;
    event.negRiskId = negRiskId;
    const roles = [
      ['home', `Will ${a} win?`, `${a}`],
      ['draw', `Will ${a} vs ${b} end in a draw?`, 'Draw'],
      ['away', `Will ${b} win?`, `${b}`],
    ] as const;
    for (const [role, question, label] of roles) {
      ctx.addMarket(event, scenario, {
        question: `${question} (${event.title})`,
        sourceMarketType: 'three_way',
        displayLabel: label,
        outcomes: [
          {
            label: 'Yes',
            kind: role === 'draw' ? 'draw' : `team_${role}`,
            teamSide: role === 'draw' ? undefined : role,
          },
          { label: 'No' },
        ],
        initialPriceMicro: BigInt(ctx.rng.int(20, 45)) * 10_000n,
        negRiskId,
        threeWayRole: role,
      });
    }
  } else {
    ctx.addMarket(event, scenario, {
      question: `${a} vs. ${b}`,
      sourceMarketType: 'moneyline',
      displayLabel: 'Moneyline',
      outcomes: [
        { label: a, shortLabel: game.teamA.abbreviation, kind: 'team_home', teamSide: 'home' },
        { label: b, shortLabel: game.teamB.abbreviation, kind: 'team_away', teamSide: 'away' },
      ],
      initialPriceMicro: ctx.fairPrice(),
    });
  }
  for (const line of game.spreadsLines) {
    ctx.addMarket(event, scenario, {
      question: `Spread: ${a} (${line}) — ${event.title}`,
      sourceMarketType: 'spread',
      line: String(line),
      displayLabel: `${game.teamA.abbreviation} ${line}`,
      outcomes: [
        { label: `${a} ${line}`, kind: 'team_home', teamSide: 'home', threshold: line },
        { label: `${b} +${-line}`, kind: 'team_away', teamSide: 'away', threshold: -line },
      ],
      initialPriceMicro: ctx.fairPrice(),
    });
  }
  for (const line of game.totalsLines) {
    ctx.addMarket(event, scenario, {
      question: `Total: over ${line} — ${event.title}`,
      sourceMarketType: 'total',
      line: String(line),
      displayLabel: `O/U ${line}`,
      outcomes: [
        { label: 'Over', kind: 'over', threshold: line },
        { label: 'Under', kind: 'under', threshold: line },
      ],
      initialPriceMicro: ctx.fairPrice(),
    });
  }
}

export function generateGames(ctx: GenContext, count: number): void {
  const sports: GameInfo['sport'][] = ['soccer', 'tennis', 'basketball'];
  for (let i = 0; i < count; i++) {
    const sport = sports[i % sports.length] ?? 'soccer';
    const leagueSlug = ctx.rng.pick(LEAGUES[sport]);
    const scenario = scenarioMix(i, true);
    const game = gameInfo(ctx, sport, leagueSlug, scenario, i);
    const event = ctx.newEvent({
      title: `${game.teamA.name} vs. ${game.teamB.name}`,
      eventType: 'GAME',
      scenario,
      categoryKeys: ctx.leafKeysUnder('sports', leagueSlug),
      durationMs: sport === 'basketball' ? 3 * 3_600_000 : 2 * 3_600_000,
      offsetHours: ctx.rng.int(1, 96),
      tags: ['sports', sport, leagueSlug],
      description: `${game.teamA.name} face ${game.teamB.name}.`,
    });
    event.game = game;
    event.childSlugs.push(ctx.uniqueSlug(`${event.slug}-more-markets`));
    addGameMarkets(ctx, event, game, scenario);
  }
}
