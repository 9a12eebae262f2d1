import type { Db } from '../../plugins/db.ts';

export interface MetricsSnapshot {
  services: { name: string; category: string; state: string; latency_ms: number | null }[];
  devices: { status: string; present: boolean; count: number }[];
  jobs: { task: string; state: string; count: number }[];
}

/** What /api/metrics reports, read in one go. */
export async function metricsSnapshot(sql: Db): Promise<MetricsSnapshot> {
  const [services, devices, jobs] = await Promise.all([
    sql<MetricsSnapshot['services']>`
      select name, category, state, latency_ms from monitored_services
      where enabled and not discovered order by category, name`,
    sql<MetricsSnapshot['devices']>`
      select status, present, count(*)::int as count from lan_devices group by status, present`,
    sql<MetricsSnapshot['jobs']>`
      select task, state, count(*)::int as count from job_records group by task, state`,
  ]);
  return { services, devices, jobs };
}
