import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { PipelineMetrics } from '../src/run/metrics.ts';
import { IMAGES, KAFKA_BROKER_PROPERTIES, kafkaProperty } from './compose-images.ts';

/**
 * docker-compose.yml read as its images document themselves (there is no Docker engine here; CI
 * also runs `docker-compose config -q`): every mount and variable is one its image names, the data
 * of every stateful service is on a volume, services wait for what they need, Grafana reads with a
 * read-only user, and the alert rules query metrics the processes export.
 */

const ROOT = resolve(import.meta.dirname, '..');
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Service {
  image: string;
  command?: string[];
  environment?: Record<string, string | number>;
  volumes?: string[];
  ports?: string[];
  restart?: string;
  entrypoint?: string[];
  secrets?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition: string }>;
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const mounts = (service: Service) =>
  (service.volumes ?? []).map((entry) => {
    const [source, target, mode] = entry.split(':');
    return { source: source!, target: target!, readOnly: mode === 'ro', named: !source!.startsWith('.') };
  });
const imageOf = (service: Service) =>
  service.image === 'tapehouse:local' ? service.image : service.image.replace(/:[^:/]+$/, '');
const tagOf = (service: Service) => service.image.slice(service.image.lastIndexOf(':') + 1);
const envOf = (service: Service) => service.environment ?? {};

/**
 * Variables the configuration files a service mounts read from its environment: ClickHouse's
 * from_env substitution, Grafana provisioning's $NAME expansion (a mounted folder: its files).
 */
function variablesRead(service: Service): string[] {
  const files = mounts(service)
    .filter((m) => !m.named)
    .flatMap((m) =>
      statSync(join(ROOT, m.source)).isDirectory()
        ? readdirSync(join(ROOT, m.source)).map((f) => join(m.source, f))
        : [m.source],
    )
    .filter((file) => /\.(xml|ya?ml|sh)$/.test(file));
  return files.flatMap((file) => {
    const text = read(file);
    return [...text.matchAll(/from_env="([A-Z0-9_]+)"/g), ...text.matchAll(/\$\{?([A-Z][A-Z0-9_]+)\}?/g)].map(
      (m) => m[1]!,
    );
  });
}

describe('docker-compose.yml against what its images document', () => {
  it('uses only images it has the documentation of, each pinned to an exact version (the Dockerfile too)', () => {
    for (const [name, service] of Object.entries(services)) {
      expect(IMAGES[imageOf(service)], `${name}: ${service.image}`).toBeDefined();
      // major.minor.patch at least: a branch tag (26.7, 16, 20-bookworm) moves under a restart.
      // (PostgreSQL's releases are major.minor.)
      const exact = imageOf(service) === 'postgres' ? /^\d+\.\d+$/ : /^v?\d+\.\d+\.\d+/;
      if (service.image !== 'tapehouse:local') expect(tagOf(service), name).toMatch(exact);
    }
    const base = /^FROM (\S+)/m.exec(read('Dockerfile'))![1]!;
    expect(base).toMatch(/^node:\d+\.\d+\.\d+-/);
  });

  it('mounts only the paths each image documents, or folders of our own, from files that exist', () => {
    for (const [name, service] of Object.entries(services)) {
      const facts = IMAGES[imageOf(service)]!;
      for (const mount of mounts(service)) {
        const documented = Object.keys(facts.volumes).some(
          (path) => mount.target === path || mount.target.startsWith(`${path}/`),
        );
        const own = (facts.ownPaths ?? []).some((prefix) => mount.target.startsWith(prefix));
        expect(documented || own, `${name} mounts ${mount.target}, which ${facts.source} does not name`).toBe(true);
        if (mount.named) expect(compose.volumes, `${name}: volume ${mount.source}`).toHaveProperty(mount.source);
        else expect(existsSync(join(ROOT, mount.source)), `${name}: ${mount.source}`).toBe(true);
      }
    }
  });

  it('sets only variables each image documents (or its mounted files read)', () => {
    for (const [name, service] of Object.entries(services)) {
      const facts = IMAGES[imageOf(service)]!;
      const readByFiles = variablesRead(service);
      for (const variable of Object.keys(envOf(service))) {
        const documented = facts.env.some((entry) =>
          typeof entry === 'string' ? entry === variable : entry.test(variable),
        );
        expect(documented || readByFiles.includes(variable), `${name}: ${variable} (${facts.source})`).toBe(true);
      }
    }
  });

  it('names only real broker properties in KAFKA_* variables, and keeps the log directory on the volume', () => {
    const kafka = services.kafka!;
    for (const variable of Object.keys(envOf(kafka)).filter((v) => v.startsWith('KAFKA_'))) {
      expect(KAFKA_BROKER_PROPERTIES.has(kafkaProperty(variable)), variable).toBe(true);
    }
    expect(mounts(kafka).map((m) => m.target)).toContain(envOf(kafka).KAFKA_LOG_DIRS);
  });

  it("sets every tapehouse variable the README documents, and capture's state file on its volume", () => {
    const documented = new Set(read('README.md').match(/TAPEHOUSE_[A-Z0-9_]+/g));
    const dockerfile = read('Dockerfile');
    for (const [name, service] of Object.entries(services).filter(([, s]) => s.image === 'tapehouse:local')) {
      for (const variable of Object.keys(envOf(service)))
        expect(documented.has(variable), `${name}: ${variable} is not in README.md`).toBe(true);
    }
    const coverageFile = /ENV TAPEHOUSE_COVERAGE_FILE=(\S+)/.exec(dockerfile)![1]!;
    const stateDir = mounts(services.capture!).find((m) => coverageFile.startsWith(`${m.target}/`));
    expect(stateDir?.named).toBe(true);
    expect(dockerfile).toContain(`chown node:node ${stateDir!.target}`);
  });

  it('keeps the data of every stateful service on a named volume at the documented path', () => {
    const data: Record<string, string> = {
      kafka: '/var/lib/kafka/data',
      clickhouse: '/var/lib/clickhouse',
      postgresql: '/var/lib/postgresql/data',
      prometheus: '/prometheus',
      grafana: '/var/lib/grafana',
      capture: '/var/lib/tapehouse',
    };
    for (const [name, path] of Object.entries(data)) {
      expect(mounts(services[name]!).find((m) => m.target === path)?.named, `${name}: ${path}`).toBe(true);
    }
    // postgres 18 moved PGDATA; the pinned major must be one whose PGDATA is the path mounted.
    expect(Number(tagOf(services.postgresql!))).toBeLessThan(18);
  });
});

