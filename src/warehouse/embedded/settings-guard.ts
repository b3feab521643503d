import type { Readable } from 'node:stream';
import type { ChdbConnection, Connection } from 'chdb/connection';

/**
 * chDB turns per-call `clickhouse_settings` into `SET …` statements on its one session, so they
 * stick to every later call (a leaked `insert_deduplication_token` silently dropped the next
 * insert). This connection refuses them: per-query settings belong in the SQL `SETTINGS` clause.
 * `default_format` is the one exception, because chDB maps it to an output option, not a `SET`.
 */
export class PerCallSettingsRefused extends Error {
  constructor(readonly names: string[]) {
    super(
      `per-call clickhouse_settings (${names.join(', ')}) are refused on chDB: they would stick to the ` +
        'session and leak into later queries. Put them in the SQL SETTINGS clause instead.',
    );
    this.name = 'PerCallSettingsRefused';
  }
}

const HARMLESS = new Set(['default_format']);

function refuseSettings(params: { clickhouse_settings?: Record<string, unknown> }): void {
  const names = Object.entries(params.clickhouse_settings ?? {})
    .filter(([name, value]) => value !== undefined && !HARMLESS.has(name))
    .map(([name]) => name);
  if (names.length > 0) throw new PerCallSettingsRefused(names);
}

export class SettingsGuardedConnection implements Connection<Readable> {
  constructor(readonly inner: ChdbConnection) {}

  query(params: Parameters<Connection<Readable>['query']>[0]) {
    refuseSettings(params);
    return this.inner.query(params);
  }
  exec(params: Parameters<Connection<Readable>['exec']>[0]) {
    refuseSettings(params);
    return this.inner.exec(params);
  }
  command(params: Parameters<Connection<Readable>['command']>[0]) {
    refuseSettings(params);
    return this.inner.command(params);
  }
  insert(params: Parameters<Connection<Readable>['insert']>[0]) {
    refuseSettings(params);
    return this.inner.insert(params);
  }
  ping(params: Parameters<Connection<Readable>['ping']>[0]) {
    return this.inner.ping(params);
  }
  close() {
    return this.inner.close();
  }
}
