// SQL of the integrations table: one row per configured kind, its secrets sealed (lib/secrets.ts).
import type { Db } from '../../plugins/db.ts';
import type { TestResult } from './schema.ts';

export interface IntegrationRow {
  kind: string;
  fields: Record<string, unknown>;
  /** Field name to sealed value. */
  secrets: Record<string, string>;
  last_test: TestResult | null;
  updated_at: Date;
}

export async function listIntegrationRows(sql: Db): Promise<IntegrationRow[]> {
  return sql<IntegrationRow[]>`
    select kind, fields, secrets, last_test, updated_at from integrations order by kind`;
}

export async function findIntegrationRow(sql: Db, kind: string): Promise<IntegrationRow | undefined> {
  const [row] = await sql<IntegrationRow[]>`
    select kind, fields, secrets, last_test, updated_at from integrations where kind = ${kind}`;
  return row;
}

export async function saveIntegrationRow(
  sql: Db,
  row: Pick<IntegrationRow, 'kind' | 'fields' | 'secrets' | 'last_test'>,
): Promise<IntegrationRow> {
  const [saved] = await sql<IntegrationRow[]>`
    insert into integrations (kind, fields, secrets, last_test)
    values (${row.kind}, ${sql.json(row.fields as never)}, ${sql.json(row.secrets)},
            ${row.last_test === null ? null : sql.json(row.last_test as never)})
    on conflict (kind) do update
      set fields = excluded.fields, secrets = excluded.secrets, last_test = excluded.last_test, updated_at = now()
    returning kind, fields, secrets, last_test, updated_at`;
  return saved;
}

export async function recordIntegrationTest(sql: Db, kind: string, result: TestResult): Promise<void> {
  await sql`update integrations set last_test = ${sql.json(result as never)} where kind = ${kind}`;
}

/** The latest test of each integration the environment sets, by kind. */
export async function environmentTests(sql: Db): Promise<Map<string, TestResult>> {
  const rows = await sql<{ kind: string; last_test: TestResult }[]>`
    select kind, last_test from integration_environment_tests`;
  return new Map(rows.map((row) => [row.kind, row.last_test]));
}

export async function recordEnvironmentTest(sql: Db, kind: string, result: TestResult): Promise<void> {
  await sql`
    insert into integration_environment_tests (kind, last_test) values (${kind}, ${sql.json(result as never)})
    on conflict (kind) do update set last_test = excluded.last_test, updated_at = now()`;
}

export async function deleteIntegrationRow(sql: Db, kind: string): Promise<boolean> {
  const result = await sql`delete from integrations where kind = ${kind}`;
  return result.count > 0;
}

/** Every row's sealed secrets; with `lock`, the rows stay locked until the transaction ends (key rotation). */
export async function sealedSecrets(
  sql: Db,
  options: { lock: boolean },
): Promise<Pick<IntegrationRow, 'kind' | 'secrets'>[]> {
  return sql<Pick<IntegrationRow, 'kind' | 'secrets'>[]>`
    select kind, secrets from integrations order by kind ${options.lock ? sql`for update` : sql``}`;
}

export async function replaceSecrets(sql: Db, kind: string, secrets: Record<string, string>): Promise<void> {
  await sql`update integrations set secrets = ${sql.json(secrets)} where kind = ${kind}`;
}
