/**
 * What each image of docker-compose.yml documents: the paths meant to be mounted and the variables
 * it reads, as its own documentation, entrypoint or source states them (read for issue 24, there
 * being no Docker engine here). test/compose.test.ts checks the compose file against this list;
 * a new variable or mount goes here first, with where the image says so.
 */

export interface ImageFacts {
  /** Where these facts are written. */
  source: string;
  /** Paths the image documents for mounting (data, configuration), each with what it holds. */
  volumes: Readonly<Record<string, string>>;
  /** Folders of ours that shadow nothing in the image (our scripts and files), as prefixes. */
  ownPaths?: readonly string[];
  /** Variables the image reads: names, or patterns of a documented family. */
  env: ReadonlyArray<string | RegExp>;
}

/**
 * Broker properties set through KAFKA_* variables (apache/kafka's docker/examples/README.md: a
 * property's name is the variable without KAFKA_, lower-cased, `_` for `.`, `__` for `_`, `___`
 * for `-`). Names from Kafka's broker configuration reference.
 */
export const KAFKA_BROKER_PROPERTIES: ReadonlySet<string> = new Set([
  'node.id',
  'process.roles',
  'listeners',
  'advertised.listeners',
  'controller.listener.names',
  'listener.security.protocol.map',
  'controller.quorum.voters',
  'controller.quorum.bootstrap.servers',
  'inter.broker.listener.name',
  'offsets.topic.replication.factor',
  'transaction.state.log.replication.factor',
  'transaction.state.log.min.isr',
  'auto.create.topics.enable',
  'log.dirs',
  'log.retention.hours',
  'log.retention.bytes',
  'num.partitions',
  'default.replication.factor',
  'min.insync.replicas',
  'group.initial.rebalance.delay.ms',
  'message.max.bytes',
]);

/** The broker property a KAFKA_* variable sets, by the image's documented rule. */
export function kafkaProperty(variable: string): string {
  return variable
    .replace(/^KAFKA_/, '')
    .toLowerCase()
    .replace(/_/g, '.')
    .replace(/\.\.\./g, '-')
    .replace(/\.\./g, '_');
}

