// SQL of AI usage records: one per assistant turn, and one per report from another tool.
import type { Db } from '../../plugins/db.ts';
import type { ModelUsage, UsageRecord, UsageRecordInput } from './schema.ts';

export async function insertUsage(
  sql: Db,
  record: UsageRecordInput & { agent_id: string | null },
): Promise<UsageRecord> {
  const [row] = await sql<UsageRecord[]>`
    insert into ai_usage_records (agent_id, source, model, input_tokens, output_tokens, latency_ms, ok, local)
    values (${record.agent_id}, ${record.source}, ${record.model}, ${record.input_tokens}, ${record.output_tokens},
      ${record.latency_ms ?? null}, ${record.ok ?? true}, ${record.local ?? false})
    returning id, agent_id, source, model, input_tokens, output_tokens, latency_ms, ok, local, created_at`;
  return row;
}

export interface Totals {
  input_tokens: number;
  output_tokens: number;
  requests: number;
}

/** Token totals since the start of today and of the 7 days ending today, in `timeZone`. */
export async function totals(sql: Db, timeZone: string): Promise<{ today: Totals; week: Totals }> {
  const [row] = await sql<Record<string, number>[]>`
    with bounds as (
      select date_trunc('day', now() at time zone ${timeZone}) at time zone ${timeZone} as today
    )
    select
      coalesce(sum(input_tokens) filter (where created_at >= b.today), 0)::int as today_in,
      coalesce(sum(output_tokens) filter (where created_at >= b.today), 0)::int as today_out,
      (count(*) filter (where created_at >= b.today))::int as today_n,
      coalesce(sum(input_tokens), 0)::int as week_in,
      coalesce(sum(output_tokens), 0)::int as week_out,
      count(*)::int as week_n
    from bounds b left join ai_usage_records r on r.created_at >= b.today - interval '6 days'
    group by b.today`;
  return {
    today: { input_tokens: row.today_in, output_tokens: row.today_out, requests: row.today_n },
    week: { input_tokens: row.week_in, output_tokens: row.week_out, requests: row.week_n },
  };
}

/** Per model over the last 7 days, most tokens first. */
export async function perModel(sql: Db): Promise<ModelUsage[]> {
  return sql<ModelUsage[]>`
    select model, bool_or(local) as local, count(*)::int as requests,
      sum(input_tokens)::int as input_tokens, sum(output_tokens)::int as output_tokens,
      (count(*) filter (where not ok))::int as errors,
      ((count(*) filter (where not ok))::float8 / count(*)) as error_rate,
      percentile_cont(0.5) within group (order by latency_ms) as p50_latency_ms,
      percentile_cont(0.95) within group (order by latency_ms) as p95_latency_ms
    from ai_usage_records where created_at >= now() - interval '7 days'
    group by model order by sum(input_tokens + output_tokens) desc, model`;
}

/** Latency and errors of the local models over the last 7 days. */
export async function localModels(sql: Db) {
  const [row] = await sql<
    { requests: number; p50: number | null; p95: number | null; error_rate: number | null }[]
  >`
    select count(*)::int as requests,
      percentile_cont(0.5) within group (order by latency_ms) as p50,
      percentile_cont(0.95) within group (order by latency_ms) as p95,
      case when count(*) = 0 then null else (count(*) filter (where not ok))::float8 / count(*) end as error_rate
    from ai_usage_records where local and created_at >= now() - interval '7 days'`;
  return row;
}
