// SQL of speed-test results, and of the one run that may be pending at a time.
import type { Db } from '../../plugins/db.ts';
import type { Measurement } from './parse.ts';
import type { SpeedtestResult, Summary } from './schema.ts';

const columns = (sql: Db) => sql`
  id, job_id, trigger, status, measured_at, download_mbps, upload_mbps, ping_ms, jitter_ms, packet_loss_pct,
  server_id, server_name, server_location, server_host, isp, result_url, bytes_sent, bytes_received, format,
  below_threshold, error`;

export interface NewResult {
  job_id: string | null;
  trigger: 'manual' | 'schedule';
  measurement: Measurement | null;
  below_threshold: boolean;
  error: string | null;
  raw_output: string;
}

export async function insertResult(sql: Db, result: NewResult): Promise<SpeedtestResult> {
  const m = result.measurement;
  const [row] = await sql<SpeedtestResult[]>`
    insert into speedtest_results (
      job_id, trigger, status, measured_at, download_mbps, upload_mbps, ping_ms, jitter_ms, packet_loss_pct,
      server_id, server_name, server_location, server_host, isp, result_url, bytes_sent, bytes_received, format,
      below_threshold, error, raw_output)
    values (
      ${result.job_id}, ${result.trigger}, ${m ? 'ok' : 'failed'}, ${m?.measured_at ?? new Date()},
      ${m?.download_mbps ?? null}, ${m?.upload_mbps ?? null}, ${m?.ping_ms ?? null}, ${m?.jitter_ms ?? null},
      ${m?.packet_loss_pct ?? null}, ${m?.server_id ?? null}, ${m?.server_name ?? null},
      ${m?.server_location ?? null}, ${m?.server_host ?? null}, ${m?.isp ?? null}, ${m?.result_url ?? null},
      ${m?.bytes_sent ?? null}, ${m?.bytes_received ?? null}, ${m?.format ?? null}, ${result.below_threshold},
      ${result.error}, ${result.raw_output})
    returning ${columns(sql)}`;
  return row;
}

export interface Range {
  since?: Date;
  until?: Date;
}

function within(sql: Db, range: Range) {
  return sql`
    where true
    ${range.since ? sql`and measured_at >= ${range.since}` : sql``}
    ${range.until ? sql`and measured_at < ${range.until}` : sql``}`;
}

export async function listResults(
  sql: Db,
  range: Range,
  page: { limit: number; offset: number },
): Promise<SpeedtestResult[]> {
  return sql<SpeedtestResult[]>`
    select ${columns(sql)} from speedtest_results ${within(sql, range)}
    order by measured_at desc, id desc limit ${page.limit} offset ${page.offset}`;
}

export async function latestResult(sql: Db): Promise<SpeedtestResult | undefined> {
  const [row] = await sql<SpeedtestResult[]>`
    select ${columns(sql)} from speedtest_results order by measured_at desc, id desc limit 1`;
  return row;
}

/** Count, failures and the spread of each figure over the successful runs of the range. */
export async function summarise(sql: Db, range: Range): Promise<Summary> {
  const [row] = await sql<Record<string, number | null>[]>`
    select count(*)::int as count,
      count(*) filter (where status = 'failed')::int as failures,
      count(*) filter (where below_threshold)::int as below_threshold,
      min(download_mbps) as download_min, max(download_mbps) as download_max,
      percentile_cont(0.5) within group (order by download_mbps) as download_median,
      min(upload_mbps) as upload_min, max(upload_mbps) as upload_max,
      percentile_cont(0.5) within group (order by upload_mbps) as upload_median,
      min(ping_ms) as ping_min, max(ping_ms) as ping_max,
      percentile_cont(0.5) within group (order by ping_ms) as ping_median
    from speedtest_results ${within(sql, range)}`;
  const spread = (name: string) => ({
    min: row[`${name}_min`] ?? null,
    median: row[`${name}_median`] ?? null,
    max: row[`${name}_max`] ?? null,
  });
  return {
    count: row.count ?? 0,
    failures: row.failures ?? 0,
    below_threshold: row.below_threshold ?? 0,
    download_mbps: spread('download'),
    upload_mbps: spread('upload'),
    ping_ms: spread('ping'),
  };
}

/**
 * The job of a speed test queued or running now, if any. Called under startRunLock, so concurrent requests see the
 * one run the first of them started.
 */
export async function activeRunJob(sql: Db, task: string): Promise<string | undefined> {
  const [row] = await sql<{ id: string }[]>`
    select id::text from job_records
    where task = ${task} and state in ('queued', 'running')
    order by created_at desc limit 1`;
  return row?.id;
}

/** Serialises starting runs (a transaction-level advisory lock, released at commit). */
export async function startRunLock(sql: Db, task: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${task}))`;
}
