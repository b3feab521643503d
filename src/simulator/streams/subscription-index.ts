import { subjectKey, type Subject } from './client-message.ts';

/** Who holds which subject: subject key → connections, and each connection's own subjects. */
export class SubscriptionIndex<C extends object> {
  readonly #bySubject = new Map<string, Set<C>>();
  readonly #byConnection = new Map<C, Map<string, Subject>>();

  has(conn: C, subject: Subject): boolean {
    return this.#byConnection.get(conn)?.has(subjectKey(subject)) ?? false;
  }

  add(conn: C, subject: Subject): boolean {
    const key = subjectKey(subject);
    const own = this.#own(conn);
    if (own.has(key)) return false;
    own.set(key, subject);
    let set = this.#bySubject.get(key);
    if (!set) {
      set = new Set();
      this.#bySubject.set(key, set);
    }
    set.add(conn);
    return true;
  }

  remove(conn: C, subject: Subject): boolean {
    const key = subjectKey(subject);
    if (!this.#byConnection.get(conn)?.delete(key)) return false;
    const set = this.#bySubject.get(key);
    set?.delete(conn);
    if (set?.size === 0) this.#bySubject.delete(key);
    return true;
  }

  removeConnection(conn: C): void {
    for (const subject of [...(this.#byConnection.get(conn)?.values() ?? [])]) this.remove(conn, subject);
    this.#byConnection.delete(conn);
  }

  holders(channel: string, kind: Subject['kind'], id: string): Set<C> | undefined {
    return this.#bySubject.get(`${channel}|${kind}|${id}`);
  }

  subjectsOf(conn: C): Subject[] {
    return [...(this.#byConnection.get(conn)?.values() ?? [])];
  }

  countOf(conn: C): number {
    return this.#byConnection.get(conn)?.size ?? 0;
  }

  #own(conn: C): Map<string, Subject> {
    let own = this.#byConnection.get(conn);
    if (!own) {
      own = new Map();
      this.#byConnection.set(conn, own);
    }
    return own;
  }
}
