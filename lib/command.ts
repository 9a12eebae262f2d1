// Running a configured program (a transcript tool, a neighbour-table or LAN scan command): no shell, an allow-listed
// environment (never the service's secrets), and a time limit that kills the whole process group, so a program that
// forks helpers cannot leave them behind.
import { spawn } from 'node:child_process';

/** Splits a command line into words: blanks separate, single or double quotes group; nothing else is special. */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: string | null = null;
  let started = false;
  for (const char of command) {
    if (quote) {
      if (char === quote) quote = null;
      else current += char;
    } else if (char === '"' || char === "'") {
      quote = char;
      started = true;
    } else if (/\s/.test(char)) {
      if (started) words.push(current);
      current = '';
      started = false;
    } else {
      current += char;
      started = true;
    }
  }
  if (started) words.push(current);
  return words;
}

/** The environment a child process gets: these three, never the service's secrets. */
export function childEnvironment(home: string): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
  };
  if (process.env.LANG) env.LANG = process.env.LANG;
  return env;
}

export interface CommandResult {
  /** null when the program ran to its end (see `status`). */
  failure: 'not-found' | 'not-executable' | 'timeout' | 'too-much-output' | null;
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  timeoutMs: number;
  cwd?: string;
  maxBytes?: number;
}

/** Runs `program` with `args`; never throws for the program's own failures, which the result describes. */
export function runCommand(program: string, args: string[], options: CommandOptions): Promise<CommandResult> {
  const maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
  return new Promise((resolve) => {
    const child = spawn(program, args, {
      cwd: options.cwd,
      env: childEnvironment(process.env.HOME ?? options.cwd ?? '/'),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let failure: CommandResult['failure'] = null;
    const killGroup = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        failure ??= 'too-much-output';
        killGroup();
        return;
      }
      into.push(chunk);
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    const timer = setTimeout(() => {
      failure ??= 'timeout';
      killGroup();
    }, options.timeoutMs);
    const finish = (status: number | null) => {
      clearTimeout(timer);
      resolve({
        failure,
        status,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      });
    };
    child.on('error', (error: NodeJS.ErrnoException) => {
      failure ??= error.code === 'ENOENT' ? 'not-found' : error.code === 'EACCES' ? 'not-executable' : null;
      finish(null);
    });
    child.on('close', (status) => finish(status));
  });
}

/** A failed run in a sentence, or null when the program ran and exited with status 0. */
export function commandProblem(name: string, result: CommandResult, timeoutMs: number): string | null {
  if (result.failure === 'not-found') return `${name} not found`;
  if (result.failure === 'not-executable') return `${name} is not executable`;
  if (result.failure === 'timeout') return `${name} timed out after ${timeoutMs} ms`;
  if (result.failure === 'too-much-output') return `${name} wrote too much output`;
  if (result.status !== 0) {
    const stderr = result.stderr.trim();
    const tail = stderr.length > 300 ? `…${stderr.slice(-300)}` : stderr;
    return `${name} exited with status ${result.status}${tail ? `: ${tail}` : ''}`;
  }
  return null;
}
