// The typed settings: every key a module declares (lib/settings.ts, gathered by module.ts), and the one place that
// reads and writes them. A value is checked against its key's schema when written, so reading never has to re-filter
// it; a stored value that no longer fits (written before its schema existed) reads as the default. Keys no module
// declares stay free-form JSON on purpose: the generic key-value store of /api/settings, for the owner's own scripts.
import type { Static, TSchema } from 'typebox';
import { hubError } from '../../lib/errors.ts';
import type { SettingDefinition } from '../../lib/settings.ts';
import { Compile } from '../../lib/typebox.ts';
import type { Db } from '../../plugins/db.ts';
import { deleteSetting, getSetting, initSetting, putSetting, type SettingRow } from './store.ts';

const checkers = new Map<string, ReturnType<typeof Compile>>();

function checker(definition: SettingDefinition) {
  let compiled = checkers.get(definition.key);
  if (!compiled) {
    compiled = Compile(definition.schema);
    checkers.set(definition.key, compiled);
  }
  return compiled;
}

/** The value when it fits the key's schema; otherwise a 400 SETTING_INVALID naming the field. */
export function checkSetting<Schema extends TSchema>(
  definition: SettingDefinition<Schema>,
  value: unknown,
): Static<Schema> {
  const compiled = checker(definition);
  if (compiled.Check(value)) return value as Static<Schema>;
  const problems = [...compiled.Errors(value)];
  const place = (path: string) => (path ? path.slice(1).replace(/\//g, '.') : '(the value)');
  // An unknown key is named as such (its own error only says its schema is `false`).
  const unknown = problems.find((problem) => problem.keyword === 'additionalProperties');
  if (unknown) {
    const keys = (unknown.params as { additionalProperties: string[] }).additionalProperties;
    const where = unknown.instancePath ? ` in ${place(unknown.instancePath)}` : '';
    throw hubError(
      'SETTING_INVALID',
      `setting "${definition.key}": unknown ${keys.length === 1 ? 'key' : 'keys'} ${keys.map((key) => `"${key}"`).join(', ')}${where}`,
    );
  }
  const [first] = problems;
  throw hubError(
    'SETTING_INVALID',
    `setting "${definition.key}": ${place(first?.instancePath ?? '')} ${first?.message ?? 'does not fit the schema'}`,
  );
}

export async function readSetting<Schema extends TSchema>(
  sql: Db,
  definition: SettingDefinition<Schema>,
): Promise<Static<Schema>> {
  const stored = await getSetting<unknown>(sql, definition.key);
  if (stored === undefined || !checker(definition).Check(stored)) return definition.defaultValue();
  return stored as Static<Schema>;
}

/**
 * Like readSetting, but a default made when nothing is stored is stored at once, so it stays the same on every later
 * read (a minute chosen at random, say). Concurrent first reads agree on one stored value.
 */
export async function readSettingOrStoreDefault<Schema extends TSchema>(
  sql: Db,
  definition: SettingDefinition<Schema>,
): Promise<Static<Schema>> {
  const stored = await getSetting<unknown>(sql, definition.key);
  if (stored !== undefined && checker(definition).Check(stored)) return stored as Static<Schema>;
  if (stored !== undefined) return definition.defaultValue();
  const value = await initSetting(sql, definition.key, definition.defaultValue());
  return checker(definition).Check(value) ? (value as Static<Schema>) : definition.defaultValue();
}

export async function writeSetting<Schema extends TSchema>(
  sql: Db,
  definition: SettingDefinition<Schema>,
  value: unknown,
): Promise<SettingRow> {
  const checked = checkSetting(definition, value);
  await definition.validate?.(sql, checked);
  return putSetting(sql, definition.key, checked);
}

/** Back to the default: the stored value is removed. */
export async function resetSetting(sql: Db, definition: SettingDefinition): Promise<void> {
  await deleteSetting(sql, definition.key);
}
