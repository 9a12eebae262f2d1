// Shared steps of the domain tests: create through REST as the owner, count rows, approve a change.
import type { TestApp } from './app.ts';

export type Json = Record<string, unknown>;

/** Creates something as the owner through REST; the response body. */
export async function owned(ta: TestApp, url: string, payload: Json): Promise<{ id: string } & Json> {
  const response = await ta.asOwner({ method: 'POST', url, payload });
  if (response.statusCode !== 201) throw new Error(`POST ${url} failed: ${response.body}`);
  return response.json();
}

export async function count(ta: TestApp, table: string): Promise<number> {
  const [row] = await ta.sql<{ n: number }[]>`select count(*)::int as n from ${ta.sql(table)}`;
  return row.n;
}

export function approve(ta: TestApp, id: string) {
  return ta.asOwner({ method: 'POST', url: `/api/pending-changes/${id}/approve` });
}
