/**
 * The layout, enforced (`npm run lint` runs `npm run lint:layers`, which is this file).
 *
 * Parts are the folders of src/ (DESIGN.md, "Parts"), plus workflows/. Each may import only the
 * parts below it, so that nothing climbs back up and no two parts depend on each other:
 *
 *   util                                   (logging, secrets, time, small helpers: imports no part)
 *   records                                (the record envelope, the payload of every kind) → util (+ api types)
 *   api, warehouse, simulator              (the venue's client, ClickHouse, the venue)     → util
 *   bus                                    (the record envelope and its two transports)    → util, records
 *   streams                                (WebSocket and SSE connections)                 → util, api
 *   capture                                (frames into records)   → util, records, api, streams, bus (+ warehouse
 * types)
 *   sync                                   (REST into records)     → util, records, api, bus, warehouse
 *   load                                   (records into tables)   → util, records, bus, warehouse
 *   reconcile, dashboards                  (reading the warehouse) → util, warehouse
 *   workflows                              (Temporal)              → util, api, bus, sync, warehouse
 *   run                                    (wires the parts into the main job: may import every part but cli)
 *   cli                                    (the commands: may import everything)
 *
 * The rules below say what each part may NOT import (the complement of the line above), so a new
 * part or folder fails loudly until it is placed. The reasons are in docs/layout.md.
 */

const PARTS = [
  'util',
  'records',
  'api',
  'warehouse',
  'simulator',
  'bus',
  'streams',
  'capture',
  'sync',
  'load',
  'reconcile',
  'dashboards',
  'run',
  'cli',
];

/** `src/<part>/` for each part named. */
const under = (...parts) => `^src/(${parts.join('|')})/`;
/** Every part of src/ but those named (and the importer itself, which dependency-cruiser never flags). */
const allBut = (...allowed) => under(...PARTS.filter((p) => !allowed.includes(p)));

/** `part` imports only `allowed` (besides itself). */
function layer(part, allowed, why) {
  return {
    name: `${part}-imports-only-${allowed.length ? allowed.join('-') : 'itself'}`,
    comment: why,
    severity: 'error',
    from: { path: under(part) },
    to: { path: [allBut(part, ...allowed), '^workflows/'] },
  };
}

/** `src/simulator/<folder>` does not import the simulator's folders named. */
function simLayer(folder, forbidden, why) {
  return {
    name: `simulator-${folder}-one-way`,
    comment: why,
    severity: 'error',
    from: { path: `^src/simulator/${folder}/` },
    to: { path: `^src/simulator/(${forbidden.join('|')})/` },
  };
}

/**
 * Files of `src/<folder>/` are imported from outside it only through its door, `index.ts`, or
 * its `defaults.ts` (constants only, importing nothing: `--help` reads them without loading the part).
 */
function door(folder, why) {
  return {
    name: `${folder.replace(/\//g, '-')}-through-its-door`,
    comment: why,
    severity: 'error',
    from: { pathNot: `^src/${folder}/` },
    to: { path: `^src/${folder}/`, pathNot: `^src/${folder}/(index|defaults)\\.ts$` },
  };
}

/** The npm package `pkg` is imported only from paths matching `where`. */
function onlyIn(pkg, where, why) {
  return {
    name: `${pkg.replace(/\W/g, '')}-only-in-${where.replace(/\W/g, '')}`,
    comment: why,
    severity: 'error',
    from: { pathNot: where },
    to: { path: `node_modules/${pkg}/` },
  };
}

