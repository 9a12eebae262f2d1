// A typed setting: one key of the app_settings store with its TypeBox schema and default, declared in the domain that
// owns it (`domains/theme/setting.ts`) and gathered by the settings domain, which alone reads and writes the store.
import type { ISql } from 'postgres';
import type { Static, TSchema } from 'typebox';

/** A pool or a transaction (the Db of plugins/db.ts). */
// biome-ignore lint/complexity/noBannedTypes: postgres.js's own default type parameter
type Db = ISql<{}>;

export interface SettingDefinition<Schema extends TSchema = TSchema> {
  key: string;
  schema: Schema;
  /** The value while none is stored. A function where it must be made once (a random minute, say). */
  defaultValue: () => Static<Schema>;
  description: string;
  /**
   * What the schema cannot say, checked against the database whenever the value is written (an iconRef names an
   * icon that exists): throws the request's 4xx.
   */
  validate?: (sql: Db, value: Static<Schema>) => Promise<void>;
}

export function defineSetting<Schema extends TSchema>(setting: {
  key: string;
  schema: Schema;
  defaultValue: Static<Schema> | (() => Static<Schema>);
  description: string;
  validate?: (sql: Db, value: Static<Schema>) => Promise<void>;
}): SettingDefinition<Schema> {
  const { defaultValue } = setting;
  return {
    ...setting,
    defaultValue:
      typeof defaultValue === 'function'
        ? (defaultValue as () => Static<Schema>)
        : () => structuredClone(defaultValue as Static<Schema>),
  };
}