describe('docker-compose.yml start-up order', () => {
  it('waits for a healthy service only where that service has a healthcheck, and for jobs to complete', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [dependency, { condition }] of Object.entries(service.depends_on ?? {})) {
        const target = services[dependency]!;
        expect(target, `${name} depends on ${dependency}`).toBeDefined();
        if (condition === 'service_healthy')
          expect(
            target.healthcheck?.test && !target.healthcheck.disable,
            `${dependency} has no healthcheck (${name})`,
          ).toBeTruthy();
        if (condition === 'service_completed_successfully')
          expect(target.restart, `${dependency} is a job (${name})`).toBe('no');
        expect(['service_healthy', 'service_completed_successfully'], `${name} → ${dependency}`).toContain(condition);
      }
    }
  });

  it('sets Temporal up in order: schema job, server, namespace job, then the worker and the schedules', () => {
    expect(services['temporal-schema']!.depends_on).toEqual({ postgresql: { condition: 'service_healthy' } });
    expect(services.temporal!.depends_on).toEqual({
      'temporal-schema': { condition: 'service_completed_successfully' },
    });
    expect(services['temporal-namespace']!.depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
    for (const part of ['worker', 'schedules'])
      expect(services[part]!.depends_on!['temporal-namespace']).toEqual({
        condition: 'service_completed_successfully',
      });
    expect(tagOf(services['temporal-schema']!)).toBe(tagOf(services.temporal!));
    expect(services.schedules!.command).toEqual(['schedules', 'apply']);
    // The server refuses to start when its dynamic config file is missing.
    const dynamic = envOf(services.temporal!).DYNAMIC_CONFIG_FILE_PATH as string;
    const mount = mounts(services.temporal!).find((m) => dynamic.startsWith(`${m.target}/`))!;
    expect(existsSync(join(ROOT, mount.source, dynamic.slice(mount.target.length)))).toBe(true);
  });

  it('publishes ports on 127.0.0.1 only', () => {
    for (const [name, service] of Object.entries(services))
      for (const port of service.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:/);
  });
});

