// Live card data for the dashboard stream. Each card domain registers a source (its type, how to read its current
// data, how often); the sources run only while someone watches the stream, and a `card` event goes out whenever a
// card's data differs from what was sent last. Domains that refresh on their own (the host sampler) publish directly.
// Data written anywhere (a job in the separate worker process included) is announced on the database's
// `card_changed` channel with the card type as payload (triggers of migration 0022): while someone watches, that
// type's sources are read again at once instead of at their next interval.
import { EventEmitter } from 'node:events';

export interface CardEvent {
  type: string;
  data: unknown;
}

export interface CardSource {
  type: string;
  intervalMs: number;
  read: () => Promise<unknown>;
}

/** The channel the database announces changed card data on; the payload is the card type. */
export const cardChangesChannel = 'card_changed';

/** Follows the change announcements, calling `onChange` with each card type; resolves to a function that stops. */
export type CardChanges = (onChange: (type: string) => void) => Promise<() => Promise<void>>;

export class CardBus {
  readonly #events = new EventEmitter();
  readonly #sources: CardSource[] = [];
  readonly #last = new Map<string, { text: string; data: unknown }>();
  readonly #describe: (error: unknown) => unknown;
  readonly #changes: CardChanges | null;
  /** Sources being read now, and those asked for again meanwhile (read once more when the first read ends). */
  readonly #reading = new Set<CardSource>();
  readonly #again = new Set<CardSource>();
  #following: Promise<(() => Promise<void>) | null> | null = null;
  #timers: NodeJS.Timeout[] = [];
  #watchers = 0;

  /** `describe` turns a source's failure into what the card shows (the API's error body). */
  constructor(describe: (error: unknown) => unknown, changes: CardChanges | null = null) {
    this.#events.setMaxListeners(0);
    this.#describe = describe;
    this.#changes = changes;
  }

  addSource(source: CardSource): void {
    this.#sources.push(source);
    if (this.#watchers > 0) this.#start(source);
  }

  get watching(): boolean {
    return this.#watchers > 0;
  }

  /** Sends `data` as the card's event unless it equals what was sent last. */
  publish(type: string, data: unknown): void {
    const text = JSON.stringify(data);
    if (this.#last.get(type)?.text === text) return;
    this.#last.set(type, { text, data });
    this.#events.emit('card', { type, data } satisfies CardEvent);
  }

  /** Reads the sources of `type` again now, if anyone watches. */
  refresh(type: string): void {
    if (this.#watchers === 0) return;
    for (const source of this.#sources) if (source.type === type) void this.#run(source);
  }

  /** Starts watching: `listener` gets every card event until the returned function is called. */
  watch(listener: (event: CardEvent) => void): () => void {
    // A new watcher first gets what is known, then every change.
    for (const [type, { data }] of this.#last) listener({ type, data });
    this.#events.on('card', listener);
    this.#watchers++;
    if (this.#watchers === 1) {
      this.#follow();
      for (const source of this.#sources) this.#start(source);
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.#events.off('card', listener);
      this.#watchers--;
      if (this.#watchers === 0) this.stop();
    };
  }

  /** Stops every source and the change announcements (the last watcher left, or the app closes). */
  stop(): void {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    const following = this.#following;
    this.#following = null;
    void following?.then((unfollow) => unfollow?.()).catch(() => undefined);
  }

  #follow(): void {
    if (!this.#changes || this.#following) return;
    // Without the announcements (the database is away) each source's own interval still refreshes its card.
    this.#following = this.#changes((type) => this.refresh(type)).catch(() => null);
  }

  #start(source: CardSource): void {
    void this.#run(source);
    const timer = setInterval(() => void this.#run(source), source.intervalMs);
    timer.unref();
    this.#timers.push(timer);
  }

  async #run(source: CardSource): Promise<void> {
    if (this.#reading.has(source)) {
      // A burst of changes (a health check of every service) reads the source once more, not once per change.
      this.#again.add(source);
      return;
    }
    this.#reading.add(source);
    try {
      this.publish(source.type, await source.read());
    } catch (error) {
      // A failing upstream is the card's error, sent like its data, so the card can show it.
      this.publish(source.type, { error: this.#describe(error) });
    } finally {
      this.#reading.delete(source);
      if (this.#again.delete(source) && this.#watchers > 0) void this.#run(source);
    }
  }
}
