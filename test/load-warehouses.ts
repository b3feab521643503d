import type { Warehouse } from '../src/warehouse/warehouse.ts';

/**
 * Warehouses that misbehave on purpose, around a real one, for the loader's tests: every call that
 * reaches the engine (inserts, and reads through the client) passes through a gate.
 */

type Gate = <T>(call: () => Promise<T>) => Promise<T>;

function gated(real: Warehouse, gate: Gate): Warehouse {
  const client = new Proxy(real.client, {
    get(target, property, receiver) {
      if (property === 'query') return (...args: Parameters<typeof target.query>) => gate(() => target.query(...args));
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    target: real.target,
    client,
    insertRows: (table, rows, options) => gate(() => real.insertRows(table, rows, options)),
    async prepareInsert(table, rows, options) {
      const prepared = await real.prepareInsert(table, rows, options);
      return { ...prepared, send: () => gate(() => prepared.send()) };
    },
    forgetSchemas: () => real.forgetSchemas(),
    close: () => real.close(),
  };
}

const never = <T>(): Promise<T> => new Promise<T>(() => undefined);

export interface Mortal {
  warehouse: Warehouse;
  /** Settles when the process "dies": from then on no call ever returns (as after a SIGKILL). */
  died: Promise<void>;
  /** Dies now: the next call never reaches the engine. */
  kill(): void;
}

/**
 * Dies at its `dieAt`-th call: before the call reaches the engine, or (`afterCall`) once the
 * engine has done it but before the loader hears back — the two instants a kill can hit.
 */
export function mortal(real: Warehouse, dieAt: number, afterCall: boolean): Mortal {
  let calls = 0;
  let dead = false;
  let die!: () => void;
  const died = new Promise<void>((resolve) => (die = resolve));
  const kill = () => {
    dead = true;
    die();
  };
  const gate: Gate = async (call) => {
    if (dead) return never();
    calls += 1;
    if (calls < dieAt) return call();
    if (afterCall) await call().catch(() => undefined);
    kill();
    return never();
  };
  return { warehouse: gated(real, gate), died, kill };
}

/** Refuses every call while `down()` says so, like a server that does not answer. */
export function flaky(real: Warehouse, down: () => boolean): Warehouse {
  return gated(real, (call) => (down() ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:8123')) : call()));
}
