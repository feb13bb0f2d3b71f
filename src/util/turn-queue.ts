// Work spread over turns of the event loop: at most `perTurn` items handled per turn, oldest
// first, so that a burst of work (a crowded second's spawns or log lines) never holds the
// loop in one piece and timers, sockets and health checks are served in between.

export class TurnQueue<T> {
  private items: T[] = [];
  private scheduled = false;

  constructor(
    private readonly perTurn: number,
    private readonly handle: (item: T) => void,
    /** Told of an item whose handling threw; the items after it still go ahead. */
    private readonly onError: (err: unknown, item: T) => void,
  ) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    this.items.push(item);
    this.schedule();
  }

  /** Puts an item ahead of those waiting: it is handled in the next turn. */
  pushFirst(item: T): void {
    this.items.unshift(item);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.turn());
  }

  private turn(): void {
    const batch = this.items.splice(0, this.perTurn);
    for (const item of batch)
      try {
        this.handle(item);
      } catch (err) {
        this.onError(err, item);
      }
    if (this.items.length > 0) setImmediate(() => this.turn());
    else this.scheduled = false;
  }
}