describe('ClickHouse version, Grafana and Prometheus', () => {
  it('runs the ClickHouse server at the major.minor of the engine chDB embeds', () => {
    const chdb = JSON.parse(read('node_modules/chdb/package.json')) as { optionalDependencies: Record<string, string> };
    const engine = /^(\d+\.\d+)\./.exec(Object.values(chdb.optionalDependencies)[0]!)![1];
    expect(tagOf(services.clickhouse!).startsWith(`${engine}.`)).toBe(true);
  });

  it('installs the ClickHouse plugin at a pinned version before Grafana starts, and provisions per subfolder', () => {
    const env = envOf(services.grafana!);
    expect(env.GF_PLUGINS_PREINSTALL_SYNC).toMatch(/^grafana-clickhouse-datasource@\d+\.\d+\.\d+$/);
    expect(env).not.toHaveProperty('GF_PLUGINS_PREINSTALL');
    const targets = mounts(services.grafana!).map((m) => m.target);
    expect(targets).not.toContain('/etc/grafana/provisioning');
    for (const kind of ['datasources', 'dashboards', 'alerting'])
      expect(targets).toContain(`/etc/grafana/provisioning/${kind}`);
  });

  it('gives Grafana a read-only ClickHouse user: readonly=2, SELECT on tapehouse only, its own password', () => {
    const xml = read('infra/clickhouse/grafana-reader.xml');
    const datasource = parse(read('dashboards/provisioning/datasources/clickhouse.yaml')) as {
      datasources: Array<{ jsonData: { username: string }; secureJsonData: { password: string } }>;
    };
    const { username } = datasource.datasources[0]!.jsonData;
    const user = new RegExp(`<${username}>([\\s\\S]*?)</${username}>`).exec(xml)![1]!;
    const profile = /<profile>(\w+)<\/profile>/.exec(user)![1]!;
    expect(new RegExp(`<${profile}>\\s*<readonly>2</readonly>`).test(xml)).toBe(true);
    expect([...user.matchAll(/<query>([^<]+)<\/query>/g)].map((m) => m[1])).toEqual(['GRANT SELECT ON tapehouse.*']);
    expect(username).not.toBe(envOf(services.clickhouse!).CLICKHOUSE_USER);
    // The password: from_env in the XML, set by ClickHouse's entrypoint wrapper from a secret
    // file that Grafana's data source reads with $__file{}.
    const variable = /from_env="(\w+)"/.exec(user)![1]!;
    const file = /^\$__file\{\/run\/secrets\/(\w+)\}$/.exec(datasource.datasources[0]!.secureJsonData.password)![1]!;
    expect(services.clickhouse!.entrypoint!.join(' ')).toContain(`${variable}="$$(cat /run/secrets/${file})"`);
    expect(services.clickhouse!.secrets).toContain(file);
    expect(services.grafana!.secrets).toContain(file);
  });

  it('scrapes every process that serves /metrics, on the port it serves', () => {
    const config = parse(read('infra/prometheus/prometheus.yml')) as {
      scrape_configs: Array<{ job_name: string; dns_sd_configs?: Array<{ names: string[]; port: number }> }>;
    };
    const job = config.scrape_configs.find((c) => c.job_name === 'tapehouse')!.dns_sd_configs![0]!;
    const serving = Object.entries(services).filter(([, s]) => s.command?.includes('--metrics-port'));
    expect(job.names.sort()).toEqual(serving.map(([name]) => name).sort());
    for (const [, service] of serving)
      expect(service.command![service.command!.indexOf('--metrics-port') + 1]).toBe(String(job.port));
  });
});

