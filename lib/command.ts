// Running a program the owner configured (a speed test, a speech-to-text wrapper, a LAN scan, an assistant): no
// shell, an allow-listed environment (never a secret of the hub's), its own process group so a timeout or an abort
// kills every process it started, and bounded output.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';

/** Splits a configured command on blanks; quotes group words. No shell is involved, so nothing is expanded. */
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

/** The environment a child gets: PATH, HOME, LANG and TZ from ours, plus what the caller names. */
export function childEnvironment(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ['PATH', 'HOME', 'LANG', 'TZ']) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  env.PATH ??= '/usr/local/bin:/usr/bin:/bin';
  return { ...env, ...extra };
}

export interface CommandOptions {
  timeoutMs: number;
  /** Largest standard output kept; beyond it the program is stopped. */
  maxOutputBytes: number;
  cwd?: string;
  env?: Record<string, string>;
  stdin?: string | Buffer;
  signal?: AbortSignal;
}

export interface CommandResult {
  /** Exit status, or null when a signal ended it. */
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  overflowed: boolean;
}

export class CommandError extends Error {
  readonly reason: 'empty' | 'not-found' | 'not-executable' | 'start-failed';
  constructor(message: string, reason: CommandError['reason'] = 'start-failed') {
    super(message);
    this.name = 'CommandError';
    this.reason = reason;
  }
}

const maxStderrBytes = 64 * 1024;

export interface StartedCommand {
  child: ChildProcessWithoutNullStreams;
  /** Kills the program and every process it started (its process group). */
  kill(): void;
}

/** Starts argv[0] in a process group of its own, for a caller that reads its output as it comes. */
export function startCommand(
  argv: string[],
  options: Pick<CommandOptions, 'cwd' | 'env' | 'stdin'>,
): StartedCommand {
  const [program, ...args] = argv;
  if (!program) throw new CommandError('the command is empty', 'empty');
  const child = spawn(program, args, {
    cwd: options.cwd,
    env: options.env ?? childEnvironment(),
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
    windowsHide: true,
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.stdin ?? '');
  return {
    child,
    kill: () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    },
  };
}

/** The error a spawn reports, as a CommandError a person can act on. */
export function startFailure(program: string, error: Error): CommandError {
  const errno = (error as NodeJS.ErrnoException).code;
  if (errno === 'ENOENT') return new CommandError(`program not found: ${program}`, 'not-found');
  if (errno === 'EACCES') return new CommandError(`program not executable: ${program}`, 'not-executable');
  return new CommandError(`${program} could not be started: ${error.message}`);
}

/** Runs argv[0] with the rest as arguments; refuses a missing or non-executable program with a CommandError. */
export function runCommand(argv: string[], options: CommandOptions): Promise<CommandResult> {
  const [program] = argv;
  if (!program) return Promise.reject(new CommandError('the command is empty', 'empty'));
  return new Promise((resolve, reject) => {
    const { child, kill: killGroup } = startCommand(argv, options);
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let timedOut = false;
    let aborted = false;
    let overflowed = false;
    let settled = false;

    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup();
    };
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();

    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > options.maxOutputBytes) {
        overflowed = true;
        killGroup();
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderrBytes < maxStderrBytes) stderr.push(chunk);
      stderrBytes += chunk.length;
    });

    const finish = (error: Error | null, code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      if (error) return reject(startFailure(program, error));
      // The group may still hold children the program left behind.
      if (timedOut || aborted || overflowed) killGroup();
      resolve({
        code,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8').slice(0, maxStderrBytes),
        timedOut,
        aborted,
        overflowed,
      });
    };
    child.on('error', (error) => finish(error, null));
    child.on('close', (code) => finish(null, code));
  });
}

/** The last few hundred characters of a program's error output, for a message. */
export function outputTail(text: string, length = 300): string {
  const trimmed = text.trim();
  return trimmed.length > length ? `…${trimmed.slice(-length)}` : trimmed;
}

/** A finished run's failure in a sentence (timed out, too much output, a non-zero status), or null when it succeeded. */
export function commandProblem(name: string, result: CommandResult, timeoutMs: number): string | null {
  if (result.timedOut) return `${name} timed out after ${timeoutMs} ms`;
  if (result.overflowed) return `${name} wrote too much output`;
  if (result.code !== 0) {
    const said = outputTail(result.stderr);
    return `${name} exited with status ${result.code ?? 'signal'}${said ? `: ${said}` : ''}`;
  }
  return null;
}
