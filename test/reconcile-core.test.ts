import { describe, expect, it } from 'vitest';
import { compare } from '../src/reconcile/comparison.ts';
import { gapsAffecting, type CoverageGap } from '../src/reconcile/coverage.ts';
import { formatUnits } from '../src/reconcile/explain.ts';
import { checkOrderFills } from '../src/reconcile/fill-completeness.ts';
import type { LedgerEvent, LedgerFill, Side } from '../src/reconcile/ledger-events.ts';
import { replay } from '../src/reconcile/replay.ts';
import { emptyResolution, redemptionEvents } from '../src/reconcile/resolutions.ts';
import { averagePrice, SIMULATOR_VENUE_RULES, makerRebate, takerFee } from '../src/reconcile/venue-rules.ts';
import { Account } from '../src/simulator/accounts/account.ts';
import { buyShares, deposit, redeemShares, sellShares } from '../src/simulator/accounts/ledger.ts';
import {
  DEFAULT_FEES,
  makerRebate as venueMakerRebate,
  takerFee as venueTakerFee,
} from '../src/simulator/engine/fees.ts';
import { Prng } from '../src/simulator/prng.ts';

const AVERAGE = { method: 'average' as const, rules: SIMULATOR_VENUE_RULES };
let fillSeq = 0;

function fill(
  tokenId: string,
  side: Side,
  sharesMicro: bigint,
  priceMicro: bigint,
  atMs: number,
  extra: Partial<Omit<LedgerFill, 'atMs'>> = {},
): LedgerEvent {
  fillSeq += 1;
  return {
    kind: 'fill',
    atMs,
    fill: {
      fillId: `f${fillSeq}`,
      orderId: `o${fillSeq}`,
      tokenId,
      conditionId: 'c1',
      side,
      role: 'TAKER',
      priceMicro,
      sharesMicro,
      feeMicro: 0n,
      atMs,
      ...extra,
    },
  };
}

