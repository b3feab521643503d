/**
 * What a payload is made of: plain JSON, bigints written as decimal strings. An object field may
 * be absent (undefined): JSON.stringify leaves it out, and a reader treats it as missing.
 */
export type Json = string | number | boolean | null | Json[] | { [key: string]: Json | undefined };

/**
 * A value as it travels in a payload: every bigint of the parsed value (a `_micro` amount) becomes
 * its decimal string, the rest stays as it is. `Wire<Order>` is the payload of an order record.
 */
export type Wire<T> = T extends bigint
  ? string
  : T extends string | number | boolean | null | undefined
    ? T
    : T extends readonly (infer Item)[]
      ? Wire<Item>[]
      : T extends object
        ? { [F in keyof T]: Wire<T[F]> }
        : Json;

/** Fields the venue may add that no one reads yet: kept in the payload as sent (tolerant reader). */
export interface Unread {
  [field: string]: Json | undefined;
}

export class PayloadError extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`payload${path}: ${reason}`);
    this.name = 'PayloadError';
  }
}

/**
 * Turns parsed data (which holds bigints for `_micro` amounts) into a JSON payload: bigints become
 * decimal strings, absent object fields are dropped. Anything JSON cannot carry faithfully
 * (NaN, Infinity, functions, Maps, class instances) is a PayloadError naming where it is, rather
 * than the silent `null` or `{}` JSON.stringify would write.
 */
export function toJsonPayload<T>(value: T, path = ''): Wire<T> {
  return jsonOf(value, path) as Wire<T>;
}

function jsonOf(value: unknown, path: string): Json {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'bigint':
      return value.toString(10);
    case 'number':
      if (!Number.isFinite(value)) throw new PayloadError(path, `${value} has no JSON form`);
      return value;
    case 'object':
      if (value === null) return null;
      if (Array.isArray(value))
        return value.map((item, i) => (item === undefined ? null : jsonOf(item, `${path}[${i}]`)));
      return objectPayload(value, path);
    default:
      throw new PayloadError(path, `a ${typeof value} has no JSON form`);
  }
}

function objectPayload(value: object, path: string): Json {
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    throw new PayloadError(path, `${value.constructor?.name ?? 'object'} is not plain data`);
  }
  const out: { [key: string]: Json } = {};
  for (const [key, item] of Object.entries(value)) {
    if (item !== undefined) out[key] = jsonOf(item, `${path}.${key}`);
  }
  return out;
}
