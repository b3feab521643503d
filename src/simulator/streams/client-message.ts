import type { ProblemCode } from '../problems.ts';

export type SubjectKind = 'token' | 'condition' | 'event';

/** One thing a client can subscribe to: a channel for one token, condition or event. */
export interface Subject {
  channel: string;
  kind: SubjectKind;
  id: string;
}

export const SUBJECT_FIELDS: Record<SubjectKind, string> = {
  token: 'token_ids',
  condition: 'condition_ids',
  event: 'event_ids',
};

export type ClientMessage =
  | { op: 'subscribe' | 'unsubscribe'; id: string | number | undefined; channels: string[]; subjects: Subject[] }
  | { op: 'ping'; id: string | number | undefined };

export interface MessageProblem {
  code: ProblemCode;
  detail: string;
  id: string | number | undefined;
}

function stringList(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : undefined;
}

/**
 * Reads one client message: `{op, id?, channels, token_ids?, condition_ids?, event_ids?}`.
 * `channels` must come from `allowed`; a socket without ids (the account socket) takes none.
 */
export function parseClientMessage(
  raw: string,
  allowed: readonly string[],
  takesIds: boolean,
): ClientMessage | MessageProblem {
  let msg: unknown;
  try {
    msg = JSON.parse(raw);
  } catch {
    return { code: 'malformed_json', detail: 'A client message is one JSON object.', id: undefined };
  }
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg))
    return { code: 'validation_failed', detail: 'A client message is one JSON object.', id: undefined };
  const m = msg as Record<string, unknown>;
  const id = typeof m.id === 'string' || (typeof m.id === 'number' && Number.isSafeInteger(m.id)) ? m.id : undefined;
  if (m.op === 'ping') return { op: 'ping', id };
  if (m.op !== 'subscribe' && m.op !== 'unsubscribe')
    return { code: 'validation_failed', detail: 'op must be subscribe, unsubscribe or ping.', id };
  const channels = stringList(m.channels);
  if (!channels || channels.length === 0)
    return { code: 'validation_failed', detail: 'channels must be a non-empty array of channel names.', id };
  const unknown = channels.find((c) => !allowed.includes(c));
  if (unknown !== undefined)
    return { code: 'validation_failed', detail: `Unknown channel ${unknown}; channels are ${allowed.join(', ')}.`, id };
  const subjects: Subject[] = [];
  for (const kind of Object.keys(SUBJECT_FIELDS) as SubjectKind[]) {
    const field = SUBJECT_FIELDS[kind];
    if (m[field] === undefined) continue;
    const ids = stringList(m[field]);
    if (!ids || !takesIds)
      return {
        code: 'validation_failed',
        detail: takesIds ? `${field} must be an array of strings.` : `This socket takes no ${field}.`,
        id,
      };
    for (const channel of channels) for (const subjectId of ids) subjects.push({ channel, kind, id: subjectId });
  }
  if (takesIds && subjects.length === 0)
    return { code: 'validation_failed', detail: 'Name at least one of token_ids, condition_ids, event_ids.', id };
  return { op: m.op, id, channels, subjects };
}

export function subjectKey(s: Subject): string {
  return `${s.channel}|${s.kind}|${s.id}`;
}

/** A subject as frames and fault records name it: `{channel, token_id | condition_id | event_id}`. */
export function subjectJson(s: Subject): Record<string, string> {
  return { channel: s.channel, [`${s.kind}_id`]: s.id };
}
