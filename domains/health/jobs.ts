// health.check: checks services (named ones, every enabled one, or on the recurring run those whose interval has
// passed) with bounded concurrency, keeps each result, moves states, records events, then judges outages and raises
// alerts (outage.ts; sent by their own jobs). discover.lan: the LAN sweep, its findings stored as disabled candidates.
// Recurring: a health.check of the due services every minute, and a follow-up run queued for the moment a service
// with an interval under a minute falls due again; results older than the retention setting are removed each run.
import { cronItem, type DomainCron, type DomainTask, type JobDeps, runs } from '../../worker/contract.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { maintenanceAt } from '../maintenance/windows.ts';
import { readSetting } from '../settings/registry.ts';
import { eachLimited, runCheck } from './checks.ts';
import { sealStoredPasswords, withCredentials } from './credentials.ts';
import { sweep } from './discovery.ts';
import { settleOutages } from './outage.ts';
import { checkHeartbeats } from './push.ts';
import { discoverLanTask, type HealthCheckPayload, healthCheckTask } from './schema.ts';
import { healthRetentionSetting } from './setting.ts';
import { nextStanding } from './state.ts';
import {
  type DueRow,
  nextDue,
  pruneResults,
  recordCheck,
  servicesToCheck,
  upsertCandidate,
} from './store.ts';

interface Log {
  info(message: string): void;
  warn(message: string): void;
}

const quiet: Log = { info: () => undefined, warn: () => undefined };

export interface RoundSummary {
  checked: number;
  up: number;
  down: number;
  changed: number;
  ms: number;
}

/** One round of checks. */
export async function checkServices(deps: JobDeps, payload: HealthCheckPayload): Promise<RoundSummary> {
  const started = performance.now();
  const services = await servicesToCheck(deps.sql, payload);
  // A password still in plaintext (the start could not seal it) is sealed on this first read.
  if (services.some((service) => service.basic_auth_password !== null)) {
    await sealStoredPasswords(deps.sql, deps.config.server);
  }
  const summary: RoundSummary = { checked: 0, up: 0, down: 0, changed: 0, ms: 0 };
  const maintenance = await maintenanceAt(deps.sql);
  await eachLimited(services, deps.config.health.checkConcurrency, async (row) => {
    const opened = await withCredentials(deps.config.server, row);
    const service: DueRow = 'unreadable' in opened ? opened.service : row;
    const outcome =
      'unreadable' in opened
        ? { ok: false, latency_ms: null, message: opened.unreadable }
        : await runCheck(opened);
    const recorded = await deps.sql.begin((tx) =>
      recordCheck(
        tx,
        service.id,
        outcome,
        (previous) => nextStanding(previous, outcome.ok, service.retries),
        maintenance.get(service.id)?.id ?? null,
      ),
    );
    if (!recorded) return; // Deleted meanwhile.
    summary.checked++;
    if (recorded.to === 'up') summary.up++;
    if (recorded.to === 'down') summary.down++;
    if (recorded.changed) summary.changed++;
  });
  // Push services are judged by what they sent (no network I/O): a missed heartbeat or an unfinished start is down.
  await checkHeartbeats(deps, payload.ids);
  // Alerts are decided once the round is over, not as each check ends: checks run concurrently, so a host and the
  // fifteen services on it fail in whatever order their time-outs fall, and judging each alone would alert the
  // services that happened to finish before their host. After the round every state is in, and outage.ts judges
  // them together, whatever the order. (A settle delay would also catch a host whose check comes in a later round,
  // at the cost of every alert's latency; a host check with retries should share its services' interval instead.)
  // The recurring run settles every minute even when nothing was due, so windows ending and outages of services
  // checked elsewhere are judged too.
  await settleOutages(deps);
  summary.ms = Math.round(performance.now() - started);
  return summary;
}

export async function discoverLan(deps: JobDeps, log: Log = quiet) {
  const { addresses, findings } = await sweep(deps.config);
  const counts = { addresses: addresses.length, open: findings.length, added: 0, updated: 0, skipped: 0 };
  await deps.sql.begin(async (tx) => {
    for (const finding of findings) counts[await upsertCandidate(tx, finding.definition)]++;
  });
  log.info(
    `discover.lan: ${counts.addresses} addresses, ${counts.open} open ports, ${counts.added} new candidates, ` +
      `${counts.updated} updated, ${counts.skipped} left alone (curated or dismissed)`,
  );
  return counts;
}

export const healthTasks: DomainTask[] = [
  runs(healthCheckTask, (deps) => async (payload, helpers) => {
    const log = { info: (m: string) => helpers.logger.info(m), warn: (m: string) => helpers.logger.warn(m) };
    const summary = await checkServices(deps, payload);
    log.info(
      `health.check: ${summary.checked} checked (${summary.up} up, ${summary.down} down) in ${summary.ms} ms`,
    );
    if (!payload.due) return;
    await pruneResults(deps.sql, await readSetting(deps.sql, healthRetentionSetting));
    // Services checked more often than once a minute: one follow-up run when the next falls due before the tick.
    const next = await nextDue(deps.sql);
    const tick = new Date();
    tick.setSeconds(60, 0);
    if (next && next < tick) {
      await enqueue(
        deps.sql,
        healthCheckTask,
        { due: true },
        {
          jobKey: 'health.check:follow-up',
          runAt: new Date(Math.max(next.getTime(), Date.now() + 1000)),
        },
      );
    }
  }),
  runs(discoverLanTask, (deps) => async (_payload, helpers) => {
    await discoverLan(deps, { info: (m) => helpers.logger.info(m), warn: (m) => helpers.logger.warn(m) });
  }),
];

export const healthCron: DomainCron = (deps) => [
  cronItem({ id: 'health.check', task: healthCheckTask, schedule: '* * * * *', payload: { due: true } }),
  ...(deps.config.discovery.schedule
    ? [
        cronItem({
          id: 'discover.lan',
          task: discoverLanTask,
          schedule: deps.config.discovery.schedule,
          payload: {},
        }),
      ]
    : []),
];
