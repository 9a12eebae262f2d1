// Health-check benchmark: one health.check round over 200 monitored services (160 HTTP with a keyword, 40 TCP)
// against local servers on loopback, through the real executor: each check, its result row, the cached status and
// any state change written in its own transaction. Prints checks per second and the time of the whole round for each
// concurrency setting (HEALTH_CHECK_CONCURRENCY).
//
// Database: as bench/capture.ts (an embedded scratch cluster, or a scratch database next to DATABASE_URL).
// Sizes: BENCH_HEALTH_SERVICES (200), BENCH_HEALTH_ROUNDS (3 per setting), BENCH_HEALTH_CONCURRENCY ("4,16,64").
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { loadConfig } from '../config/index.ts';
import { checkDefinition } from '../domains/health/definition.ts';
import { checkServices } from '../domains/health/jobs.ts';
import { insertService } from '../domains/health/store.ts';
import { createSql, endSql } from '../lib/db.ts';
import { migrate } from '../lib/migrate.ts';
import { scratchDatabase } from './lib/database.ts';

const sizes = {
  services: Number(process.env.BENCH_HEALTH_SERVICES ?? 200),
  rounds: Number(process.env.BENCH_HEALTH_ROUNDS ?? 3),
  concurrency: (process.env.BENCH_HEALTH_CONCURRENCY ?? '4,16,64').split(',').map(Number),
};

function listen(server: net.Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port)),
  );
}

async function main() {
  const db = await scratchDatabase('health');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-bench-health-data-'));
  // Ten web servers and one TCP listener per TCP service on loopback stand in for the LAN's services.
  const tcpCount = Math.round(sizes.services / 5);
  const webServers = Array.from({ length: 10 }, () =>
    http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<!doctype html><title>Service</title><p>status: healthy</p>');
    }),
  );
  const tcpServers = Array.from({ length: tcpCount }, () => net.createServer((socket) => socket.end()));
  const webPorts = await Promise.all(webServers.map(listen));
  const tcpPorts = await Promise.all(tcpServers.map(listen));
  try {
    const setup = postgres(db.url, { max: 1, onnotice: () => undefined });
    await migrate(setup);
    await setup.end();
    const maxConcurrency = Math.max(...sizes.concurrency);
    const sql = createSql(db.url, { warn: () => undefined }, Math.min(maxConcurrency, 32) + 2);
    for (let i = 0; i < sizes.services; i++) {
      const { definition } =
        i < sizes.services - tcpCount
          ? checkDefinition({
              name: `web ${i}`,
              kind: 'http',
              url: `http://127.0.0.1:${webPorts[i % webPorts.length]}/service/${i}`,
              keyword: 'healthy',
              category: `group ${i % 8}`,
            })
          : checkDefinition({
              name: `tcp ${i}`,
              kind: 'tcp',
              host: '127.0.0.1',
              port: tcpPorts[i - (sizes.services - tcpCount)],
              category: 'tcp',
            });
      await insertService(sql, randomUUID(), definition, { credentials: null, headers: null });
    }
    console.log(
      `# ${sizes.services} services (${sizes.services - tcpCount} HTTP with keyword, ${tcpCount} TCP) on loopback, ` +
        `${sizes.rounds} rounds per setting; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
    );
    for (const concurrency of sizes.concurrency) {
      const config = loadConfig({
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
        HEALTH_CHECK_CONCURRENCY: String(concurrency),
      });
      // A warm-up round opens the keep-alive connections and the database pool.
      await checkServices({ sql, config }, {});
      const times: number[] = [];
      for (let round = 0; round < sizes.rounds; round++) {
        const summary = await checkServices({ sql, config }, {});
        if (summary.checked !== sizes.services || summary.up !== sizes.services) {
          throw new Error(`round checked ${summary.checked} services, ${summary.up} up`);
        }
        times.push(summary.ms);
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)];
      console.log(
        `concurrency ${String(concurrency).padStart(3)}: round ${median} ms (median of ${times.length}; ` +
          `best ${times[0]} ms)  ${((sizes.services / median) * 1000).toFixed(0)} checks/s`,
      );
    }
    await endSql(sql);
  } finally {
    for (const server of [...webServers, ...tcpServers]) server.close();
    for (const server of webServers) server.closeAllConnections();
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
