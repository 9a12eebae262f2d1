// A real HTTP receiver on loopback standing in for ALERT_URL (JSON alerts): it keeps each alert's body, parsed.
import type { Sql } from '../../plugins/db.ts';
import { until } from './process.ts';
import { startUpstream } from './upstream.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface ReceivedAlert {
  event: string;
  title: string;
  message: string;
  priority: number;
  [field: string]: unknown;
}

export async function startAlertReceiver(t: Teardown) {
  const upstream = await startUpstream(t, (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  return {
    url: `${upstream.url}/alerts`,
    /** Alerts received so far, oldest first. */
    alerts: (): ReceivedAlert[] => upstream.requests.map((request) => JSON.parse(request.body)),
    /** Forgets the alerts received so far. */
    clear: () => {
      upstream.requests.length = 0;
    },
  };
}

/** A web app on loopback whose paths answer 200, or 503 while named in `failing`. */
export async function startFlakyServer(t: Teardown) {
  const failing = new Set<string>();
  const upstream = await startUpstream(t, (request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (failing.has(path) || failing.has('*')) response.writeHead(503).end('unavailable');
    else response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  return { url: upstream.url, failing };
}

/**
 * Waits until every alert delivery queued so far was sent or given up: the app's worker (`testApp(t, { worker:
 * true })`) sends them in their own jobs.
 */
export async function alertsDelivered(sql: Sql): Promise<void> {
  await until('the queued alert deliveries to be sent', async () => {
    const [pending] = await sql<{ n: number }[]>`
      select count(*)::int as n from alert_deliveries where status in ('queued', 'retrying')`;
    return pending.n === 0 ? true : undefined;
  });
}
