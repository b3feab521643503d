/**
 * Which market socket carries what. A condition's tokens always share a socket (a trade frame
 * names one market and would otherwise arrive twice), a condition goes where its event already
 * is when there is room, and an event's status subscription lives on the socket of its first
 * condition. Nothing moves once placed: moving would cost coverage for no gain.
 */
export class ConnectionPlan {
  readonly #conditionHome = new Map<string, number>();
  readonly #eventHome = new Map<string, number>();
  readonly #conditionsOfEvent = new Map<string, Set<string>>();
  readonly #load: number[] = [];

  constructor(readonly tokensPerConnection: number) {}

  get connections(): number {
    return this.#load.length;
  }

  homeOf(conditionId: string): number | undefined {
    return this.#conditionHome.get(conditionId);
  }

  eventHome(eventId: string): number | undefined {
    return this.#eventHome.get(eventId);
  }

  /** Places a condition; says whether its event's status subscription is new (and where it goes). */
  place(eventId: string, conditionId: string, tokens: number): { connection: number; eventIsNew: boolean } {
    const existing = this.#conditionHome.get(conditionId);
    if (existing !== undefined) return { connection: existing, eventIsNew: false };
    const home = this.#eventHome.get(eventId);
    let connection =
      home !== undefined && this.#fits(home, tokens) ? home : this.#load.findIndex((_, i) => this.#fits(i, tokens));
    if (connection < 0) {
      connection = this.#load.length;
      this.#load.push(0);
    }
    this.#load[connection]! += tokens;
    this.#conditionHome.set(conditionId, connection);
    let members = this.#conditionsOfEvent.get(eventId);
    if (!members) this.#conditionsOfEvent.set(eventId, (members = new Set()));
    members.add(conditionId);
    const eventIsNew = home === undefined;
    if (eventIsNew) this.#eventHome.set(eventId, connection);
    return { connection, eventIsNew };
  }

  /** Releases a condition; says where its event's status subscription was when the event has no condition left. */
  release(
    eventId: string,
    conditionId: string,
    tokens: number,
  ): { connection: number | undefined; eventGoneFrom: number | undefined } {
    const connection = this.#conditionHome.get(conditionId);
    if (connection === undefined) return { connection: undefined, eventGoneFrom: undefined };
    this.#conditionHome.delete(conditionId);
    this.#load[connection]! -= tokens;
    const members = this.#conditionsOfEvent.get(eventId);
    members?.delete(conditionId);
    if (members && members.size > 0) return { connection, eventGoneFrom: undefined };
    this.#conditionsOfEvent.delete(eventId);
    const home = this.#eventHome.get(eventId);
    this.#eventHome.delete(eventId);
    return { connection, eventGoneFrom: home };
  }

  #fits(connection: number, tokens: number): boolean {
    const load = this.#load[connection]!;
    // An empty socket takes a condition whatever its size: a market never spans two sockets.
    return load === 0 || load + tokens <= this.tokensPerConnection;
  }
}
