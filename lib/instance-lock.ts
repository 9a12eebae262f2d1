// One service per data directory: a lock file naming the process that holds it. A second start on a directory in
// use refuses and touches nothing (before this, it stopped the first one's embedded database). A lock whose
// process is gone (killed hard, power loss), or whose pid now belongs to another process, is stale and taken over.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { processAlive } from './embedded-postgres.ts';

export class DataDirInUseError extends Error {
  readonly pid: number;
  constructor(dataDir: string, pid: number) {
    super(`DATA_DIR ${dataDir} is in use by process ${pid}`);
    this.pid = pid;
  }
}

interface Holder {
  pid: number;
  /** When that process started (clock ticks since boot), so a reused pid is not taken for the holder. */
  started: string | null;
}

function startTime(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses); the start time is field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function holding(holder: Holder): boolean {
  if (!Number.isInteger(holder.pid) || holder.pid <= 0 || !processAlive(holder.pid)) return false;
  const now = startTime(holder.pid);
  return holder.started === null || now === null || now === holder.started;
}

export interface InstanceLock {
  file: string;
  /** Removes the lock if it is still ours; synchronous, so it can run in an exit handler. */
  release(): void;
}

/** Takes the lock of `dataDir` for this process, or throws DataDirInUseError naming the live holder. */
export function lockDataDir(dataDir: string): InstanceLock {
  const file = path.join(dataDir, 'hub.lock');
  const mine: Holder = { pid: process.pid, started: startTime(process.pid) };
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx', 0o600);
      writeSync(fd, `${JSON.stringify(mine)}\n`);
      closeSync(fd);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 2) throw error;
    }
    let holder: Holder;
    try {
      holder = JSON.parse(readFileSync(file, 'utf8')) as Holder;
    } catch {
      // Half written by a start that died between create and write, or removed meanwhile: stale either way.
      holder = { pid: 0, started: null };
    }
    if (holding(holder)) throw new DataDirInUseError(dataDir, holder.pid);
    try {
      unlinkSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return {
    file,
    release() {
      try {
        const holder = JSON.parse(readFileSync(file, 'utf8')) as Holder;
        if (holder.pid === process.pid) unlinkSync(file);
      } catch {
        // Already gone.
      }
    },
  };
}
