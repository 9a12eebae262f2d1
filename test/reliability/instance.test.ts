// One service per data directory, and the embedded database stopped whatever ends the service: real `node main.ts`
// processes on their own data directory.

import { readFile } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import t from 'tap';
import { freePort, processAlive, processes, until } from '../helpers/process.ts';

const procs = processes(t);
const dataDir = await procs.dataDir();

async function postmasterPid(): Promise<number> {
  const text = await readFile(path.join(dataDir, 'postgres', 'data', 'postmaster.pid'), 'utf8');
  return Number(text.split('\n')[0]);
}

t.test('a second start on a data directory in use refuses and touches nothing', async (t) => {
  const first = await procs.startService({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  const postmaster = await postmasterPid();
  const second = procs.spawn('main.ts', {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    HOST: '127.0.0.1',
  });
  t.same(await second.exited, { code: 1, signal: null }, 'the second start exits 1');
  t.equal(
    second.output().trim(),
    `DATA_DIR ${dataDir} is in use by process ${first.child.pid}`,
    'with one line naming the process',
  );
  t.equal(await postmasterPid(), postmaster, "the first service's database is the same server");
  t.ok(processAlive(postmaster));
  t.equal((await fetch(`${first.url}/api/readyz`)).status, 200, 'the first service is still ready');

  const worker = procs.spawn('worker/main.ts', { DATA_DIR: dataDir, LOG_LEVEL: 'info' });
  await worker.waitForOutput(/worker running/);
  t.pass('npm run worker beside a live service is allowed');
  worker.process.kill('SIGINT');
  t.same(await worker.exited, { code: 0, signal: null });

  first.child.process.kill('SIGKILL');
  await first.child.exited;
  const next = await procs.startService({ DATA_DIR: dataDir, LOG_LEVEL: 'warn' });
  t.equal((await fetch(`${next.url}/api/readyz`)).status, 200, 'the lock of a killed process is taken over');
  next.child.process.kill('SIGINT');
  t.same(await next.child.exited, { code: 0, signal: null });
});

t.test('shutdown: healthz 503 while draining; a second signal still stops the database', async (t) => {
  const hub = await procs.startService({ DATA_DIR: dataDir, LOG_LEVEL: 'info', SHUTDOWN_DRAIN_MS: '3000' });
  const postmaster = await postmasterPid();
  hub.child.process.kill('SIGTERM');
  await hub.child.waitForOutput(/shutting down/);
  const health = await until('healthz to answer 503', async () => {
    const status = await new Promise<number>((resolve) => {
      http
        .get(`${hub.url}/api/healthz`, { agent: false }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        })
        .on('error', () => resolve(0));
    });
    return status === 503 ? status : undefined;
  });
  t.equal(health, 503, 'liveness answers 503 once shutdown has begun');
  t.notMatch(hub.child.output(), /"url":"\/api\/(readyz|healthz)"/, 'readiness polls are not logged at info');
  // A second signal cuts the graceful shutdown short; the database must not be left running.
  hub.child.process.kill('SIGTERM');
  await hub.child.exited;
  await until('the postmaster to exit', async () => (processAlive(postmaster) ? undefined : true), 10_000);
  t.pass('the embedded database is stopped');
});
