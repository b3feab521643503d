import { inspect } from 'node:util';

/**
 * A value that must never be printed: the venue access token, passwords.
 * String conversion, JSON and util.inspect all give "[redacted]"; only `reveal()` gives the value,
 * and it is called in exactly the places that put it on the wire.
 */
export class Secret {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  toString(): string {
    return '[redacted]';
  }
  toJSON(): string {
    return '[redacted]';
  }
  [inspect.custom](): string {
    return 'Secret([redacted])';
  }
}
