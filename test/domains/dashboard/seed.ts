// Card data recorded as the hub records it, for the stream and browser tests: a speed test the worker ran, a
// monitored service, a model use and a backup run as a backup job reports it.
import type { TestApp } from '../../helpers/app.ts';

type Hub = Pick<TestApp, 'sql' | 'asOwner'>;

/** A speed-test result as the worker writes it, `hoursAgo` before now. */
export async function recordSpeedTest(
  hub: Pick<Hub, 'sql'>,
  figures: { download: number; upload: number; ping: number; hoursAgo?: number },
): Promise<void> {
  await hub.sql`
    insert into speedtest_results (trigger, status, measured_at, download_mbps, upload_mbps, ping_ms)
    values ('schedule', 'ok', now() - make_interval(hours => ${figures.hoursAgo ?? 0}), ${figures.download},
      ${figures.upload}, ${figures.ping})`;
}

/** A TCP service "Router" in the "Network" category, not checked yet; its id. */
export async function addRouter(hub: Hub): Promise<string> {
  const response = await hub.asOwner({
    method: 'POST',
    url: '/api/health/services',
    payload: { name: 'Router', category: 'Network', kind: 'tcp', host: '127.0.0.1', port: 9 },
  });
  if (response.statusCode !== 201) throw new Error(`adding the service answered ${response.statusCode}`);
  return response.json().id;
}

/** A model use reported to the hub. */
export async function recordUsage(hub: Hub, tokens: { input: number; output: number }): Promise<void> {
  const response = await hub.asOwner({
    method: 'POST',
    url: '/api/ai-usage/records',
    payload: {
      source: 'assistant',
      model: 'claude-sonnet',
      input_tokens: tokens.input,
      output_tokens: tokens.output,
    },
  });
  if (response.statusCode !== 201) throw new Error(`reporting the use answered ${response.statusCode}`);
}

/** A successful backup run to the target "nas", as `POST /api/backups` takes it. */
export const backupRun = {
  started_at: '2026-11-22T02:00:00Z',
  finished_at: '2026-11-22T02:10:00Z',
  status: 'ok',
  target: { name: 'nas', free_bytes: 1, total_bytes: 2 },
  guests: [],
} as const;
