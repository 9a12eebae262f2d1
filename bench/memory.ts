// Memory benchmark: a real hub process (`npm start`, with its own data directory and the embedded database), the
// resident set of its Node process (VmRSS of /proc/<pid>/status) idle after start, at its peak under a load
// of cached reads over real HTTP (several GET routes, BENCH_CONCURRENCY at a time for BENCH_LOAD_SECONDS), and again
// BENCH_SETTLE_SECONDS after the load stops. Targets (exit 1 otherwise): idle at most 100 MB, and after the load
// within 20% of idle. Linux only (/proc).
//
// Sizes: BENCH_LOAD_SECONDS (default 15), BENCH_CONCURRENCY (8), BENCH_SETTLE_SECONDS (10); BENCH_ROUTES (comma-separated
// paths) loads only those, to tell which route's memory stays.
import { Pool } from 'undici';
import { mb, ownerToken, peakSampler, rssMb, sleep, startHub, steadyRssMb } from './lib/hub.ts';

const loadSeconds = Number(process.env.BENCH_LOAD_SECONDS ?? 15);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 8);
const settleSeconds = Number(process.env.BENCH_SETTLE_SECONDS ?? 10);
const idleTarget = 100;
const afterLoadMargin = 0.2;
const routes = process.env.BENCH_ROUTES?.split(',') ?? [
  '/api/theme',
  '/api/spaces',
  '/api/search?q=memory',
  '/api/dashboard/layout',
  '/api/icons/github.png?size=64',
  '/api/settings',
];

async function main(): Promise<boolean> {
  const hub = await startHub();
  const { origin, pid } = hub;
  try {
    await sleep(settleSeconds * 1000);
    const idle = await steadyRssMb(pid);

    const pool = new Pool(origin, { connections: concurrency });
    const headers = { authorization: `Bearer ${ownerToken}` };
    // One pass first: every route answers 200 and its cache (the icon render, the theme) is filled.
    for (const route of routes) {
      const response = await pool.request({ method: 'GET', path: route, headers });
      await response.body.arrayBuffer();
      if (response.statusCode !== 200) throw new Error(`${route} answered ${response.statusCode}`);
    }
    let requests = 0;
    const deadline = performance.now() + loadSeconds * 1000;
    const sampler = peakSampler(pid);
    await Promise.all(
      Array.from({ length: concurrency }, async (_, worker) => {
        for (let i = worker; performance.now() < deadline; i++) {
          const route = routes[i % routes.length];
          const response = await pool.request({ method: 'GET', path: route, headers });
          await response.body.arrayBuffer();
          if (response.statusCode !== 200) throw new Error(`${route} answered ${response.statusCode}`);
          requests++;
        }
      }),
    );
    const peak = Math.max(await sampler.stop(), await rssMb(pid));
    await pool.close();
    await sleep(settleSeconds * 1000);
    const after = await steadyRssMb(pid);

    const idleOk = idle <= idleTarget;
    const afterOk = after <= idle * (1 + afterLoadMargin);
    console.log(`npm start: ${await hub.command()} (embedded database)`);
    console.log(
      `idle after start (+${settleSeconds} s)   ${mb(idle)}  target <= ${idleTarget} MB: ${idleOk ? 'ok' : 'MISSED'}`,
    );
    console.log(
      `peak under load            ${mb(peak)}  (${requests} cached GETs over ${routes.length} routes in ${loadSeconds} s, concurrency ${concurrency})`,
    );
    console.log(
      `${settleSeconds} s after the load       ${mb(after)}  target <= ${mb(idle * (1 + afterLoadMargin))} (idle + 20%): ${afterOk ? 'ok' : 'MISSED'}`,
    );
    return idleOk && afterOk;
  } finally {
    await hub.stop();
  }
}

main().then(
  (ok) => process.exit(ok ? 0 : 1),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
