/** A refusal in ClickHouse's terms, so clients show it like a server error. */
export class QueryRefused extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
    this.name = 'QueryRefused';
  }
}