export const IMAGES: Readonly<Record<string, ImageFacts>> = {
  'apache/kafka': {
    source:
      'apache/kafka docker/jvm/Dockerfile (VOLUME), docker/examples/README.md (variables), docker/resources/common-scripts/configureDefaults (CLUSTER_ID)',
    volumes: {
      '/var/lib/kafka/data': 'data, when log.dirs points there (KAFKA_LOG_DIRS)',
      '/etc/kafka/secrets': 'TLS keystores and credentials',
      '/mnt/shared/config': 'property files that replace the defaults',
    },
    env: [
      'CLUSTER_ID',
      'KAFKA_HEAP_OPTS',
      'KAFKA_OPTS',
      'KAFKA_JMX_PORT',
      'KAFKA_LOG4J_ROOT_LOGLEVEL',
      'KAFKA_LOG4J_LOGGERS',
      /^KAFKA_[A-Z0-9_]+$/,
    ],
  },
  'clickhouse/clickhouse-server': {
    source:
      'ClickHouse docker/server/README.src/content.md ("Volumes", "How to create default database and user") and docker/server/entrypoint.sh',
    volumes: {
      '/var/lib/clickhouse': 'data',
      '/var/log/clickhouse-server': 'logs',
      '/etc/clickhouse-server/config.d': 'server configuration adjustments (*.xml)',
      '/etc/clickhouse-server/users.d': 'user settings adjustments (*.xml)',
      '/docker-entrypoint-initdb.d': 'initialisation scripts',
    },
    env: [
      'CLICKHOUSE_DB',
      'CLICKHOUSE_USER',
      'CLICKHOUSE_PASSWORD',
      // entrypoint.sh: the password read from a file (a Docker secret).
      'CLICKHOUSE_PASSWORD_FILE',
      'CLICKHOUSE_DEFAULT_ACCESS_MANAGEMENT',
      'CLICKHOUSE_DO_NOT_CHOWN',
      'CLICKHOUSE_UID',
      'CLICKHOUSE_GID',
      'CLICKHOUSE_CONFIG',
      'CLICKHOUSE_ALWAYS_RUN_INITDB_SCRIPTS',
      'CLICKHOUSE_INIT_TIMEOUT',
      'CLICKHOUSE_WATCHDOG_ENABLE',
      'CLICKHOUSE_DOCKER_RESTART_ON_EXIT',
      'CLICKHOUSE_RUN_AS_ROOT',
      // …and any variable a mounted configuration file substitutes with from_env (checked apart).
    ],
  },
  postgres: {
    source:
      'docker-library/postgres (Docker Hub "postgres": environment variables, "Docker Secrets" (_FILE); PGDATA is /var/lib/postgresql/data up to major 17)',
    volumes: { '/var/lib/postgresql/data': 'the database cluster (PGDATA)' },
    env: [
      'POSTGRES_PASSWORD',
      'POSTGRES_PASSWORD_FILE',
      'POSTGRES_USER',
      'POSTGRES_DB',
      'POSTGRES_INITDB_ARGS',
      'POSTGRES_INITDB_WALDIR',
      'POSTGRES_HOST_AUTH_METHOD',
      'PGDATA',
    ],
  },
  'temporalio/server': {
    source:
      'temporalio/temporal v1.32: common/config/config_template_embedded.yaml (variables of the built-in configuration), docker/scripts/sh/entrypoint.sh (BIND_ON_IP, TEMPORAL_BROADCAST_ADDRESS), cmd/server/main.go (TEMPORAL_ALLOW_NO_AUTH)',
    volumes: {
      '/etc/temporal/config/dynamicconfig':
        'dynamic configuration (DYNAMIC_CONFIG_FILE_PATH; the template defaults to docker.yaml there)',
    },
    env: [
      'DB',
      'DBNAME',
      'DB_PORT',
      'POSTGRES_SEEDS',
      'POSTGRES_USER',
      'POSTGRES_PWD',
      /^VISIBILITY_(DBNAME|DB_PORT|POSTGRES_SEEDS|POSTGRES_USER|POSTGRES_PWD)$/,
      /^SQL_(MAX_CONNS|MAX_IDLE_CONNS|MAX_CONN_TIME|VIS_MAX_CONNS|VIS_MAX_IDLE_CONNS|VIS_MAX_CONN_TIME|TLS_ENABLED|CA|CERT|CERT_KEY|HOST_VERIFICATION|HOST_NAME)$/,
      'BIND_ON_IP',
      'TEMPORAL_BROADCAST_ADDRESS',
      'DYNAMIC_CONFIG_FILE_PATH',
      'NUM_HISTORY_SHARDS',
      'LOG_LEVEL',
      'PROMETHEUS_ENDPOINT',
      'PROMETHEUS_TIMER_TYPE',
      'TEMPORAL_ALLOW_NO_AUTH',
      /^TEMPORAL_(AUTH|JWT|TLS)_[A-Z0-9_]+$/,
      /^(FRONTEND|HISTORY|MATCHING|WORKER|INTERNAL_FRONTEND)_(GRPC|HTTP|MEMBERSHIP)_PORT$/,
    ],
  },
  'temporalio/admin-tools': {
    source:
      "temporalio/temporal v1.32: docker/targets/admin-tools.Dockerfile (temporal-sql-tool, the temporal CLI, schemas under /etc/temporal/schema), tools/sql/main.go (SQL_* variables); the CLI's `temporal options` (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE)",
    volumes: {},
    ownPaths: ['/etc/tapehouse/'],
    env: [
      /^SQL_(HOST|PORT|USER|PASSWORD|DATABASE|PLUGIN|CONNECT_ATTRIBUTES|TLS|TLS_CA_FILE|TLS_CERT_FILE|TLS_KEY_FILE|TLS_SERVER_NAME|TLS_DISABLE_HOST_VERIFICATION)$/,
      'TEMPORAL_ADDRESS',
      'TEMPORAL_NAMESPACE',
      'TEMPORAL_API_KEY',
    ],
  },
  'prom/prometheus': {
    source:
      'prometheus/prometheus Dockerfile (VOLUME /prometheus; CMD --config.file=/etc/prometheus/prometheus.yml --storage.tsdb.path=/prometheus)',
    volumes: { '/prometheus': 'the time-series database', '/etc/prometheus/prometheus.yml': 'the configuration file' },
    // The rule files prometheus.yml names (rule_files).
    ownPaths: ['/etc/prometheus/rules'],
    env: [],
  },
  'grafana/grafana': {
    source:
      'Grafana docs: "Run Grafana Docker image" (/var/lib/grafana), "Configure a Grafana Docker image" (GF_<SECTION>_<KEY>__FILE), "Provision Grafana" ($__file{path}), "Provision Grafana" (/etc/grafana/provisioning/<kind>, $VARIABLE expansion), "Configure Grafana" (GF_<SECTION>_<KEY>); pkg/setting/setting_plugins.go (preinstall_sync, preinstall_auto_update)',
    volumes: {
      '/var/lib/grafana': 'its database, plugins and sessions',
      '/etc/grafana/provisioning/datasources': 'data sources',
      '/etc/grafana/provisioning/dashboards': 'dashboard providers',
      '/etc/grafana/provisioning/alerting': 'alert rules, contact points, policies',
      '/etc/grafana/provisioning/plugins': 'app plugins',
    },
    // The dashboards provider of dashboards/provisioning/dashboards reads our JSON files here.
    ownPaths: ['/var/lib/tapehouse-dashboards'],
    env: [
      'GF_PLUGINS_PREINSTALL_SYNC',
      'GF_PLUGINS_PREINSTALL_AUTO_UPDATE',
      'GF_PLUGINS_PREINSTALL_DISABLED',
      'GF_SECURITY_ADMIN_USER',
      'GF_SECURITY_ADMIN_PASSWORD',
      'GF_SECURITY_ADMIN_PASSWORD__FILE',
      'GF_SERVER_ROOT_URL',
      'GF_USERS_ALLOW_SIGN_UP',
      'GF_AUTH_ANONYMOUS_ENABLED',
      // …and any variable a mounted provisioning file expands ($NAME), checked apart.
    ],
  },
  'tapehouse:local': {
    source:
      'this repository: the Dockerfile (/var/lib/tapehouse) and README.md "Configuration" (TAPEHOUSE_* variables)',
    volumes: { '/var/lib/tapehouse': "a part's state between restarts (capture's coverage marks)" },
    env: [/^TAPEHOUSE_[A-Z0-9_]+$/],
  },
};
