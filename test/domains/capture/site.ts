// A web site on loopback for the capture inbox tests: an article that is always there, and a log page that is
// missing (404, a permanent failure) on the first request and served once `back` resolves, so a retried capture
// succeeds.
import type { Sql } from 'postgres';
import { startUpstream, type Upstream } from '../../helpers/upstream.ts';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export const greenhouse = {
  path: '/greenhouse',
  title: 'Watering the greenhouse',
  html:
    '<html><head><title>Watering the greenhouse</title></head><body><article><h1>Watering the greenhouse</h1>' +
    '<p>Drip lines run at dawn for twenty minutes; the tomatoes get a second round in July.</p>' +
    '<p>The rain barrel feeds the pump, so the mains stay closed all summer long.</p></article></body></html>',
};

export const greenhouseLog = {
  path: '/log',
  title: 'Greenhouse log',
  markdown: '# Greenhouse log\n\nThe vents opened at 24 degrees all week.',
};

export function captureSite(t: Teardown, back: Promise<void> = Promise.resolve()): Promise<Upstream> {
  let logRequests = 0;
  return startUpstream(t, async (request, response) => {
    if (request.url === greenhouse.path) {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(greenhouse.html);
      return;
    }
    logRequests++;
    if (logRequests === 1) {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not here');
      return;
    }
    await back;
    response.writeHead(200, { 'content-type': 'text/markdown' });
    response.end(greenhouseLog.markdown);
  });
}

/**
 * Waits until the worker has let go of a job it finished: a failed job stays locked for a moment after its record
 * says failed, and a retry asked for meanwhile is refused as still running.
 */
export async function released(sql: Sql, jobId: string): Promise<void> {
  for (;;) {
    const [job] = await sql<{ locked: boolean }[]>`
      select locked_at is not null as locked from graphile_worker.jobs where id = ${jobId}`;
    if (!job?.locked) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
