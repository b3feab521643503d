/** Rows the pipeline stored twice: the fault suite's check that nothing was doubled. */

/** Runs one query and returns its rows (the fault suite's runner, or a test's client). */
export type Query = <T>(sql: string) => Promise<T[]>;

export interface StoredTwice {
  /** Per table with a bus identity: rows beyond the first copy of each. */
  duplicateRows: Record<string, number>;
  /** Up to three rows of each table with rows stored twice: their bus identity, copies, and the parts holding them. */
  duplicateExamples: string[];
}

/** A stored row's bus identity: the same position and receive time (epochs of the embedded bus reuse offsets). */
const ROW_IDENTITY = '_topic, _partition, _offset, _index, _received_at';

/** Every table and view of `tapehouse` whose rows carry a bus identity, checked for rows stored twice. */
export async function rowsStoredTwice(query: Query): Promise<StoredTwice> {
  const tables = (
    await query<{ table: string }>(
      "SELECT table FROM system.columns WHERE database = 'tapehouse' AND name IN ('_topic', '_partition', '_offset', '_index', '_received_at') GROUP BY table HAVING count() = 5 ORDER BY table",
    )
  ).map((t) => t.table);
  const duplicateRows: Record<string, number> = {};
  for (const table of tables) {
    const [r] = await query<{ d: string }>(
      `SELECT toString(count() - uniqExact(${ROW_IDENTITY})) AS d FROM tapehouse.${table}`,
    );
    duplicateRows[table] = Number(r!.d);
  }
  const duplicateExamples: string[] = [];
  for (const table of tables.filter((t) => duplicateRows[t]! > 0))
    duplicateExamples.push(...(await duplicatesIn(query, table)));
  return { duplicateRows, duplicateExamples };
}

/** Which rows of `table` are stored twice, and in which parts (views have none: their sources are named). */
async function duplicatesIn(query: Query, table: string): Promise<string[]> {
  const sql = (parts: boolean) =>
    `SELECT _topic, _partition, _offset, _index, toString(_received_at) AS received, count() AS copies${parts ? ', groupArray(_part) AS parts' : ''}
     FROM tapehouse.${table} GROUP BY ${ROW_IDENTITY} HAVING copies > 1 ORDER BY _topic, _partition, _offset LIMIT 3`;
  type Duplicate = {
    _topic: string;
    _partition: number;
    _offset: string;
    _index: number;
    received: string;
    copies: string;
    parts?: string[];
  };
  const found = await query<Duplicate>(sql(true)).catch(() => query<Duplicate>(sql(false)));
  return found.map(
    (d) =>
      `${table}: ${d._topic}[${d._partition}]@${d._offset}#${d._index} received ${d.received}, ${d.copies} copies${d.parts ? ` in ${d.parts.join(', ')}` : ''}`,
  );
}
