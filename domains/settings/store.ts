// The generic app_settings key/value store; other domains keep their settings here under their own key.
import type { Db } from '../../plugins/db.ts';

export interface SettingRow {
  key: string;
  value: unknown;
  updated_at: Date;
  /** Raised by every change (its ETag). */
  version: number;
}

export async function listSettings(sql: Db): Promise<SettingRow[]> {
  return sql<SettingRow[]>`select key, value, updated_at, version from app_settings order by key`;
}

export async function getSetting<T>(sql: Db, key: string): Promise<T | undefined> {
  const [row] = await sql<{ value: T }[]>`select value from app_settings where key = ${key}`;
  return row?.value;
}

/** Any JSON value, null included (a json-typed parameter would turn null into SQL NULL; sent as text it stays JSON). */
export async function putSetting(sql: Db, key: string, value: unknown): Promise<SettingRow> {
  const [row] = await sql<SettingRow[]>`
    insert into app_settings (key, value) values (${key}, ${JSON.stringify(value)}::text::jsonb)
    on conflict (key) do update set value = excluded.value, updated_at = now()
    returning key, value, updated_at, version`;
  return row;
}

/** A setting with its version; `lock` holds the row until the transaction ends (a conditional write). */
export async function findSettingRow(sql: Db, key: string, lock = false): Promise<SettingRow | undefined> {
  const [row] = await sql<SettingRow[]>`
    select key, value, updated_at, version from app_settings where key = ${key}
    ${lock ? sql`for update` : sql``}`;
  return row;
}

/** Stores `value` unless the key has one already; returns what is stored now either way. */
export async function initSetting(sql: Db, key: string, value: unknown): Promise<unknown> {
  const [row] = await sql<{ value: unknown }[]>`
    with inserted as (
      insert into app_settings (key, value) values (${key}, ${JSON.stringify(value)}::text::jsonb)
      on conflict (key) do nothing
      returning value
    )
    select value from inserted
    union all
    select value from app_settings where key = ${key} and not exists (select 1 from inserted)`;
  return row?.value;
}

export async function deleteSetting(sql: Db, key: string): Promise<boolean> {
  const result = await sql`delete from app_settings where key = ${key}`;
  return result.count > 0;
}
