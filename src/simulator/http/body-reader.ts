import { validationFailed, type FieldError } from '../problems.ts';

/** Reads optional fields of a JSON object body, collecting every problem for one 422. */
export class BodyReader {
  readonly errors: FieldError[] = [];
  readonly #b: Record<string, unknown>;

  constructor(body: unknown) {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw validationFailed([{ path: [], code: 'not_an_object', message: 'The body must be a JSON object.' }]);
    }
    this.#b = body as Record<string, unknown>;
  }

  string(name: string): string | undefined {
    const v = this.#b[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    this.errors.push({ path: [name], code: 'invalid_string', message: `${name} must be a string.` });
    return undefined;
  }

  strings(name: string): string[] | undefined {
    const v = this.#b[name];
    if (v === undefined || v === null) return undefined;
    if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[];
    this.errors.push({ path: [name], code: 'invalid_array', message: `${name} must be an array of strings.` });
    return undefined;
  }

  int(name: string, bounds: { min: number; max: number; fallback: number }): number {
    const v = this.#b[name];
    if (v === undefined || v === null) return bounds.fallback;
    if (typeof v === 'number' && Number.isSafeInteger(v) && v >= bounds.min && v <= bounds.max) return v;
    this.errors.push({
      path: [name],
      code: 'out_of_range',
      message: `${name} must be an integer from ${bounds.min} to ${bounds.max}.`,
    });
    return bounds.fallback;
  }

  bool(name: string): boolean | undefined {
    const v = this.#b[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'boolean') return v;
    this.errors.push({ path: [name], code: 'invalid_boolean', message: `${name} must be a boolean.` });
    return undefined;
  }

  raw(name: string): unknown {
    return this.#b[name];
  }

  done(): void {
    if (this.errors.length > 0) throw validationFailed(this.errors);
  }
}
