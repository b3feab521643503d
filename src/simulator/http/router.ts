import { Rejection } from '../problems.ts';
import type { RouteSpec } from './context.ts';

interface CompiledRoute {
  spec: RouteSpec;
  segments: string[];
  staticCount: number;
}

export type RouteMatch = { route: RouteSpec; params: Record<string, string> };

/**
 * Exact segment matching. Among patterns that fit a path, the one with most literal segments
 * wins; a wrong method on it is 405, a path no pattern fits is 404 route_not_found.
 */
export class Router {
  readonly #routes: CompiledRoute[] = [];

  add(...specs: RouteSpec[]): this {
    for (const spec of specs) {
      const segments = spec.path.split('/').filter(Boolean);
      this.#routes.push({ spec, segments, staticCount: segments.filter((s) => !s.startsWith(':')).length });
    }
    return this;
  }

  resolve(method: string, path: string): RouteMatch {
    const parts = path.split('/').filter(Boolean);
    let best: Array<{ route: CompiledRoute; params: Record<string, string> }> = [];
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (best.length === 0 || route.staticCount > (best[0]?.route.staticCount ?? 0)) best = [{ route, params }];
      else if (route.staticCount === best[0]?.route.staticCount) best.push({ route, params });
    }
    if (best.length === 0) throw new Rejection('route_not_found', `No route ${path}.`);
    // Only the most specific pattern counts: its methods decide between the route and 405.
    const pattern = best[0]?.route.spec.path;
    const samePattern = best.filter((b) => b.route.spec.path === pattern);
    const hit = samePattern.find((b) => b.route.spec.method === method);
    if (!hit) {
      const allow = samePattern.map((b) => b.route.spec.method).join(', ');
      throw new Rejection('method_not_allowed', `Use ${allow}.`, undefined, undefined, { Allow: allow });
    }
    return { route: hit.route.spec, params: hit.params };
  }
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] ?? '';
    const value = parts[i] ?? '';
    if (p.startsWith(':')) {
      try {
        params[p.slice(1)] = decodeURIComponent(value);
      } catch {
        throw new Rejection('invalid_path_parameter', `Malformed ${p.slice(1)}.`);
      }
    } else if (p !== value) return undefined;
  }
  return params;
}