describe("the ledger follows the venue's own accounting", () => {
  it("gives the simulator ledger's shares, cost basis, realised PnL and collateral for any seeded sequence of trades and redemptions", () => {
    for (const seed of [1, 2, 3, 4]) {
      const rng = new Prng(seed);
      const venue = new Account('a', 'a', '0x');
      deposit(venue, 1_000_000_000_000n);
      const events: LedgerEvent[] = [{ kind: 'deposit', atMs: 0, id: 'd', amountMicro: 1_000_000_000_000n }];
      const tokens = ['t0', 't1', 't2'];
      for (let step = 1; step <= 400; step++) {
        const tokenId = tokens[rng.int(0, 2)]!;
        const key = { tokenId, conditionId: 'c1', outcomeIndex: 0 as const };
        const held = venue.position(tokenId)?.sharesMicro ?? 0n;
        const price = BigInt(rng.int(1, 999)) * 1_000n; // the 0.001 grid
        if (rng.chance(0.04) && held > 0n) {
          const resolution = [0n, 1_000_000n, 500_000n, 370_000n][rng.int(0, 3)]!;
          redeemShares(venue, tokenId, resolution, step);
          events.push({ kind: 'redemption', atMs: step, tokenId, conditionId: 'c1', resolutionPriceMicro: resolution });
          continue;
        }
        const fee = BigInt(rng.int(0, 3_000));
        if (held > 0n && rng.chance(0.45)) {
          const shares = rng.chance(0.2) ? held : BigInt(rng.int(1, Number(held / 10_000n))) * 10_000n;
          sellShares(venue, key, shares, price, fee, step);
          events.push(fill(tokenId, 'SELL', shares, price, step, { feeMicro: fee }));
        } else {
          const shares = BigInt(rng.int(1, 2_000)) * 10_000n;
          buyShares(venue, key, shares, price, fee, step);
          events.push(fill(tokenId, 'BUY', shares, price, step, { feeMicro: fee }));
        }
      }
      const ledger = replay(events, AVERAGE);
      expect(ledger.account.cashMicro).toBe(venue.collateralMicro);
      expect(ledger.account.realisedPnlMicro).toBe(venue.realisedPnlMicro);
      expect(ledger.account.feesPaidMicro).toBe(venue.feesPaidMicro);
      for (const tokenId of tokens) {
        const ours = ledger.token(tokenId)!;
        const theirs = venue.position(tokenId)!;
        expect([ours.sharesMicro, ours.costBasisMicro, ours.realisedPnlMicro]).toEqual([
          theirs.sharesMicro,
          theirs.costBasisMicro,
          theirs.realisedPnlMicro,
        ]);
      }
    }
  });

  it("rounds a partial sale's cost down, as the venue does, and shows the average price the venue would", () => {
    const ledger = replay(
      [
        fill('t', 'BUY', 3_000_000n, 100_000n, 1),
        fill('t', 'BUY', 10_000n, 990_000n, 2),
        fill('t', 'SELL', 1_000_000n, 200_000n, 3),
      ],
      AVERAGE,
    );
    const t = ledger.token('t')!;
    // basis 0.3099 over 3.01 shares; selling 1.00 removes ⌊0.3099 × 1.00 / 3.01⌋ = 0.102956 (not 0.102957)
    expect(t.realisedPnlMicro).toBe(200_000n - 102_956n);
    expect(t.costBasisMicro).toBe(309_900n - 102_956n);
    expect(averagePrice(t.costBasisMicro, t.sharesMicro)).toBe((206_944n * 1_000_000n) / 2_010_000n);
  });

  it("charges the taker fee and credits the maker rebate of the venue's fee schedule", () => {
    const rng = new Prng(9);
    for (let i = 0; i < 500; i++) {
      const price = BigInt(rng.int(1, 999)) * 1_000n;
      const shares = BigInt(rng.int(1, 100_000)) * 10_000n;
      expect(takerFee(SIMULATOR_VENUE_RULES, price, shares)).toBe(venueTakerFee(DEFAULT_FEES, price, shares));
      expect(makerRebate(SIMULATOR_VENUE_RULES, price, shares)).toBe(
        venueMakerRebate(DEFAULT_FEES, venueTakerFee(DEFAULT_FEES, 1_000_000n - price, shares)),
      );
    }
    const ledger = replay([fill('t', 'BUY', 100_000_000n, 300_000n, 1, { role: 'MAKER' })], AVERAGE);
    expect(ledger.account.makerRebatesMicro).toBe(75_000n); // 25 % of the 0.30 taker fee on 100 shares at 0.30
    expect(ledger.account.cashMicro).toBe(-30_000_000n + 75_000n);
  });

  it('splits at ½ per outcome without fee, and merges back at ½', () => {
    const ledger = replay(
      [
        { kind: 'split', atMs: 1, id: 's', conditionId: 'c1', tokenIds: ['yes', 'no'], sharesMicro: 10_000_000n },
        fill('yes', 'SELL', 4_000_000n, 700_000n, 2),
        { kind: 'merge', atMs: 3, id: 'm', conditionId: 'c1', tokenIds: ['yes', 'no'], sharesMicro: 6_000_000n },
      ],
      AVERAGE,
    );
    expect(ledger.token('yes')).toMatchObject({ sharesMicro: 0n, costBasisMicro: 0n, realisedPnlMicro: 800_000n });
    expect(ledger.token('no')).toMatchObject({
      sharesMicro: 4_000_000n,
      costBasisMicro: 2_000_000n,
      realisedPnlMicro: 0n,
    });
    expect(ledger.account.cashMicro).toBe(-10_000_000n + 2_800_000n + 6_000_000n);
  });

  it('under FIFO sells the oldest lots first; realised PnL minus open basis is the same under either method', () => {
    const events = [
      fill('t', 'BUY', 1_000_000n, 400_000n, 1),
      fill('t', 'BUY', 1_000_000n, 600_000n, 2),
      fill('t', 'SELL', 1_500_000n, 700_000n, 3),
    ];
    const fifo = replay(events, { ...AVERAGE, method: 'fifo' }).token('t')!;
    const average = replay(events, AVERAGE).token('t')!;
    expect(fifo.costBasisMicro).toBe(300_000n); // half of the 0.60 lot is left
    expect(average.costBasisMicro).toBe(250_000n);
    expect(fifo.realisedPnlMicro - fifo.costBasisMicro).toBe(average.realisedPnlMicro - average.costBasisMicro);
  });

  it('records a sale beyond the holding instead of failing, so a missing fill shows', () => {
    const t = replay(
      [fill('t', 'BUY', 1_000_000n, 500_000n, 1), fill('t', 'SELL', 3_000_000n, 500_000n, 2)],
      AVERAGE,
    ).token('t')!;
    expect(t.sharesMicro).toBe(-2_000_000n);
    expect(t.oversoldMicro).toBe(2_000_000n);
    expect(t.costBasisMicro).toBe(0n);
  });

  it('redeems before it matches within one millisecond, keeping the given order of fills', () => {
    const events: LedgerEvent[] = [
      fill('t', 'BUY', 1_000_000n, 500_000n, 5),
      { kind: 'redemption', atMs: 5, tokenId: 't', conditionId: 'c1', resolutionPriceMicro: 1_000_000n },
      fill('t', 'BUY', 2_000_000n, 400_000n, 1),
    ];
    const t = replay(events, AVERAGE).token('t')!;
    expect(t.redemptions.map((r) => r.sharesMicro)).toEqual([2_000_000n]);
    expect(t.sharesMicro).toBe(1_000_000n);
  });

  it('stops at every checkpoint with everything up to and including its millisecond', () => {
    const seen: Array<[number, bigint]> = [];
    replay(
      [fill('t', 'BUY', 1_000_000n, 500_000n, 10), fill('t', 'BUY', 1_000_000n, 500_000n, 20)],
      AVERAGE,
      [5, 10, 15, 25],
      (atMs, l) => seen.push([atMs, l.token('t')?.sharesMicro ?? 0n]),
    );
    expect(seen).toEqual([
      [5, 0n],
      [10, 1_000_000n],
      [15, 1_000_000n],
      [25, 2_000_000n],
    ]);
  });
});

