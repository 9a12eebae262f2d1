// Host figures from the process and system filesystems (HOST_PROC, HOST_SYS: a container reads the host's through
// bind mounts). Pure reading and arithmetic; the sampler decides when.
import { readdir, readFile, statfs } from 'node:fs/promises';
import path from 'node:path';

export interface CpuTimes {
  idle: number;
  total: number;
}

export interface NetCounters {
  [iface: string]: { rx: number; tx: number };
}

export interface RawSample {
  at: number;
  cpu: CpuTimes;
  net: NetCounters;
}

/** The aggregate `cpu` line of /proc/stat: idle (idle + iowait) and total jiffies. */
export function parseCpu(stat: string): CpuTimes {
  const line = stat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('no cpu line in stat');
  const fields = line.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal; guest and guest_nice are already counted in user and nice.
  const [user, nice, system, idle, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  return { idle: idle + iowait, total: user + nice + system + idle + iowait + irq + softirq + steal };
}

export function cpuPercent(before: CpuTimes, after: CpuTimes): number | null {
  const total = after.total - before.total;
  if (total <= 0) return null;
  return round(100 * (1 - (after.idle - before.idle) / total), 1);
}

/** Receive and transmit byte counters per interface, loopback left out. */
export function parseNetDev(text: string): NetCounters {
  const counters: NetCounters = {};
  for (const line of text.split('\n').slice(2)) {
    const match = /^\s*([^:\s]+):\s*(.*)$/.exec(line);
    if (!match || match[1] === 'lo') continue;
    const fields = match[2].trim().split(/\s+/).map(Number);
    counters[match[1]] = { rx: fields[0], tx: fields[8] };
  }
  return counters;
}

export function parseMeminfo(text: string): Record<string, number> {
  const values: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const match = /^(\w+(?:\(\w+\))?):\s+(\d+)(?:\s+kB)?/.exec(line);
    if (match) values[match[1]] = Number(match[2]) * (line.includes('kB') ? 1024 : 1);
  }
  return values;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

function percent(used: number, total: number): number | null {
  return total > 0 ? round((100 * used) / total, 1) : null;
}

export async function rawSample(proc: string, at = Date.now()): Promise<RawSample> {
  const [stat, dev] = await Promise.all([
    readFile(path.join(proc, 'stat'), 'utf8'),
    readFile(path.join(proc, 'net/dev'), 'utf8').catch(() => ''),
  ]);
  return { at, cpu: parseCpu(stat), net: parseNetDev(dev) };
}

async function readOptional(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return null;
  }
}

async function entries(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).sort();
  } catch {
    return [];
  }
}

/** Temperatures in °C from thermal zones and hwmon sensors, where the system has them. */
export async function temperatures(sys: string): Promise<{ sensor: string; celsius: number }[]> {
  const found: { sensor: string; celsius: number }[] = [];
  const thermal = path.join(sys, 'class/thermal');
  for (const zone of (await entries(thermal)).filter((name) => name.startsWith('thermal_zone'))) {
    const temp = await readOptional(path.join(thermal, zone, 'temp'));
    const type = (await readOptional(path.join(thermal, zone, 'type')))?.trim() || zone;
    if (temp !== null && Number.isFinite(Number(temp)))
      found.push({ sensor: type, celsius: Number(temp) / 1000 });
  }
  const hwmon = path.join(sys, 'class/hwmon');
  for (const device of await entries(hwmon)) {
    const dir = path.join(hwmon, device);
    const name = (await readOptional(path.join(dir, 'name')))?.trim() || device;
    for (const input of (await entries(dir)).filter((file) => /^temp\d+_input$/.test(file))) {
      const temp = await readOptional(path.join(dir, input));
      const label = (await readOptional(path.join(dir, input.replace('_input', '_label'))))?.trim();
      if (temp !== null && Number.isFinite(Number(temp))) {
        found.push({
          sensor: `${name} ${label ?? input.replace('_input', '')}`,
          celsius: Number(temp) / 1000,
        });
      }
    }
  }
  return found;
}

export async function disks(mounts: string[]) {
  return Promise.all(
    mounts.map(async (mount) => {
      try {
        const fs = await statfs(mount);
        const total = fs.blocks * fs.bsize;
        const used = (fs.blocks - fs.bfree) * fs.bsize;
        const available = fs.bavail * fs.bsize;
        // As df: the share of what ordinary users can fill (used + available), not of the raw size.
        return {
          mount,
          total_bytes: total,
          used_bytes: used,
          available_bytes: available,
          percent: percent(used, used + available),
        };
      } catch {
        return {
          mount,
          total_bytes: null,
          used_bytes: null,
          available_bytes: null,
          percent: null,
          error: 'not readable',
        };
      }
    }),
  );
}

/** The card's figures from two raw samples and the slower-changing files. */
export async function hostFigures(
  options: { proc: string; sys: string; mounts: string[] },
  before: RawSample,
  after: RawSample,
) {
  const [loadavg, meminfo, uptime, temps, disk] = await Promise.all([
    readOptional(path.join(options.proc, 'loadavg')),
    readFile(path.join(options.proc, 'meminfo'), 'utf8'),
    readOptional(path.join(options.proc, 'uptime')),
    temperatures(options.sys),
    disks(options.mounts),
  ]);
  const load = (loadavg ?? '').trim().split(/\s+/).slice(0, 3).map(Number);
  const mem = parseMeminfo(meminfo);
  const memTotal = mem.MemTotal ?? 0;
  // MemAvailable since Linux 3.14; before it, free + buffers + cache is the nearest figure.
  const memAvailable = mem.MemAvailable ?? (mem.MemFree ?? 0) + (mem.Buffers ?? 0) + (mem.Cached ?? 0);
  const swapTotal = mem.SwapTotal ?? 0;
  const swapUsed = swapTotal - (mem.SwapFree ?? 0);
  const seconds = (after.at - before.at) / 1000;
  const network = Object.entries(after.net).map(([iface, now]) => {
    const then = before.net[iface];
    const rate = (a: number, b: number | undefined) =>
      b === undefined || seconds <= 0 || a < b ? null : round((a - b) / seconds, 1);
    return {
      interface: iface,
      rx_bytes_per_second: rate(now.rx, then?.rx),
      tx_bytes_per_second: rate(now.tx, then?.tx),
      rx_bytes: now.rx,
      tx_bytes: now.tx,
    };
  });
  return {
    cpu_percent: cpuPercent(before.cpu, after.cpu),
    load:
      load.length === 3 && load.every(Number.isFinite)
        ? { '1m': load[0], '5m': load[1], '15m': load[2] }
        : null,
    memory: {
      total_bytes: memTotal,
      used_bytes: memTotal - memAvailable,
      available_bytes: memAvailable,
      percent: percent(memTotal - memAvailable, memTotal),
    },
    swap: { total_bytes: swapTotal, used_bytes: swapUsed, percent: percent(swapUsed, swapTotal) },
    disks: disk,
    network,
    uptime_seconds: uptime ? Math.floor(Number(uptime.trim().split(/\s+/)[0])) : null,
    temperatures: temps,
    sampled_over_seconds: round(seconds, 2),
  };
}
export type HostFigures = Awaited<ReturnType<typeof hostFigures>>;
