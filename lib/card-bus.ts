// Live card data for the dashboard stream. Each card domain registers a source (its type, how to read its current
// data, how often); the sources run only while someone watches the stream, and a `card` event goes out whenever a
// card's data differs from what was sent last. Domains that refresh on their own (the host sampler) publish directly.
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

export class CardBus {
  readonly #events = new EventEmitter();
  readonly #sources: CardSource[] = [];
  readonly #last = new Map<string, { text: string; data: unknown }>();
  readonly #describe: (error: unknown) => unknown;
  #timers: NodeJS.Timeout[] = [];
  #watchers = 0;

  /** `describe` turns a source's failure into what the card shows (the API's error body). */
  constructor(describe: (error: unknown) => unknown) {
    this.#events.setMaxListeners(0);
    this.#describe = describe;
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

  /** Starts watching: `listener` gets every card event until the returned function is called. */
  watch(listener: (event: CardEvent) => void): () => void {
    // A new watcher first gets what is known, then every change.
    for (const [type, { data }] of this.#last) listener({ type, data });
    this.#events.on('card', listener);
    this.#watchers++;
    if (this.#watchers === 1) for (const source of this.#sources) this.#start(source);
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.#events.off('card', listener);
      this.#watchers--;
      if (this.#watchers === 0) this.stop();
    };
  }

  /** Stops every source (the last watcher left, or the app closes). */
  stop(): void {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
  }

  #start(source: CardSource): void {
    void this.#run(source);
    const timer = setInterval(() => void this.#run(source), source.intervalMs);
    timer.unref();
    this.#timers.push(timer);
  }

  async #run(source: CardSource): Promise<void> {
    try {
      this.publish(source.type, await source.read());
    } catch (error) {
      // A failing upstream is the card's error, sent like its data, so the card can show it.
      this.publish(source.type, { error: this.#describe(error) });
    }
  }
}
