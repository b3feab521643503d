import type { GameInfo, SimEvent, SimMarket, Team } from '../../catalogue/types.ts';

export function renderTeam(team: Team, game: GameInfo): Record<string, unknown> {
  return {
    name: team.name,
    abbreviation: team.abbreviation,
    logo_url: `https://assets.example.invalid/teams/${team.abbreviation.toLowerCase()}.png`,
    color: team.color,
    record: team.record,
    sport_slug: game.sport,
    league_slug: game.leagueSlug,
    provider_id: team.providerId,
    source_team_id: team.sourceTeamId,
  };
}

export function renderGameState(game: GameInfo): Record<string, unknown> {
  return {
    id: game.gameStateId,
    score: {
      sport: game.sport,
      match: { a: game.scoreA, b: game.scoreB },
      sets: game.sets.map((s) => ({ a: s.a, b: s.b, tiebreak: s.tiebreak })),
    },
    match: { lifecycle: game.lifecycle, live_label: game.liveLabel },
  };
}

function lineSection(
  key: string,
  label: string,
  order: number,
  markets: SimMarket[],
  defaultLine: string | undefined,
): Record<string, unknown> {
  return {
    key,
    label,
    order,
    render_hint: 'card_list',
    groups: markets.map((m) => ({ key: `${key}:${m.line ?? 'main'}`, market_ids: [m.id] })),
    meta: {
      selector_axis: 'line',
      default_line: defaultLine === undefined ? undefined : Number(defaultLine),
      line_owner_side: 'first',
      grid_cols_hint: 2,
    },
  };
}

/** The middle line of a ladder of lines is the featured one. */
export function mainOf(markets: SimMarket[]): SimMarket | undefined {
  return markets[Math.floor((markets.length - 1) / 2)];
}

/** Tabs of a game page: game lines (moneyline or three-way, spreads, totals). */
export function renderMarketTabs(event: SimEvent, markets: SimMarket[]): Array<Record<string, unknown>> {
  const main = markets.filter((m) => m.sourceMarketType === 'moneyline' || m.sourceMarketType === 'three_way');
  const spreads = markets.filter((m) => m.sourceMarketType === 'spread');
  const totals = markets.filter((m) => m.sourceMarketType === 'total');
  const sections = [
    {
      key: 'main',
      label: event.game?.hasThreeWay ? 'Result' : 'Moneyline',
      order: 0,
      render_hint: 'card_list',
      groups: [{ key: 'main', market_ids: main.map((m) => m.id) }],
      meta: { grid_cols_hint: main.length },
    },
    lineSection('spreads', 'Spreads', 1, spreads, mainOf(spreads)?.line),
    lineSection('totals', 'Totals', 2, totals, mainOf(totals)?.line),
  ];
  return [{ key: 'game-lines', label: 'Game Lines', order: 0, sections }];
}
