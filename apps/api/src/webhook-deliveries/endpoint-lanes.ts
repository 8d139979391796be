/** A claimed event of an endpoint, as a lane holds it. */
interface Held<Item> {
  endpoint: string;
  item: Item;
}

/**
 * The deliveries one process holds, lane by lane, one lane per endpoint (a customer's
 * environment): events claimed and waiting for a request slot, requests running, and
 * outcomes being written. At most `perEndpoint` requests to one endpoint run at once, and
 * `total` in all, so a slow or dead endpoint holds only its own share of the process. A lane
 * may hold up to twice its requests: the next events wait here, claimed ahead, and start the
 * moment a request of their endpoint ends, without waiting for a claim. Waiting events start
 * in the order they were claimed.
 */
export class EndpointLanes<Item> {
  private readonly waiting: Held<Item>[] = [];
  private readonly running = new Map<string, number>();
  /** Events claimed and not finished (waiting, running or being recorded), per endpoint. */
  private readonly held = new Map<string, number>();
  private heldTotal = 0;
  private runningTotal = 0;

  constructor(
    readonly perEndpoint: number,
    readonly total: number,
  ) {}

  /** How many events one lane may hold (the claim's cap). */
  get laneCapacity(): number {
    return 2 * this.perEndpoint;
  }

  /** How many events all lanes may hold (the claims' limit). */
  get capacity(): number {
    return 2 * this.total;
  }

  /** Events claimed and not finished, in all lanes. */
  get size(): number {
    return this.heldTotal;
  }

  /**
   * What each lane holds, as the claim's cap counts it: a lane with events still waiting
   * counts as full, so it is refilled once its waiting events have started, several at once.
   */
  claimView(): Map<string, number> {
    const view = new Map(this.held);
    for (const { endpoint } of this.waiting) view.set(endpoint, this.laneCapacity);
    return view;
  }

  add(endpoint: string, item: Item): void {
    this.waiting.push({ endpoint, item });
    this.held.set(endpoint, (this.held.get(endpoint) ?? 0) + 1);
    this.heldTotal++;
  }

  /** Takes the waiting events whose lane and process have a free request slot, oldest first; counts their requests running. */
  startable(): Held<Item>[] {
    const started: Held<Item>[] = [];
    for (let i = 0; i < this.waiting.length && this.runningTotal < this.total; ) {
      const { endpoint } = this.waiting[i]!;
      const running = this.running.get(endpoint) ?? 0;
      if (running >= this.perEndpoint) {
        i++;
        continue;
      }
      started.push(this.waiting.splice(i, 1)[0]!);
      this.running.set(endpoint, running + 1);
      this.runningTotal++;
    }
    return started;
  }

  /** A request ended: its slot is free (its outcome may still be being written). */
  requestEnded(endpoint: string): void {
    this.runningTotal--;
    decrement(this.running, endpoint);
  }

  /** An event's delivery is over (its outcome written). */
  finished(endpoint: string): void {
    this.heldTotal--;
    decrement(this.held, endpoint);
  }

  /** Takes every waiting event out (on stop), as finished. */
  takeWaiting(): Item[] {
    const taken = this.waiting.splice(0);
    for (const { endpoint } of taken) this.finished(endpoint);
    return taken.map((held) => held.item);
  }
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 0) - 1;
  if (left > 0) counts.set(key, left);
  else counts.delete(key);
}