module.exports = {
  forbidden: [
    layer('util', [], 'util is the floor: every part may use it, so it uses none.'),
    {
      name: 'records-imports-only-util-and-api-types',
      comment:
        "the record contract is shared by producers and loaders: it depends on neither; a sync kind's payload is the venue's item as the api types it.",
      severity: 'error',
      from: { path: under('records') },
      to: { path: [allBut('records', 'util', 'api'), '^workflows/'] },
    },
    {
      name: 'records-name-api-types-only',
      comment: 'the contract may name what the api parses, never run api code.',
      severity: 'error',
      from: { path: under('records') },
      to: { path: under('api'), dependencyTypesNot: ['type-only'] },
    },
    layer('api', ['util'], "the venue's typed client knows nothing of what we do with its answers."),
    layer('warehouse', ['util'], 'opening ClickHouse and running migrations serves every part, and depends on none.'),
    layer(
      'simulator',
      ['util'],
      'the simulator is the venue: it must not lean on our own reading of the interface (conformance over self-consistency).',
    ),
    layer('bus', ['util', 'records'], 'the bus carries records; it does not know who makes or stores them.'),
    layer('streams', ['util', 'api'], 'connections reuse the api errors and recovery, nothing of capture.'),
    {
      name: 'capture-imports-only-util-records-api-streams-bus',
      comment: 'capture turns frames into records; the warehouse only as types (`tapehouse book` replays from it).',
      severity: 'error',
      from: { path: under('capture') },
      to: { path: [allBut('capture', 'util', 'records', 'api', 'streams', 'bus', 'warehouse'), '^workflows/'] },
    },
    {
      name: 'capture-reads-no-warehouse-code',
      comment: 'capture may name a warehouse type, never run warehouse code.',
      severity: 'error',
      from: { path: under('capture') },
      to: { path: under('warehouse'), dependencyTypesNot: ['type-only'] },
    },
    layer(
      'sync',
      ['util', 'records', 'api', 'bus', 'warehouse'],
      'the sync jobs page REST into records (checkpoints may live in the warehouse).',
    ),
    layer(
      'load',
      ['util', 'records', 'bus', 'warehouse'],
      'the loaders read records as the contract says, never through a producer (load does not import capture).',
    ),
    layer('reconcile', ['util', 'warehouse'], 'the reconciler reads the warehouse only.'),
    layer('dashboards', ['util', 'warehouse'], 'the dashboards read the warehouse only.'),
    layer(
      'run',
      [
        'util',
        'records',
        'api',
        'warehouse',
        'simulator',
        'bus',
        'streams',
        'capture',
        'sync',
        'load',
        'reconcile',
        'dashboards',
      ],
      'run wires the parts; only the commands sit above it.',
    ),
    {
      name: 'workflows-import-only-util-api-bus-sync-warehouse',
      comment: "Temporal's workflows and worker run the sync jobs: no capture, load, run, cli or simulator.",
      severity: 'error',
      from: { path: '^workflows/' },
      to: { path: allBut('util', 'records', 'api', 'bus', 'sync', 'warehouse') },
    },
    {
      name: 'no-tests-or-benches-in-code',
      comment: 'what ships never imports test/ or bench/.',
      severity: 'error',
      from: { path: '^(src|workflows)/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'no-circular',
      comment: 'no file cycles.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    // Inside the simulator, its folders depend one way (docs/layout.md, "The simulator's folders").
    simLayer(
      'catalogue',
      [
        'accounts',
        'engine',
        'lifecycle',
        'traders',
        'wire',
        'access',
        'streams',
        'faults',
        'http',
        'ground-truth',
        'state',
        'process',
      ],
      'the catalogue is what is listed; it knows no account or order.',
    ),
    simLayer(
      'accounts',
      [
        'engine',
        'lifecycle',
        'traders',
        'wire',
        'access',
        'streams',
        'faults',
        'http',
        'ground-truth',
        'state',
        'process',
      ],
      'accounts hold balances and positions; the exchange moves them, never the other way.',
    ),
    simLayer(
      'engine',
      ['lifecycle', 'traders', 'wire', 'access', 'streams', 'faults', 'http', 'ground-truth', 'state', 'process'],
      'the exchange matches and settles; who trades and how it is shown are above it.',
    ),
    simLayer(
      'wire',
      ['lifecycle', 'traders', 'access', 'streams', 'faults', 'http', 'ground-truth', 'state', 'process'],
      'the wire forms REST and streams share: they use it, it uses neither.',
    ),
    simLayer(
      'access',
      ['engine', 'lifecycle', 'traders', 'wire', 'streams', 'faults', 'http', 'ground-truth', 'state', 'process'],
      'tokens and rate limits, shared by REST and streams.',
    ),
    simLayer(
      'streams',
      ['http', 'faults', 'ground-truth', 'state', 'process'],
      'the streams do not know the REST server, which hands them upgrades.',
    ),
    simLayer(
      'faults',
      ['http', 'ground-truth', 'state', 'process'],
      'faults act on streams and are read by the REST server: one way.',
    ),
    {
      name: 'environment-only-through-the-settings-table',
      comment:
        "the settings table (src/cli/settings.ts) reads the environment and passes values down; chDB's allocator sets its variable before libchdb loads. Nothing else touches it (docs/layout.md).",
      severity: 'error',
      from: { pathNot: '^src/(cli/settings|warehouse/embedded/chdb-allocator)\\.ts$' },
      to: { path: '^src/util/environment\\.ts$' },
    },
    // The big parts' folders (docs/layout.md, "Folders inside a part"): each is entered through its index.ts.
    door('capture', 'the main job and the commands start capture and read its figures; its folders are its own.'),
    door('capture/frames', "every stream's frames read into records: the envelope, micro values, record builders."),
    door('capture/books', "each token's book: snapshots into level changes, re-seeds, a book at an instant."),
    door('capture/coverage', 'what was covered, and the gaps: connections, marks kept across restarts.'),
    door('capture/market', 'the market stream: catalogue, connections, trades, quotes, status.'),
    door('capture/account', 'the account socket and the portfolio stream.'),
    door('capture/prices', 'the two price feeds.'),
    door('warehouse/embedded', 'chDB on a data directory: the library, its sessions, the directory and its lock.'),
    door('warehouse/endpoint', 'the query endpoint: ClickHouse HTTP over chDB, read-only.'),
    door('warehouse/insert', "the loaders' inserts: Native and TabSeparated encoders, the transports."),
    door('warehouse/schema', 'migrations, the baseline, storage settings.'),
    door('bus/kafka', 'the Kafka bus (kafkajs).'),
    door('bus/embedded', 'the in-process bus.'),
    door(
      'records',
      "one import path for the record contract: the envelope, the kinds' declarations and what is derived from them.",
    ),
    onlyIn('kafkajs', '^src/bus/kafka/', 'kafkajs is unmaintained: it stays behind the Bus interface (DEVELOPERS.md).'),
    onlyIn(
      '(chdb|lz4-wasm-nodejs)',
      '^src/warehouse/',
      'chDB is one of two warehouses: everything else goes through the warehouse part.',
    ),
    {
      name: 'libchdb-loaded-in-one-place',
      comment:
        'libchdb is loaded on first use by chdb-library.ts alone (its allocator settings first; no command pays for it unasked).',
      severity: 'error',
      from: { pathNot: '^src/warehouse/embedded/chdb-library\\.ts$' },
      to: { path: 'node_modules/chdb/', dependencyTypesNot: ['type-only'] },
    },
    onlyIn(
      '@temporalio',
      '^(workflows|src/cli)/',
      'the sync jobs are plain functions; Temporal is one of their two schedulers.',
    ),
    onlyIn('commander', '^src/cli/', 'the command line is one part.'),
    onlyIn('pino', '^src/util/log\\.ts$', 'logs go through createLogger() (redaction of the token).'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports count: a type is a dependency on the part that owns it.
    tsPreCompilationDeps: true,
  },
};
