// The environment readers every section uses. Each reads one variable, trims it, and either returns a typed value or
// throws a ConfigError naming the variable, so a bad value stops start-up with one line that says which one.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { cronProblem } from '../lib/cron.ts';

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable} ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

export type Env = Record<string, string | undefined>;

/** Values from a .env file in the working directory fill in what the real environment leaves unset. */
export function environment(cwd = process.cwd()): Env {
  const file = path.join(cwd, '.env');
  const fromFile = existsSync(file) ? parseDotenv(readFileSync(file)) : {};
  return { ...fromFile, ...process.env };
}

export function text(env: Env, name: string): string | null {
  const value = env[name]?.trim();
  return value ? value : null;
}

/**
 * A secret: the variable itself, or the content of the file `<name>_FILE` names, as container images pass secrets
 * (surrounding blanks and the trailing newline ignored, as in the variable). Both set is refused, and so is a file
 * that cannot be read or holds nothing; the message names the file, never its content.
 */
export function secret(env: Env, name: string): string | null {
  const fileVariable = `${name}_FILE`;
  const file = text(env, fileVariable);
  if (file === null) return text(env, name);
  if (text(env, name) !== null) {
    throw new ConfigError(fileVariable, `and ${name} are both set: set one of them`);
  }
  let content: string;
  try {
    content = readFileSync(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(fileVariable, `names a file that cannot be read ("${file}": ${reason})`);
  }
  const value = content.trim();
  if (value === '') throw new ConfigError(fileVariable, `names an empty file ("${file}")`);
  return value;
}

export function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

export function flag(env: Env, name: string): boolean {
  const raw = text(env, name);
  if (raw === null) return false;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  throw new ConfigError(name, `must be 1/true/yes/on or 0/false/no/off (got "${raw}")`);
}

export function oneOf<T extends string>(env: Env, name: string, choices: readonly T[], fallback: T): T {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (!(choices as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${choices.join(', ')} (got "${raw}")`);
  }
  return raw as T;
}

export function httpUrl(env: Env, name: string, fallback: string): string {
  const raw = text(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `must be an http(s) URL (got "${raw}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(name, `must be an http(s) URL (got "${raw}")`);
  }
  return url.toString();
}

export function decimal(env: Env, name: string, min: number, max: number): number | null {
  const raw = text(env, name);
  if (raw === null) return null;
  if (!/^-?\d+(\.\d+)?$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(name, `must be a number from ${min} to ${max} (got "${raw}")`);
  }
  return Number(raw);
}

/** An http(s) base URL without trailing slashes, or null when unset. */
export function optionalUrl(env: Env, name: string): string | null {
  return text(env, name) === null ? null : httpUrl(env, name, '').replace(/\/+$/, '');
}

/** A command line, `off`/`none` for none, or the fallback when unset. */
export function optionalCommand(env: Env, name: string, fallback: string | null): string | null {
  const raw = text(env, name);
  if (raw === null) return fallback;
  return /^(off|none)$/i.test(raw) ? null : raw;
}

/** A 5-field cron expression, `off`/`none`/`never` for none, or the fallback when unset. */
export function schedule(env: Env, name: string, fallback: string | null): string | null {
  const raw = text(env, name);
  if (raw === null) return fallback;
  if (/^(off|none|never)$/i.test(raw)) return null;
  const problem = cronProblem(raw);
  if (problem) throw new ConfigError(name, `is not a schedule: ${problem} (or "off")`);
  return raw;
}
