// Samples the host every few seconds, but only while someone reads: a read (or a dashboard stream watching) keeps it
// running; after a quiet minute it stops, so an idle hub reads nothing. The first read waits for one short interval
// so the CPU figure covers a real span, never the time since boot.
import { setTimeout as sleep } from 'node:timers/promises';
import { type HostFigures, hostFigures, type RawSample, rawSample } from './metrics.ts';

export interface SamplerOptions {
  proc: string;
  sys: string;
  mounts: string[];
  intervalMs: number;
  /** Stop after this long without a read (and nobody watching). */
  idleMs: number;
  /** The first figures come from two samples this far apart. */
  firstSpanMs: number;
  /** Whether a dashboard stream is open (keeps sampling going). */
  watching: () => boolean;
  onFigures: (figures: HostFigures & { sampled_at: string }) => void;
}

export class HostSampler {
  readonly #options: SamplerOptions;
  #previous: RawSample | null = null;
  #figures: (HostFigures & { sampled_at: string }) | null = null;
  #timer: NodeJS.Timeout | null = null;
  #lastRead = 0;
  #starting: Promise<void> | null = null;
  #closed = false;
  /** Bumped on every stop: a sample still in flight from before it is dropped, not published. */
  #generation = 0;

  constructor(options: SamplerOptions) {
    this.#options = options;
  }

  get running(): boolean {
    return this.#timer !== null;
  }

  /** The latest figures, starting the sampler when it is not running. */
  async read(): Promise<HostFigures & { sampled_at: string }> {
    this.#lastRead = Date.now();
    if (this.#figures && this.#timer) return this.#figures;
    this.#starting ??= this.#start().finally(() => {
      this.#starting = null;
    });
    await this.#starting;
    return this.#figures as HostFigures & { sampled_at: string };
  }

  close(): void {
    this.#closed = true;
    this.#stop();
  }

  async #start(): Promise<void> {
    this.#previous = await rawSample(this.#options.proc);
    await sleep(this.#options.firstSpanMs);
    await this.#tick();
    if (this.#closed || this.#timer) return;
    this.#timer = setInterval(() => {
      const idle = Date.now() - this.#lastRead > this.#options.idleMs;
      if (idle && !this.#options.watching()) {
        this.#stop();
        return;
      }
      void this.#tick().catch(() => this.#stop());
    }, this.#options.intervalMs);
    this.#timer.unref();
  }

  async #tick(): Promise<void> {
    const generation = this.#generation;
    const now = await rawSample(this.#options.proc);
    const before = this.#previous ?? now;
    const figures = await hostFigures(this.#options, before, now);
    if (generation !== this.#generation) return;
    this.#previous = now;
    this.#figures = { ...figures, sampled_at: new Date(now.at).toISOString() };
    this.#options.onFigures(this.#figures);
  }

  #stop(): void {
    this.#generation++;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    // Figures from before a pause would show a stale span: the next read starts afresh.
    this.#figures = null;
    this.#previous = null;
  }
}
