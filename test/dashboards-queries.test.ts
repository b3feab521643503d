import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataPanels, loadDashboards, type Dashboard } from '../src/dashboards/dashboard-model.ts';
import { rowCount } from '../src/dashboards/frames.ts';
import { queryDashboard, queryPanel } from '../src/dashboards/panel-data.ts';
import { readOnly, runQueryThroughClient, type RunQuery } from '../src/dashboards/run-query.ts';
import { parseTimeRange } from '../src/dashboards/time-range.ts';
import { resolveVariables } from '../src/dashboards/variables.ts';
import { fillDashboardWarehouse } from './dashboards-fixtures.ts';
import { migratedWarehouse, type TestWarehouse } from './warehouse-fixtures.ts';

// Every panel of every dashboard, expanded for the last 6 hours of a seeded run, on chDB.
// Recent: pipeline_health keeps 90 days (a TTL), so older samples would vanish.
const END = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000);
const range = parseTimeRange(END.getTime() - 6 * 3_600_000, END.getTime());
const dashboards = loadDashboards().map(({ dashboard }) => dashboard);

let seeded: TestWarehouse;
let run: RunQuery;

beforeAll(async () => {
  seeded = await migratedWarehouse();
  await fillDashboardWarehouse(seeded.warehouse, { end: END });
  run = readOnly(runQueryThroughClient(seeded.warehouse.client));
});

afterAll(async () => {
  await seeded?.cleanup();
});

describe.each(dashboards.map((dashboard) => [dashboard.title, dashboard] as const))('%s', (_title, dashboard) => {
  it.each(dataPanels(dashboard).map((panel) => [panel.title, panel] as const))(
    '%s: its query runs and returns rows with the columns its panel type draws',
    async (_panel, panel) => {
      const variables = await resolveVariables(dashboard, {}, range, run);
      const data = await queryPanel(panel, range, variables, run);
      expect(data.error).toBeUndefined();
      expect(data.frames.map(rowCount).some((rows) => rows > 0)).toBe(true);
      expect(data.problem).toBeUndefined();
    },
  );
});

function dashboardTitled(title: string): Dashboard {
  return dashboards.find((dashboard) => dashboard.title === title)!;
}

describe('variables change what the panels show', () => {
  it('one category narrows the markets overview to that category', async () => {
    const overview = dashboardTitled('Markets overview');
    const volumeOf = async (category: string[]) => {
      const data = await queryDashboard(overview, range, { category }, run, new Set([3]));
      return data.panels[3]!.frames[0]!.fields[0]!.values[0] as number;
    };
    const all = await volumeOf(['$__all']);
    const crypto = await volumeOf(['crypto']);
    const politics = await volumeOf(['politics']);
    expect(crypto).toBeGreaterThan(0);
    expect(crypto).toBeLessThan(all);
    expect(crypto + politics).toBeLessThan(all);
  });

  it('another outcome of the market shows its own book: the two mids of a binary market sum to 1', async () => {
    const detail = dashboardTitled('Market detail');
    const mid = async (outcome: string) => {
      const data = await queryDashboard(
        detail,
        range,
        { event: ['event-2'], market: ['market-2-1'], outcome: [outcome] },
        run,
        new Set([3]),
      );
      return data.panels[3]!.frames[0]!.fields[0]!.values[0] as number;
    };
    expect((await mid('tok-2-1-yes')) + (await mid('tok-2-1-no'))).toBeCloseTo(1, 6);
  });

  it('depth grows with the distance from mid, one series per distance chosen', async () => {
    const detail = dashboardTitled('Market detail');
    const data = await queryDashboard(detail, range, { distance: ['10000', '100000'] }, run, new Set([10]));
    const series = data.panels[10]!.frames[0]!.fields.filter((field) => field.type === 'number');
    expect(series.map((field) => field.labels?.distance)).toEqual(['±1¢', '±10¢']);
    const total = (index: number) => series[index]!.values.reduce<number>((sum, value) => sum + Number(value ?? 0), 0);
    expect(total(1)).toBeGreaterThan(total(0));
  });
});

