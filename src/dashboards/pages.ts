import type { DashboardFile } from './dashboard-model.ts';

/** The viewer's two HTML pages: the list of dashboards, and the shell a dashboard draws itself in. */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function page(base: string, title: string, body: string, scripts = ''): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · tapehouse</title>
<link rel="stylesheet" href="${base}/assets/viewer.css">
${scripts}
</head>
${body}
</html>
`;
}

export function listPage(base: string, files: readonly DashboardFile[]): string {
  const items = files
    .map(({ dashboard }) => {
      const tags = ((dashboard.tags as string[] | undefined) ?? [])
        .map((tag) => `<span class="tag">${escapeHtml(tag)}</span>`)
        .join(' ');
      return `<li><a href="${base}/d/${dashboard.uid}">${escapeHtml(dashboard.title)}</a> ${tags}<p>${escapeHtml(dashboard.description ?? '')}</p></li>`;
    })
    .join('\n');
  return page(
    base,
    'Dashboards',
    `<body class="list">
<header><h1>tapehouse dashboards</h1></header>
<main><ul class="dashboards">
${items}
</ul>
<p class="note">The same dashboards Grafana loads from <code>dashboards/</code>, drawn here from the warehouse this process serves.</p></main>
</body>`,
  );
}

export function dashboardPage(base: string, file: DashboardFile): string {
  const { uid, title } = file.dashboard;
  return page(
    base,
    title,
    `<body class="dashboard" data-base="${escapeHtml(base)}" data-uid="${escapeHtml(uid)}">
<header>
  <a class="home" href="${base}/">tapehouse</a>
  <h1>${escapeHtml(title)}</h1>
  <div id="variables"></div>
  <div id="controls"></div>
</header>
<main id="grid"></main>
</body>`,
    `<script src="${base}/assets/echarts.min.js"></script>\n<script type="module" src="${base}/assets/viewer.js"></script>`,
  );
}
