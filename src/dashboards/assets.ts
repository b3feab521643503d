import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packagePath } from '../util/package-root.ts';

/**
 * The files the page loads: the viewer's own scripts and style, and ECharts from node_modules
 * (the installed package, never a CDN: the viewer works on a machine without internet).
 * Only these names are served.
 */

const CLIENT_DIR = packagePath('src/dashboards/client');
const require = createRequire(import.meta.url);

const ASSETS: Record<string, { path: () => string; type: string }> = {
  'viewer.js': { path: () => join(CLIENT_DIR, 'viewer.js'), type: 'text/javascript; charset=utf-8' },
  'panels.js': { path: () => join(CLIENT_DIR, 'panels.js'), type: 'text/javascript; charset=utf-8' },
  'format.js': { path: () => join(CLIENT_DIR, 'format.js'), type: 'text/javascript; charset=utf-8' },
  'viewer.css': { path: () => join(CLIENT_DIR, 'viewer.css'), type: 'text/css; charset=utf-8' },
  'echarts.min.js': {
    path: () => require.resolve('echarts/dist/echarts.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
};

export async function readAsset(name: string): Promise<{ body: Buffer; type: string } | undefined> {
  const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
  if (!asset) return undefined;
  return { body: await readFile(asset.path()), type: asset.type };
}
