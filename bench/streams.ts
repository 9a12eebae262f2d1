// Many watchers: BENCH_STREAMS (default 1,000) dashboard streams held open at once by one hub process (`npm start`
// on its own data directory, the embedded database and the worker in-process, heartbeat and idle limits as
// configured by default). Reports the hub's extra resident memory with every stream open (target: under 50 MB over
// the hub before the streams) and, for BENCH_CHANGES (default 5) card changes (a backup run reported through the
// API), how long each stream took to get it (target: every stream within 1 s). Exit 1 when a target is missed.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { ownerToken, sleep, startHub, steadyRssMb } from './lib/hub.ts';

const streams = Number(process.env.BENCH_STREAMS ?? 1000);
const changes = Number(process.env.BENCH_CHANGES ?? 5);
const memoryTargetMb = 50;
const latencyTargetMs = 1000;

interface Watcher {
  /** When each backup run (by its target name) reached this stream. */
  seen: Map<string, number>;
  response: http.IncomingMessage;
}

/** One dashboard stream, resolved once its first backups card has come. */
function watch(agent: http.Agent, origin: string): Promise<Watcher> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${origin}/api/dashboard/stream`,
      { agent, headers: { authorization: `Bearer ${ownerToken}` } },
      (response) => {
        if (response.statusCode !== 200) {
          reject(new Error(`the stream answered ${response.statusCode}`));
          return;
        }
        const watcher: Watcher = { seen: new Map(), response };
        let buffer = '';
        let ready = false;
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          // Stamped as the chunk arrives; the check is cheap (no JSON parse), so a thousand streams' handling
          // adds little of the bench's own time to what it measures.
          const arrived = performance.now();
          buffer += chunk;
          for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            if (!block.startsWith('event: card\n') || !block.includes('"type":"backups"')) continue;
            // The runs of the card, newest first: each bench run's target name is new when it is reported.
            for (const [, target] of block.matchAll(/"name":"(bench-\d+)"/g)) {
              if (!watcher.seen.has(target)) watcher.seen.set(target, arrived);
            }
            if (!ready) {
              ready = true;
              resolve(watcher);
            }
          }
        });
      },
    );
    request.on('error', reject);
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

async function main(): Promise<boolean> {
  const hub = await startHub();
  try {
    const headers = { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' };
    // One stream first: the card sources start with the first watcher, so the baseline has them running.
    const agent = new http.Agent({ keepAlive: true, maxSockets: streams + 10 });
    const first = await watch(agent, hub.origin);
    await sleep(2000);
    const before = await steadyRssMb(hub.pid);

    const opening = performance.now();
    const watchers = [first];
    for (let start = 1; start < streams; start += 100) {
      const batch = Math.min(100, streams - start);
      watchers.push(...(await Promise.all(Array.from({ length: batch }, () => watch(agent, hub.origin)))));
    }
    const openedMs = performance.now() - opening;
    await sleep(3000);
    const held = await steadyRssMb(hub.pid);
    const extra = held - before;

    const latencies: number[] = [];
    for (let change = 0; change < changes; change++) {
      const target = `bench-${change}`;
      const at = new Date(Date.UTC(2026, 0, 1, 0, change)).toISOString();
      const sent = performance.now();
      const response = await fetch(`${hub.origin}/api/backups`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          started_at: at,
          finished_at: at,
          status: 'ok',
          target: { name: target, free_bytes: 1, total_bytes: 2 },
          guests: [],
        }),
      });
      if (response.status !== 201) throw new Error(`POST /api/backups answered ${response.status}`);
      const deadline = sent + 10_000;
      while (watchers.some((watcher) => !watcher.seen.has(target)) && performance.now() < deadline) {
        await sleep(20);
      }
      for (const watcher of watchers) latencies.push((watcher.seen.get(target) ?? Infinity) - sent);
      await sleep(500);
    }
    const after = await steadyRssMb(hub.pid);
    for (const watcher of watchers) watcher.response.destroy();
    agent.destroy();

    latencies.sort((a, b) => a - b);
    const worst = latencies[latencies.length - 1];
    const missed = latencies.filter((ms) => ms > latencyTargetMs).length;
    console.log(`# ${streams} dashboard streams held by one hub process (${await hub.command()})`);
    console.log(`# opened in ${(openedMs / 1000).toFixed(1)} s, 100 at a time`);
    console.log('figure                                     measured      target');
    console.log(
      `extra resident memory, ${streams} streams`.padEnd(40) +
        `${extra.toFixed(1)} MB`.padStart(12) +
        `   < ${memoryTargetMb} MB${extra < memoryTargetMb ? '' : '  MISSED'}`,
    );
    console.log(`#   hub ${before.toFixed(1)} MB with one stream, ${held.toFixed(1)} MB with ${streams}`);
    console.log(`#   ${after.toFixed(1)} MB after ${changes} card changes`);
    console.log(
      `card change to every stream, p50`.padEnd(40) +
        `${percentile(latencies, 50).toFixed(0)} ms`.padStart(12),
    );
    console.log(
      `card change to every stream, p99`.padEnd(40) +
        `${percentile(latencies, 99).toFixed(0)} ms`.padStart(12),
    );
    console.log(
      `card change to every stream, slowest`.padEnd(40) +
        `${Number.isFinite(worst) ? `${worst.toFixed(0)} ms` : 'never'}`.padStart(12) +
        `   < ${latencyTargetMs} ms${missed === 0 ? '' : `  MISSED (${missed} of ${latencies.length})`}`,
    );
    return extra < memoryTargetMb && missed === 0;
  } finally {
    await hub.stop();
  }
}

if (!(await main())) {
  console.error('a streams target was missed');
  process.exit(1);
}