describe('redemptions and resolutions', () => {
  it("takes the venue's redemption frame where there is one, and market completion at the resolution price elsewhere", () => {
    const split = {
      ...emptyResolution('c1'),
      payouts: new Map([
        ['yes', 620_000n],
        ['no', 380_000n],
      ]),
      completedAtMs: 50,
    };
    const winner = { ...emptyResolution('c2'), winningTokenId: 'up', completedAtMs: 60 };
    const unknown = { ...emptyResolution('c3'), completedAtMs: 70 };
    const { events, unpriced } = redemptionEvents(
      [
        {
          atMs: 40,
          tokenId: 'yes',
          conditionId: 'c1',
          sharesMicro: 5_000_000n,
          resolutionPriceMicro: 620_000n,
          payoutMicro: 3_100_000n,
        },
      ],
      new Map([
        ['c1', split],
        ['c2', winner],
        ['c3', unknown],
      ]),
      new Map([
        ['yes', 'c1'],
        ['no', 'c1'],
        ['down', 'c2'],
        ['x', 'c3'],
      ]),
    );
    expect(
      events.map(
        (e) => e.kind === 'redemption' && [e.tokenId, e.atMs, e.resolutionPriceMicro, e.reported !== undefined],
      ),
    ).toEqual([
      ['yes', 40, 620_000n, true],
      ['no', 50, 380_000n, false],
      ['down', 60, 0n, false],
    ]);
    expect(unpriced).toEqual([{ tokenId: 'x', conditionId: 'c3', atMs: 70 }]);
  });
});

