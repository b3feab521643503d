import type { Warehouse } from '../src/warehouse/warehouse.ts';

/**
 * Warehouses that misbehave on purpose, around a real one, for the loader's tests: every call that
 * reaches the engine (inserts, and reads through the client) passes through a gate.
 */

/** `what`: the table an insert goes to, or 'query'. */
type Gate = <T>(call: () => Promise<T>, what: string) => Promise<T>;

function gated(real: Warehouse, gate: Gate): Warehouse {
  const client = new Proxy(real.client, {
    get(target, property, receiver) {
      if (property === 'query')
        return (...args: Parameters<typeof target.query>) => gate(() => target.query(...args), 'query');
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return {
    target: real.target,
    client,
    insertRows: (table, rows, options) => gate(() => real.insertRows(table, rows, options), table),
    async prepareInsert(table, rows, options) {
      const prepared = await real.prepareInsert(table, rows, options);
      return { ...prepared, send: () => gate(() => prepared.send(), table) };
    },
    forgetSchemas: () => real.forgetSchemas(),
    // The same gate on the other session: a kill or an outage reaches every connection of the process.
    ownSession: async () => gated(await real.ownSession(), gate),
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
export function mortal(real: Warehouse, dieAt: number, afterCall: boolean, landsLateMs = 0): Mortal {
  let calls = 0;
  return dyingAt(real, () => ++calls >= dieAt, afterCall, landsLateMs);
}

/** Dies once an insert into `table` is done in the engine, before the loader hears back. */
export function mortalAfterInsert(real: Warehouse, table: string): Mortal {
  return dyingAt(real, (what) => what === table || what === `tapehouse.${table}`, true);
}

/**
 * Dies while its first insert into `table` is on the wire: that insert reaches the engine only
 * when `land()` is called — after the next life read where storing stands, say — and the dead
 * process never hears back.
 */
export function mortalWithLateInsert(real: Warehouse, table: string): Mortal & { land(): Promise<void> } {
  let late: (() => Promise<unknown>) | undefined;
  let die!: () => void;
  const died = new Promise<void>((resolve) => (die = resolve));
  const warehouse = gated(real, async (call, what) => {
    if (late) return never();
    if (what !== table && what !== `tapehouse.${table}`) return call();
    late = call;
    die();
    return never();
  });
  return {
    warehouse,
    died,
    kill: () => {
      late ??= async () => undefined;
      die();
    },
    land: async () => {
      await late?.();
    },
  };
}

/**
 * Every call is on the wire for a moment (a turn of the event loop) before it reaches the engine.
 * Calls on the wire when the process dies still reach the engine, `landsLateMs` later — after the
 * next life may have read where storing stands, as a killed process's last requests can land on a
 * server — and the dead process hears nothing back.
 */
function dyingAt(real: Warehouse, fatal: (what: string) => boolean, afterCall: boolean, landsLateMs = 0): Mortal {
  let dead = false;
  let die!: () => void;
  const died = new Promise<void>((resolve) => (die = resolve));
  const kill = () => {
    dead = true;
    die();
  };
  const gate: Gate = async (call, what) => {
    if (dead) return never();
    if (!fatal(what)) {
      await new Promise((resolve) => setImmediate(resolve));
      if (dead) {
        await new Promise((resolve) => setTimeout(resolve, landsLateMs));
        await call().catch(() => undefined);
        return never();
      }
      const result = await call();
      return dead ? never() : result;
    }
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

/** The real warehouse (each of its sessions), counting the inserts of each table and holding those of `held` tables
 * until released. */
export function watching(
  real: Warehouse,
  held: Set<string> = new Set(),
): { warehouse: Warehouse; inserts: Map<string, number>; release(): void } {
  const inserts = new Map<string, number>();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const watch = (session: Warehouse): Warehouse => ({
    ...session,
    insertRows: (table, rowList, options) => {
      inserts.set(table, (inserts.get(table) ?? 0) + 1);
      return session.insertRows(table, rowList, options);
    },
    async prepareInsert(table, rowList, options) {
      const prepared = await session.prepareInsert(table, rowList, options);
      return {
        ...prepared,
        send: async () => {
          inserts.set(table, (inserts.get(table) ?? 0) + 1);
          if (held.has(table)) await released;
          return prepared.send();
        },
      };
    },
    ownSession: async () => watch(await session.ownSession()),
  });
  return { warehouse: watch(real), inserts, release };
}
