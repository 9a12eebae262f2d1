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

// The health checks' basic-auth passwords are sealed under the same key (domains/health/credentials.ts), so the key
// check at start and the key rotation cover them too.

/** Every health check's sealed password, by service id; with `lock`, the rows stay locked (key rotation). */
export async function sealedCheckPasswords(
  sql: Db,
  options: { lock: boolean },
): Promise<{ id: string; sealed: string }[]> {
  return sql<{ id: string; sealed: string }[]>`
    select id, basic_auth_sealed as sealed from monitored_services where basic_auth_sealed is not null
    order by id ${options.lock ? sql`for update` : sql``}`;
}

export async function replaceCheckPassword(sql: Db, id: string, sealed: string): Promise<void> {
  await sql`update monitored_services set basic_auth_sealed = ${sealed} where id = ${id}`;
}

/** The alert targets' sealed secrets (tokens, passwords, webhook secrets), by target; locked for a rotation. */
export async function sealedTargetSecrets(
  sql: Db,
  options: { lock: boolean },
): Promise<{ id: string; secrets: Record<string, string> }[]> {
  return sql<{ id: string; secrets: Record<string, string> }[]>`
    select id, secrets from alert_targets where secrets <> '{}'::jsonb
    order by id ${options.lock ? sql`for update` : sql``}`;
}

export async function replaceTargetSecrets(
  sql: Db,
  id: string,
  secrets: Record<string, string>,
): Promise<void> {
  await sql`update alert_targets set secrets = ${sql.json(secrets)} where id = ${id}`;
}

/** The health checks' sealed header values, by service: header name to sealed value. */
export async function sealedCheckHeaders(
  sql: Db,
  options: { lock: boolean },
): Promise<{ id: string; sealed: Record<string, string> }[]> {
  return sql<{ id: string; sealed: Record<string, string> }[]>`
    select id, headers_sealed as sealed from monitored_services where headers_sealed is not null
    order by id ${options.lock ? sql`for update` : sql``}`;
}

export async function replaceCheckHeaders(
  sql: Db,
  id: string,
  sealed: Record<string, string>,
): Promise<void> {
  await sql`update monitored_services set headers_sealed = ${sql.json(sealed)} where id = ${id}`;
}