describe('coverage and judgement', () => {
  const gap = (extra: Partial<CoverageGap>): CoverageGap => ({
    input: 'fills',
    fromMs: 100,
    toMs: 200,
    reason: 'r',
    ...extra,
  });

  it('calls a figure unproven when a gap in its inputs began before it was reported, even when the numbers agree', () => {
    const judge = { toleranceMicro: 0n, gaps: [gap({ reason: 'sync gap' })] };
    const base = {
      scope: 'summary' as const,
      field: 'cash_balance_micro',
      ours: 5n,
      theirs: 5n,
      figure: { kind: 'account' as const },
    };
    expect(compare(judge, { ...base, reportedAtMs: 150 })).toMatchObject({
      status: 'unproven',
      detail: 'unproven: sync gap',
    });
    expect(compare(judge, { ...base, reportedAtMs: 99 }).status).toBe('ok');
    expect(compare(judge, { ...base, reportedAtMs: 99, theirs: 6n })).toMatchObject({
      status: 'different',
      differenceMicro: -1n,
    });
    expect(compare({ ...judge, toleranceMicro: 1n }, { ...base, reportedAtMs: 99, theirs: 6n }).status).toBe('ok');
  });

  it('limits a gap to what depends on its input', () => {
    const oneToken = gap({ tokenId: 'a' });
    const stream = gap({ input: 'account_stream' });
    expect(gapsAffecting([oneToken], { kind: 'position', tokenId: 'b', resolved: false }, 300)).toEqual([]);
    expect(gapsAffecting([oneToken], { kind: 'position', tokenId: 'a', resolved: false }, 300)).toEqual([oneToken]);
    expect(gapsAffecting([oneToken], { kind: 'account' }, 300)).toEqual([oneToken]);
    expect(gapsAffecting([oneToken], { kind: 'lp_incentive' }, 300)).toEqual([]);
    expect(gapsAffecting([stream], { kind: 'position', tokenId: 'b', resolved: false }, 300)).toEqual([]);
    expect(gapsAffecting([stream], { kind: 'position', tokenId: 'b', resolved: true }, 300)).toEqual([stream]);
    expect(gapsAffecting([stream], { kind: 'maker_rebate' }, 300)).toEqual([]);
  });

  it('finds an order whose fills fall short of what the venue says it matched, ignoring fills after the order was read', () => {
    const f = (orderId: string, sharesMicro: bigint, atMs: number): LedgerFill => ({
      fillId: `${orderId}-${atMs}`,
      orderId,
      tokenId: 't',
      conditionId: 'c',
      side: 'BUY',
      role: 'MAKER',
      priceMicro: 500_000n,
      sharesMicro,
      feeMicro: 0n,
      atMs,
    });
    const result = checkOrderFills(
      [
        { orderId: 'complete', tokenId: 't', side: 'BUY', createdAtMs: 1, observedAtMs: 20, matchedMicro: 3_000_000n },
        { orderId: 'short', tokenId: 't', side: 'BUY', createdAtMs: 5, observedAtMs: 20, matchedMicro: 5_000_000n },
      ],
      [f('complete', 3_000_000n, 10), f('complete', 1_000_000n, 30), f('short', 3_000_000n, 10)],
    );
    expect(result.byToken).toMatchObject([{ tokenId: 't', filledMicro: 6_000_000n, matchedMicro: 8_000_000n }]);
    expect(result.byToken[0]!.shortfalls.map((s) => s.order.orderId)).toEqual(['short']);
    expect(result.gaps).toMatchObject([{ input: 'fills', tokenId: 't', fromMs: 5, toMs: 20 }]);
    expect(result.gaps[0]!.reason).toContain('order short matched 5.00 shares but its fills hold 3.00');
  });

  it('writes amounts in units exactly', () => {
    expect([
      formatUnits(2_500_000n),
      formatUnits(455_000n),
      formatUnits(-10n),
      formatUnits(0n),
      formatUnits(123_456_789n),
    ]).toEqual(['2.50', '0.455', '-0.00001', '0.00', '123.456789']);
  });
});
