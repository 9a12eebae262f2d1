// The host card: figures from a fake HOST_PROC / HOST_SYS directory (exact values), once from the real /proc, and
// the sampler running only while someone reads.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { hostFigures, rawSample } from '../../../domains/host/metrics.ts';
import { HostSampler } from '../../../domains/host/sampler.ts';
import { testApp } from '../../helpers/app.ts';

const netDev = (
  eth0: [number, number],
  lo: [number, number],
) => `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: ${lo[0]}    1000    0    0    0     0          0         0 ${lo[1]}    1000    0    0    0     0       0          0
  eth0: ${eth0[0]}  2000    0    0    0     0          0         0 ${eth0[1]}   1500    0    0    0     0       0          0
`;

const stat = (user: number, idle: number) =>
  `cpu  ${user} 0 100 ${idle} 50 0 10 0 0 0\ncpu0 ${user} 0 100 ${idle} 50 0 10 0 0 0\nintr 1 2 3\nctxt 12345\nbtime 1700000000\n`;

const meminfo = `MemTotal:        8000000 kB
MemFree:         1000000 kB
MemAvailable:    6000000 kB
Buffers:          100000 kB
Cached:          2000000 kB
SwapTotal:       2000000 kB
SwapFree:        1500000 kB
`;

async function fakeHost(t: { teardown(fn: () => unknown): void }) {
  const root = await mkdtemp(path.join(os.tmpdir(), 'hub-host-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const proc = path.join(root, 'proc');
  const sys = path.join(root, 'sys');
  await mkdir(path.join(proc, 'net'), { recursive: true });
  await mkdir(path.join(sys, 'class/thermal/thermal_zone0'), { recursive: true });
  await mkdir(path.join(sys, 'class/hwmon/hwmon0'), { recursive: true });
  await writeFile(path.join(proc, 'stat'), stat(1000, 8000));
  await writeFile(path.join(proc, 'meminfo'), meminfo);
  await writeFile(path.join(proc, 'loadavg'), '0.52 0.58 0.61 2/467 12345\n');
  await writeFile(path.join(proc, 'uptime'), '86461.37 170000.00\n');
  await writeFile(path.join(proc, 'net/dev'), netDev([1_000_000, 500_000], [42, 42]));
  await writeFile(path.join(sys, 'class/thermal/thermal_zone0/temp'), '47000\n');
  await writeFile(path.join(sys, 'class/thermal/thermal_zone0/type'), 'x86_pkg_temp\n');
  await writeFile(path.join(sys, 'class/hwmon/hwmon0/name'), 'nvme\n');
  await writeFile(path.join(sys, 'class/hwmon/hwmon0/temp1_input'), '38850\n');
  await writeFile(path.join(sys, 'class/hwmon/hwmon0/temp1_label'), 'Composite\n');
  return { root, proc, sys };
}

t.test(
  'figures from a fake HOST_PROC: CPU from two samples, memory, swap, load, network rates, temperatures',
  async (t) => {
    const { proc, sys } = await fakeHost(t);
    const before = await rawSample(proc, 1_000);
    // Two seconds later: 300 more busy jiffies and 700 idle ones (30% busy); eth0 moved 2 MB in and 1 MB out.
    await writeFile(path.join(proc, 'stat'), stat(1300, 8700));
    await writeFile(path.join(proc, 'net/dev'), netDev([3_000_000, 1_500_000], [9999, 9999]));
    const after = await rawSample(proc, 3_000);
    const figures = await hostFigures({ proc, sys, mounts: ['/'] }, before, after);
    t.equal(figures.cpu_percent, 30, 'CPU over the interval, not since boot');
    t.same(figures.load, { '1m': 0.52, '5m': 0.58, '15m': 0.61 });
    t.same(figures.memory, {
      total_bytes: 8_000_000 * 1024,
      used_bytes: 2_000_000 * 1024,
      available_bytes: 6_000_000 * 1024,
      percent: 25,
    });
    t.same(figures.swap, { total_bytes: 2_000_000 * 1024, used_bytes: 500_000 * 1024, percent: 25 });
    t.same(
      figures.network,
      [
        {
          interface: 'eth0',
          rx_bytes_per_second: 1_000_000,
          tx_bytes_per_second: 500_000,
          rx_bytes: 3_000_000,
          tx_bytes: 1_500_000,
        },
      ],
      'loopback left out',
    );
    t.equal(figures.uptime_seconds, 86461);
    t.same(figures.temperatures, [
      { sensor: 'x86_pkg_temp', celsius: 47 },
      { sensor: 'nvme Composite', celsius: 38.85 },
    ]);
    t.equal(figures.disks[0].mount, '/');
    t.type(figures.disks[0].percent, 'number');
  },
);

t.test('GET /api/host reads HOST_PROC and HOST_SYS; unknown mounts are refused', async (t) => {
  const { proc, sys } = await fakeHost(t);
  const ta = await testApp(t, { env: { HOST_PROC: proc, HOST_SYS: sys, HOST_MOUNTS: `/,${os.tmpdir()}` } });
  const response = await ta.asOwner({ method: 'GET', url: '/api/host' });
  t.equal(response.statusCode, 200, response.body);
  const body = response.json();
  t.match(body, { memory: { percent: 25 }, load: { '1m': 0.52 }, uptime_seconds: 86461 });
  t.same(
    body.disks.map((disk: { mount: string }) => disk.mount),
    ['/', os.tmpdir()],
  );
  t.equal(body.temperatures.length, 2);
  const only = await ta.asOwner({
    method: 'GET',
    url: `/api/host?mounts=${encodeURIComponent(os.tmpdir())}`,
  });
  t.same(
    only.json().disks.map((disk: { mount: string }) => disk.mount),
    [os.tmpdir()],
  );
  const other = await ta.asOwner({ method: 'GET', url: '/api/host?mounts=/etc' });
  t.equal(other.statusCode, 400);
  t.match(other.json().message, /"\/etc" is not one of HOST_MOUNTS/);
});

t.test('a HOST_PROC without a proc filesystem is a 502 that names the setting, not a path', async (t) => {
  const empty = await mkdtemp(path.join(os.tmpdir(), 'hub-noproc-'));
  t.teardown(() => rm(empty, { recursive: true, force: true }));
  const ta = await testApp(t, { env: { HOST_PROC: empty } });
  const response = await ta.asOwner({ method: 'GET', url: '/api/host' });
  t.equal(response.statusCode, 502);
  t.match(response.json(), { code: 'HOST_METRICS_UNAVAILABLE', message: /HOST_PROC/ });
  t.notMatch(response.json().message, empty);
});

t.test('the real /proc: plausible figures', async (t) => {
  const ta = await testApp(t);
  const response = await ta.asOwner({ method: 'GET', url: '/api/host' });
  t.equal(response.statusCode, 200, response.body);
  const body = response.json();
  t.ok(
    body.cpu_percent === null || (body.cpu_percent >= 0 && body.cpu_percent <= 100),
    `cpu ${body.cpu_percent}`,
  );
  t.ok(body.memory.total_bytes > 0);
  t.ok(body.memory.used_bytes > 0 && body.memory.used_bytes < body.memory.total_bytes);
  t.ok(body.uptime_seconds > 0);
  t.equal(body.disks[0].mount, '/');
  t.ok(body.disks[0].total_bytes > 0);
  t.ok(body.load['1m'] >= 0);
  t.notOk(
    body.network.some((entry: { interface: string }) => entry.interface === 'lo'),
    'no loopback',
  );
});

t.test('the sampler runs only while someone reads', async (t) => {
  const { proc, sys } = await fakeHost(t);
  const seen: string[] = [];
  const sampler = new HostSampler({
    proc,
    sys,
    mounts: ['/'],
    intervalMs: 20,
    idleMs: 100,
    firstSpanMs: 5,
    watching: () => false,
    onFigures: (figures) => seen.push(figures.sampled_at),
  });
  t.teardown(() => sampler.close());
  t.notOk(sampler.running, 'nothing runs before the first read');
  await sampler.read();
  t.ok(sampler.running, 'a read starts it');
  // While someone keeps reading, samples keep coming in the background.
  for (let i = 0; i < 500 && seen.length < 3; i++) {
    await sampler.read();
    await sleep(10);
  }
  t.ok(seen.length >= 3, `it sampled in the background (${seen.length} samples)`);
  for (let i = 0; i < 500 && sampler.running; i++) await sleep(10);
  t.notOk(sampler.running, 'it stops after a quiet while');
  const count = seen.length;
  await sleep(100);
  t.equal(seen.length, count, 'nothing is sampled while nobody reads');
  await sampler.read();
  t.ok(sampler.running, 'the next read starts it again');
});
