import { validationFailed, type FieldError } from '../problems.ts';

/** Reads query parameters, collecting every problem so a 422 can list them all at once. */
export class QueryReader {
  readonly errors: FieldError[] = [];

  constructor(private readonly params: URLSearchParams) {}

  string(name: string): string | undefined {
    const v = this.params.get(name);
    return v === null || v === '' ? undefined : v;
  }

  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const v = this.string(name);
    if (v === undefined) return undefined;
    if ((values as readonly string[]).includes(v)) return v as T;
    this.errors.push({ path: [name], code: 'invalid_enum', message: `${name} must be one of ${values.join(', ')}.` });
    return undefined;
  }

  int(name: string, bounds: { min: number; max: number; fallback: number }): number {
    const v = this.string(name);
    if (v === undefined) return bounds.fallback;
    const n = /^-?\d+$/.test(v) ? Number(v) : NaN;
    if (!Number.isSafeInteger(n) || n < bounds.min || n > bounds.max) {
      this.errors.push({
        path: [name],
        code: 'out_of_range',
        message: `${name} must be an integer from ${bounds.min} to ${bounds.max}.`,
      });
      return bounds.fallback;
    }
    return n;
  }

  bool(name: string, fallback: boolean): boolean {
    const v = this.string(name);
    if (v === undefined) return fallback;
    if (v === 'true' || v === 'false') return v === 'true';
    this.errors.push({ path: [name], code: 'invalid_boolean', message: `${name} must be true or false.` });
    return fallback;
  }

  /** Throws 422 validation_failed listing every bad parameter. */
  done(): void {
    if (this.errors.length > 0) throw validationFailed(this.errors);
  }
}
