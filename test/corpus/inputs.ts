import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { generatedAccount, generatedBus, generatedMarket, generatedPortfolio, generatedRest, type GeneratedEntry } from './generated.ts';

/**
 * The hostile-input corpus: one JSONL file per family (one input a line, with a name, what it is
 * and the outcome it must have) plus the bulky inputs generated.ts builds. `expect` is
 * `<outcome>` or `<outcome>:<detail>`, where the outcome is one of
 * - `stored`: data records reached the warehouse as rows;
 * - `flagged:<problem>`: stored as sent, and a data_quality row names what is wrong with it;
 * - `rejected:<problem>`: no data row, a data_quality row with the problem and the raw frame;
 * - `dead_letter:<error_code>`: a dead_letters row with the reason;
 * - `counted:duplicate|stale`: dropped as a repeat or an older book, counted in capture's stats;
 * - `control`: a control frame (heartbeat, acknowledgement, sequence reset) that carries no data;
 * - `unchanged`: a book frame that changes nothing (the ladder it describes is already recorded);
 * - `accepted` (REST): the body parsed, its raw text kept;
 * - `typed_error:<Class>[:<code>]` (REST): the client's typed error, with the interface code.
 */

export type Family = 'market' | 'account' | 'portfolio' | 'rest' | 'bus';

interface Base {
  family: Family;
  name: string;
  about: string;
  expect: string;
}

export interface StreamInput extends Base {
  family: 'market' | 'account' | 'portfolio';
  /** The frame (WebSocket message or SSE event data) as the venue sent it. */
  raw: string;
  /** Frames sent before it on the same connection (to set up a duplicate, a stale book…). */
  before: string[];
}

export interface RestInput extends Base {
  family: 'rest';
  endpoint: 'orderbook' | 'order' | 'orders' | 'pnl' | 'summary';
  status: number;
  headers: Record<string, string>;
  body: string;
  /** How the server misbehaves on the wire, beyond what it sends. */
  behaviour?: 'reset-mid-body' | 'stall-headers' | 'stall-body';
}

export interface BusInput extends Base {
  family: 'bus';
  /** The bytes on the bus, as UTF-8 text. */
  wire: string;
}

export type CorpusInput = StreamInput | RestInput | BusInput;

const DIR = import.meta.dirname;

function lines(file: string): Record<string, unknown>[] {
  return readFileSync(join(DIR, file), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const text = (frame: unknown): string => (typeof frame === 'string' ? frame : JSON.stringify(frame));

function streamInputs(family: StreamInput['family'], file: string, generated: GeneratedEntry[]): StreamInput[] {
  const fromFile = lines(file).map((e) => ({
    family,
    name: String(e.name),
    about: String(e.about),
    expect: String(e.expect),
    raw: 'raw' in e ? String(e.raw) : text(e.frame),
    before: Array.isArray(e.before) ? e.before.map(text) : [],
  }));
  return [...fromFile, ...generated.map((g) => ({ family, name: g.name, about: g.about, expect: g.expect, raw: g.raw!, before: [] }))];
}

export function marketInputs(): StreamInput[] {
  return streamInputs('market', 'market-frames.jsonl', generatedMarket());
}

export function accountInputs(): StreamInput[] {
  return streamInputs('account', 'account-frames.jsonl', generatedAccount());
}

export function portfolioInputs(): StreamInput[] {
  return streamInputs('portfolio', 'portfolio-events.jsonl', generatedPortfolio());
}

export function restInputs(): RestInput[] {
  const fromFile = lines('rest-bodies.jsonl') as unknown as Omit<RestInput, 'family'>[];
  const generated = generatedRest().map((g) => ({ name: g.name, about: g.about, expect: g.expect, endpoint: g.endpoint, status: g.status, headers: g.headers, body: g.body }) as Omit<RestInput, 'family'>);
  return [...fromFile, ...generated].map((e) => ({ ...e, family: 'rest' }));
}

export function busInputs(): BusInput[] {
  const fromFile = lines('bus-records.jsonl').map((e) => ({ family: 'bus' as const, name: String(e.name), about: String(e.about), expect: String(e.expect), wire: 'wire' in e ? String(e.wire) : JSON.stringify(e.record) }));
  return [...fromFile, ...generatedBus().map((g) => ({ family: 'bus' as const, name: g.name, about: g.about, expect: g.expect, wire: g.raw! }))];
}
