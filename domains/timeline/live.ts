// New events as they happen, for the dashboard stream. Every insert is announced on the database's `timeline_event`
// channel with the event's id (migration 0042), whichever process wrote it; while someone watches, the follower
// listens there, reads the announced rows and hands them to each watcher. Nobody watching: no listening, no reads.
import { EventEmitter } from 'node:events';
import type { Sql } from '../../plugins/db.ts';
import { present } from './read.ts';
import type { TimelineEvent } from './schema.ts';
import { eventsByIds } from './store.ts';

export const timelineChannel = 'timeline_event';

export class TimelineFollower {
  readonly #events = new EventEmitter();
  readonly #sql: Sql;
  #watchers = 0;
  #listening: Promise<(() => Promise<void>) | null> | null = null;
  /** Ids announced and not read yet, read together (a burst of events is one query). */
  #announced: string[] = [];
  /** Reads run one after the other, so watchers get events in the order they were announced. */
  #reading: Promise<void> = Promise.resolve();

  constructor(sql: Sql) {
    this.#sql = sql;
    this.#events.setMaxListeners(0);
  }

  /** `listener` gets each new event until the returned function is called. */
  watch(listener: (event: TimelineEvent) => void): () => void {
    this.#events.on('event', listener);
    if (++this.#watchers === 1) this.#listen();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.#events.off('event', listener);
      if (--this.#watchers === 0) this.stop();
    };
  }

  stop(): void {
    const listening = this.#listening;
    this.#listening = null;
    this.#announced = [];
    void listening?.then((unlisten) => unlisten?.()).catch(() => undefined);
  }

  #listen(): void {
    // Without the database the stream goes on without events; the next watcher tries again.
    this.#listening = this.#sql
      .listen(timelineChannel, (id) => this.#announce(id))
      .then((listening) => () => listening.unlisten())
      .catch(() => null);
  }

  #announce(id: string): void {
    this.#announced.push(id);
    this.#reading = this.#reading.then(() => this.#read());
  }

  async #read(): Promise<void> {
    const ids = this.#announced.splice(0, this.#announced.length);
    if (ids.length === 0 || this.#watchers === 0) return;
    try {
      for (const row of await eventsByIds(this.#sql, ids)) this.#events.emit('event', present(row));
    } catch {
      // A failed read loses those events for the live view only; the timeline itself has them.
    }
  }
}
