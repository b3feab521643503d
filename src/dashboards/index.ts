// The dashboards: Grafana JSON in dashboards/, and the built-in viewer that draws the same files.
export { answerFavicon, createDashboardsApp, type DashboardsApp, type DashboardsAppOptions } from './app.ts';
export { serveDashboards, type DashboardsServer, type ServeDashboardsOptions } from './serve.ts';
export { runQueryThroughClient, type QueryResult, type RunQuery } from './run-query.ts';
export { DASHBOARDS_DIR, loadDashboards } from './dashboard-model.ts';