describe('a line breaks where coverage broke, and only there', () => {
  // Half an hour the job did not run, 3 hours before the end, as the next run's capture records it.
  const gap = { from: END.getTime() - 3 * 3_600_000, to: END.getTime() - 2.5 * 3_600_000 };
  const framesPanel = () => {
    const health = dashboardTitled('Pipeline health');
    return queryDashboard(health, range, {}, run, new Set([7])).then((data) => data.panels[7]!.frames[0]!);
  };
  const inGap = (at: unknown) => typeof at === 'number' && at > gap.from && at < gap.to;

  it('a capture gap whose minutes still hold samples changes nothing; once they hold none, every series is null there', async () => {
    const before = await framesPanel();
    await seeded.warehouse.insertRows('capture_gaps', [
      {
        stream: 'market',
        gap_start: new Date(gap.from).toISOString(),
        gap_end: new Date(gap.to).toISOString(),
        reason: 'capture_not_running',
        recovery: 'books_reseeded',
        _topic: 'tapehouse.capture.gaps',
        _partition: 0,
        _offset: 990_000,
        _received_at: new Date(gap.to).toISOString(),
      },
    ]);
    expect(await framesPanel()).toEqual(before);

    const window = `sampled_at >= fromUnixTimestamp64Milli(${gap.from}) AND sampled_at < fromUnixTimestamp64Milli(${gap.to})`;
    await seeded.warehouse.client.command({
      query: `ALTER TABLE tapehouse.pipeline_health DELETE WHERE ${window} SETTINGS mutations_sync = 2`,
    });
    const frame = await framesPanel();
    const [time, ...series] = frame.fields;
    const holeRows = time!.values.flatMap((at, index) => (inGap(at) ? [index] : []));
    expect(holeRows.length).toBeGreaterThan(0);
    expect(series.length).toBe(before.fields.length - 1);
    for (const field of series) {
      expect(
        holeRows.map((index) => field.values[index]),
        JSON.stringify(field.labels),
      ).toEqual(holeRows.map(() => null));
      // Outside the hole the series is as it was.
      const outside = time!.values.flatMap((at, index) => (inGap(at) ? [] : [field.values[index]]));
      expect(
        outside.every((value) => value !== null),
        JSON.stringify(field.labels),
      ).toBe(true);
    }
  });
});

describe('tables the main job and the reconciler fill', () => {
  it('panels on empty pipeline_health and reconciliations still answer (zeros, no rows, or no row for a stat that says "never run"), without an error', async () => {
    await seeded.warehouse.client.command({ query: 'TRUNCATE TABLE tapehouse.pipeline_health' });
    await seeded.warehouse.client.command({ query: 'TRUNCATE TABLE tapehouse.reconciliations' });
    const emptied = new Set(['pipeline_health', 'reconciliations']);
    const tablesOf = (sql: string) => [...sql.matchAll(/tapehouse\.(\w+)/g)].map((match) => match[1]!);
    for (const dashboard of [dashboardTitled('Pipeline health'), dashboardTitled('Account')]) {
      const data = await queryDashboard(dashboard, range, {}, run);
      const onThem = dataPanels(dashboard).filter((panel) =>
        panel.targets.some((t) => tablesOf(t.rawSql).some((table) => emptied.has(table))),
      );
      expect(onThem.length).toBeGreaterThan(0);
      for (const panel of onThem) {
        const panelData = data.panels[panel.id]!;
        expect(panelData.error, panel.title).toBeUndefined();
        if (!panel.targets.every((t) => tablesOf(t.rawSql).every((table) => emptied.has(table)))) continue;
        // A stat that can tell "nothing yet" from 0 (its noValue: "never run", "not running") has no row to show.
        const tellsNothing = panel.type === 'stat' && typeof panel.fieldConfig?.defaults.noValue === 'string';
        if (panel.type === 'stat' && !tellsNothing)
          expect(
            panelData.frames[0]!.fields.every((field) => field.values[0] === 0),
            panel.title,
          ).toBe(true);
        else
          expect(
            panelData.frames.every((frame) => rowCount(frame) === 0),
            panel.title,
          ).toBe(true);
      }
    }
  });
});
