// Memory the process has freed goes back to the system. glibc's allocator keeps what a process frees for the
// process's own later use and returns only what lies at the top of its heap. A start frees megabytes in the middle of
// it: the parser's and compilers' scratch memory, and Node's compile cache, which holds a copy of every module's
// compiled code it read until that cache is flushed. A burst of requests leaves the same behind. malloc_trim(0) hands
// every whole free page back. Linux with glibc only: musl and macOS have no such call and return memory on their own
// terms. The call goes through ffi-rs (a prebuilt binary per platform, no build at install), required on the first
// release; where it cannot load or libc.so.6 is not there, nothing is done.
import module from 'node:module';
import type * as Ffi from 'ffi-rs';
import { lazyRequire } from './lazy.ts';

const ffi = lazyRequire<typeof Ffi>('ffi-rs');

let mallocTrim: (() => boolean) | null | undefined;

function loadMallocTrim(): (() => boolean) | null {
  if (process.platform !== 'linux') return null;
  try {
    const { DataType, define, open } = ffi();
    open({ library: 'libc', path: 'libc.so.6' });
    const { malloc_trim } = define({
      malloc_trim: { library: 'libc', retType: DataType.I32, paramsType: [DataType.U64] },
    });
    // malloc_trim(pad) answers 1 when it returned memory, 0 when there was none to return.
    return () => malloc_trim([0]) === 1;
  } catch {
    return null;
  }
}

/**
 * Returns the whole free pages of the process's heap to the system: true when there was something to return,
 * false when there was not, null where this cannot be done (not Linux with glibc).
 */
export function returnFreedMemory(): boolean | null {
  mallocTrim ??= loadMallocTrim();
  return mallocTrim === null ? null : mallocTrim();
}

export interface MemoryReleaseOptions {
  /** How often the resident set is looked at (default 5 s). */
  intervalMs?: number;
  /**
   * Growth of the resident set, or fall of the buffers' memory, since the last release that makes the next look
   * release again (default 4 MB).
   */
  growthBytes?: number;
  /** Told about each release that was done, with the resident set before and after (bytes). */
  onRelease?: (release: { before: number; after: number }) => void;
}

export interface MemoryRelease {
  stop(): void;
}

/**
 * For a started process: flushes the compile cache (what it holds is written if new, then dropped) and returns the
 * start's freed memory now; then, every `intervalMs`, returns freed memory again once the resident set has grown by
 * `growthBytes` since the last release, as it does over a burst of work, or the buffers' memory has fallen by as
 * much, as it does when a burst's buffers are collected after it. A look reads the two;
 * a release walks the heap's free lists, on the main thread: 0.2 ms with nothing to return, about 10 ms to return
 * 36 MB.
 */
export function releaseFreedMemory(options: MemoryReleaseOptions = {}): MemoryRelease {
  const { intervalMs = 5_000, growthBytes = 4 * 1024 * 1024, onRelease } = options;
  /** The resident set after the last release, or the lowest seen since. */
  let settled = 0;
  /**
   * The memory outside V8's heap that V8 accounts for (buffers' and array buffers' backing stores) at the last
   * release, or the highest seen since. When it falls, what was freed sits in the allocator: a burst of requests
   * released at its peak, its buffers collected later, leaves the resident set where it was and never growing.
   */
  let held = 0;
  const release = () => {
    const before = process.memoryUsage.rss();
    const done = returnFreedMemory();
    settled = process.memoryUsage.rss();
    held = process.memoryUsage().external;
    if (done !== null) onRelease?.({ before, after: settled });
    return done;
  };
  module.flushCompileCache();
  // Where it cannot be done now, it cannot be done later either: no timer then.
  if (release() === null) return { stop() {} };
  const timer = setInterval(() => {
    const now = process.memoryUsage.rss();
    const external = process.memoryUsage().external;
    if (now - settled >= growthBytes || held - external >= growthBytes) release();
    else {
      settled = Math.min(settled, now);
      held = Math.max(held, external);
    }
  }, intervalMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
    },
  };
}