describe('Grafana alert rules', () => {
  const rules = (
    parse(read('dashboards/provisioning/alerting/tapehouse.yaml')) as {
      groups: Array<{
        rules: Array<{
          uid: string;
          title: string;
          condition: string;
          data: Array<{ refId: string; datasourceUid: string; model: { expr?: string } }>;
          annotations: { runbook: string };
        }>;
      }>;
    }
  ).groups.flatMap((g) => g.rules);
  const uids = new Set(
    ['clickhouse.yaml', 'prometheus.yaml'].flatMap((file) =>
      (
        parse(read(`dashboards/provisioning/datasources/${file}`)) as { datasources: Array<{ uid: string }> }
      ).datasources.map((d) => d.uid),
    ),
  );

  it('cover open gaps, freshness p99, bus lag, dead letters and 429s', () => {
    const exprs = rules.flatMap((r) => r.data.map((d) => d.model.expr ?? ''));
    for (const metric of [
      'tapehouse_open_gaps',
      'tapehouse_freshness_seconds_bucket',
      'tapehouse_bus_lag_records',
      'tapehouse_dead_letters_total',
      'tapehouse_http_429_total',
    ]) {
      expect(
        exprs.some((expr) => expr.includes(metric)),
        metric,
      ).toBe(true);
    }
    expect(exprs.some((expr) => expr.startsWith('histogram_quantile(0.99,'))).toBe(true);
  });

  it('query provisioned data sources, for metrics the processes export, with a runbook on the operations page', async () => {
    const exported = await new PipelineMetrics().text();
    const operations = read('docs/operations.md');
    const anchors = new Set(
      [...operations.matchAll(/^#+ (.+)$/gm)].map((m) =>
        m[1]!
          .toLowerCase()
          .replace(/[^\w\- ]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    for (const rule of rules) {
      expect(
        rule.data.map((d) => d.refId),
        rule.uid,
      ).toContain(rule.condition);
      for (const query of rule.data) {
        expect(
          query.datasourceUid === '__expr__' || uids.has(query.datasourceUid),
          `${rule.uid}: ${query.datasourceUid}`,
        ).toBe(true);
        for (const [metric] of (query.model.expr ?? '').matchAll(/\b(tapehouse_[a-z0-9_]+)/g)) {
          const family = metric.replace(/_(bucket|count|sum)$/, '');
          expect(exported, `${rule.uid}: ${metric}`).toMatch(new RegExp(`^# TYPE ${family} `, 'm'));
        }
      }
      const [page, anchor] = rule.annotations.runbook.split('#');
      expect(page).toBe('docs/operations.md');
      expect(anchors.has(anchor!), `${rule.uid}: #${anchor}`).toBe(true);
    }
    expect(new Set(rules.map((r) => r.uid)).size).toBe(rules.length);
  });
});

describe('docker-compose.yml without traps', () => {
  const tapehouseParts = Object.entries(services).filter(([, s]) => s.image === 'tapehouse:local');
  const required = [...read('docker-compose.yml').matchAll(/\$\{([A-Z0-9_]+):\?/g)].map((m) => m[1]!);
  const envFile = (path: string) =>
    new Map(
      read(path)
        .split('\n')
        .filter((line) => /^[A-Z0-9_]+=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );

  it("leaves every required value of .env.example empty (compose refuses it) and fills it in CI's test env", () => {
    expect(required.length).toBeGreaterThan(0);
    const example = envFile('.env.example');
    const filled = envFile('test/fixtures/compose.env');
    for (const name of new Set(required)) {
      expect(example.get(name), `.env.example: ${name}`).toBe('');
      expect(filled.get(name), `test/fixtures/compose.env: ${name}`).toMatch(/.+/);
    }
    for (const [name, value] of example) expect(value, name).not.toMatch(/change-me/);
  });

  it('passes no password or token as an environment value: secret files, each only where it is used', () => {
    for (const [name, service] of Object.entries(services)) {
      for (const [variable, value] of Object.entries(envOf(service))) {
        if (/(PASSWORD|PWD|TOKEN)$/.test(variable))
          throw new Error(`${name}: ${variable} is a secret in the environment`);
        if (/_FILE$/.test(variable) && String(value).startsWith('/run/secrets/'))
          expect(service.secrets, `${name}: ${variable}`).toContain(String(value).slice('/run/secrets/'.length));
      }
    }
    const secretsOf = (name: string) => services[name]!.secrets ?? [];
    expect(secretsOf('capture')).toEqual(['venue_token']);
    expect(secretsOf('load')).toEqual(['clickhouse_password']);
    expect(secretsOf('migrate')).toEqual(['clickhouse_password']);
    expect(secretsOf('schedules')).toEqual([]);
    expect(envOf(services.capture!)).not.toHaveProperty('TAPEHOUSE_CLICKHOUSE_URL');
    // Every secret the stack declares is checked by the secrets-check job, which all wait for.
    const declared = Object.keys((parse(read('docker-compose.yml')) as { secrets: object }).secrets);
    expect([...secretsOf('secrets-check')].sort()).toEqual(declared.sort());
    for (const [name, service] of Object.entries(services)) {
      if (name === 'secrets-check' || (service.secrets ?? []).length === 0) continue;
      const waits = (n: string): boolean =>
        Object.keys(services[n]!.depends_on ?? {}).some((d) => d === 'secrets-check' || waits(d));
      expect(waits(name), `${name} waits for secrets-check`).toBe(true);
    }
  });

  it("refuses a placeholder, empty, missing or unreadable secret in the image's entrypoint (exit 2), and runs tapehouse otherwise", () => {
    const dir = mkdtempSync(join(tmpdir(), 'tapehouse-secrets-'));
    const entrypoint = (token: string) =>
      spawnSync('sh', [join(ROOT, 'scripts/docker-entrypoint.sh'), '--version'], {
        env: { PATH: process.env.PATH, TAPEHOUSE_TOKEN_FILE: token },
        encoding: 'utf8',
      });
    try {
      writeFileSync(join(dir, 'placeholder'), 'change-me\n');
      writeFileSync(join(dir, 'empty'), '');
      writeFileSync(join(dir, 'real'), 'a-real-token\n');
      const placeholder = entrypoint(join(dir, 'placeholder'));
      expect(placeholder.status).toBe(2);
      expect(placeholder.stderr).toContain('still holds the example placeholder');
      expect(entrypoint(join(dir, 'empty')).stderr).toContain('is empty');
      expect(entrypoint(join(dir, 'missing')).stderr).toContain('does not exist');
      const real = entrypoint(join(dir, 'real'));
      expect(real.status, real.stderr).toBe(0);
      expect(real.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const dockerfile = read('Dockerfile');
    expect(dockerfile).toContain('ENTRYPOINT ["/app/scripts/docker-entrypoint.sh"]');
    expect(dockerfile).toContain('COPY scripts/docker-entrypoint.sh ./scripts/docker-entrypoint.sh');
    expect(read('docs/operations.md')).toMatch(/^## Secrets$/m);
  });

  it("gives the writer no access management, retries migrate, and sets the topics' retention through tapehouse", () => {
    expect(envOf(services.clickhouse!)).not.toHaveProperty('CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT');
    expect(services.migrate!.command!.slice(0, 2)).toEqual(['migrate', '--retry-for']);
    // Kafka's own log.retention.* does not reach topics tapehouse creates with their retention.ms.
    expect(Object.keys(envOf(services.kafka!)).filter((v) => v.includes('RETENTION'))).toEqual([]);
    for (const [name, service] of tapehouseParts.filter(([n]) => n !== 'secrets-check'))
      expect(String(envOf(service).TAPEHOUSE_BUS_RETENTION), name).toMatch(/^\$\{TAPEHOUSE_BUS_RETENTION:\?/);
    expect(read('docs/operations.md')).not.toContain('KAFKA_RETENTION_HOURS');
    expect(read('.env.example')).not.toContain('KAFKA_RETENTION_HOURS');
  });
});

describe('Prometheus alert rules', () => {
  const rules = (
    parse(read('infra/prometheus/rules/tapehouse.yml')) as {
      groups: Array<{
        rules: Array<{ alert?: string; record?: string; expr: string; annotations?: { runbook: string } }>;
      }>;
    }
  ).groups.flatMap((g) => g.rules);

  it('are loaded by prometheus.yml from the folder compose mounts, each alert with a runbook section', async () => {
    const config = parse(read('infra/prometheus/prometheus.yml')) as { rule_files: string[] };
    const mount = mounts(services.prometheus!).find((m) => m.source === './infra/prometheus/rules')!;
    expect(config.rule_files).toEqual([`${mount.target}/tapehouse.yml`]);
    const operations = read('docs/operations.md');
    const anchors = new Set(
      [...operations.matchAll(/^#+ (.+)$/gm)].map((m) =>
        m[1]!
          .toLowerCase()
          .replace(/[^\w\- ]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    const exported = [await new PipelineMetrics().text(), await new PipelineMetrics(['sync', 'jobs']).text()].join(
      '\n',
    );
    for (const rule of rules.filter((r) => r.alert)) {
      const [page, anchor] = rule.annotations!.runbook.split('#');
      expect(page).toBe('docs/operations.md');
      expect(anchors.has(anchor!), `${rule.alert}: #${anchor}`).toBe(true);
      for (const [metric] of rule.expr.matchAll(/\b(tapehouse_[a-z0-9_]+)/g)) {
        const family = metric.replace(/_(bucket|count|sum)$/, '');
        expect(exported, `${rule.alert}: ${metric}`).toMatch(new RegExp(`^# TYPE ${family} `, 'm'));
      }
    }
    expect(rules.map((r) => r.alert).filter(Boolean)).toEqual([
      'TapehouseProcessDown',
      'TapehouseLoaderFailing',
      'TapehouseVenueUnreachable',
      'TapehouseVenue429s',
      'TapehouseGapsOpening',
      'TapehouseFreshnessOverAim',
    ]);
    // One expected-instance count per part Prometheus scrapes.
    const scraped = (
      parse(read('infra/prometheus/prometheus.yml')) as {
        scrape_configs: Array<{ job_name: string; dns_sd_configs?: Array<{ names: string[] }> }>;
      }
    ).scrape_configs.find((c) => c.job_name === 'tapehouse')!.dns_sd_configs![0]!.names;
    const expected = (
      parse(read('infra/prometheus/rules/tapehouse.yml')) as {
        groups: Array<{ rules: Array<{ record?: string; labels?: { part: string } }> }>;
      }
    ).groups
      .flatMap((g) => g.rules)
      .filter((r) => r.record === 'tapehouse:expected_instances')
      .map((r) => r.labels!.part);
    expect(expected.sort()).toEqual([...scraped].sort());
  });
});
