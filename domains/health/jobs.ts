// health.check: checks services (named ones, every enabled one, or on the recurring run those whose interval has
// passed) with bounded concurrency, keeps each result, moves states, records events, then judges outages and raises
// alerts (outage.ts; sent by their own jobs); a check slower than slow_ms or a certificate about to expire raises its
// own. discover.lan: the LAN sweep, its findings stored as disabled candidates. health.purge: results older than the
// retention setting go, once a day.
// Recurring: a health.check of the due services every minute, and a follow-up run queued for the moment a service
// with an interval under a minute falls due again.
import { cronItem, type DomainCron, type DomainTask, type JobDeps, runs } from '../../worker/contract.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { type RaisedAlert, raiseAlert } from '../alerts/raise.ts';
import { maintenanceAt } from '../maintenance/windows.ts';
import { readSetting } from '../settings/registry.ts';
import { type CheckOutcome, eachLimited, runCheck } from './checks.ts';
import { sealStoredPasswords, withCredentials } from './credentials.ts';
import { sweep } from './discovery.ts';
import { settleOutages } from './outage.ts';
import { checkHeartbeats } from './push.ts';
import { discoverLanTask, type HealthCheckPayload, healthCheckTask, healthPurgeTask } from './schema.ts';
import { healthRetentionSetting } from './setting.ts';
import { alertsFor, nextStanding, passedAs } from './state.ts';
import {
  type DueRow,
  nextDue,
  pruneResults,
  recordCheck,
  servicesToCheck,
  upsertCandidate,
} from './store.ts';
import { recordCertificate, recordStateChange } from './timeline.ts';

interface Log {
  info(message: string): void;
  warn(message: string): void;
}

const quiet: Log = { info: () => undefined, warn: () => undefined };

/** The alerts of a service that still answers: slower than slow_ms, or its certificate about to expire. Down and up
 * are outage.ts's, judged after the round. */
function qualityAlert(service: DueRow, kind: 'degraded' | 'expiring', outcome: CheckOutcome): RaisedAlert {
  const where = service.url ?? service.target;
  const message = outcome.message;
  const data = { service_id: service.id, service: service.name, category: service.category, reason: message };
  if (kind === 'degraded') {
    return {
      event: 'service.degraded',
      title: `${service.name} is slow`,
      message:
        `${service.name} (${service.category}) answered in ${outcome.latency_ms} ms, slower than ` +
        `${service.slow_ms} ms: ${message}\n${where}`,
      tags: ['orange_circle', 'service-degraded'],
      priority: 3,
      link: '/services',
      data: { ...data, state: 'degraded', latency_ms: outcome.latency_ms, slow_ms: service.slow_ms },
    };
  }
  const certificate = outcome.details?.certificate;
  return {
    event: 'certificate.expiring',
    title: `${service.name}: certificate expires in ${certificate?.days_left} days`,
    message: `The certificate of ${service.name} (${service.category}) ${message.replace(/^certificate /, '')}\n${where}`,
    tags: ['warning', 'certificate-expiring'],
    // Sent by default (4): raised once as the certificate enters its warning days, the only notice before an outage.
    priority: 4,
    link: '/services',
    data: {
      ...data,
      state: 'warning',
      not_after: certificate?.not_after,
      days_left: certificate?.days_left,
      subject: certificate?.subject,
    },
  };
}

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
  // A password or headers still in plaintext (the start could not seal them) are sealed on this first read.
  if (services.some((service) => service.basic_auth_password !== null || service.headers !== null)) {
    await sealStoredPasswords(deps.sql, deps.config.server);
  }
  const summary: RoundSummary = { checked: 0, up: 0, down: 0, changed: 0, ms: 0 };
  const maintenance = await maintenanceAt(deps.sql);
  const { pingCommand, caFile } = deps.config.health;
  await eachLimited(services, deps.config.health.checkConcurrency, async (row) => {
    const opened = await withCredentials(deps.config.server, row);
    const service: DueRow = 'unreadable' in opened ? opened.service : row;
    const outcome: CheckOutcome =
      'unreadable' in opened
        ? { ok: false, latency_ms: null, message: opened.unreadable }
        : await runCheck(opened, { pingCommand, caFile });
    const passed = passedAs(outcome, service.slow_ms);
    // The result and the alerts it calls for commit together.
    const recorded = await deps.sql.begin(async (tx) => {
      const kept = await recordCheck(
        tx,
        service.id,
        outcome,
        (previous) => nextStanding(previous, passed, service.retries),
        maintenance.get(service.id)?.id ?? null,
      );
      const quiet = maintenance.has(service.id);
      if (kept?.changed) {
        await recordStateChange(tx, {
          service,
          from: kept.from,
          to: kept.to,
          message: outcome.message,
          data: { latency_ms: outcome.latency_ms, maintenance: quiet },
        });
        if (kept.to === 'down' && outcome.message.startsWith('certificate expired'))
          await recordCertificate(tx, service, 'expired', outcome.message, outcome.details?.certificate);
        if (kept.to === 'warning' && outcome.details?.certificate)
          await recordCertificate(tx, service, 'expiring', outcome.message, outcome.details.certificate);
      }
      for (const kind of kept && !quiet ? alertsFor(kept.from, kept.to) : []) {
        if (kind === 'degraded' || kind === 'expiring')
          await raiseAlert(tx, deps, qualityAlert(service, kind, outcome));
      }
      return kept;
    });
    if (!recorded) return; // Deleted meanwhile.
    summary.checked++;
    // Degraded and warning are up for counting (and for uptime): the check passed.
    if (recorded.to === 'down') summary.down++;
    else if (passed) summary.up++;
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
  runs(healthPurgeTask, (deps) => async (_payload, helpers) => {
    const days = await readSetting(deps.sql, healthRetentionSetting);
    const removed = await pruneResults(deps.sql, days);
    if (removed > 0)
      helpers.logger.info(`health.purge: removed ${removed} check results older than ${days} days`);
  }),
];

export const healthCron: DomainCron = (deps) => [
  cronItem({ id: 'health.check', task: healthCheckTask, schedule: '* * * * *', payload: { due: true } }),
  cronItem({ id: 'health.purge', task: healthPurgeTask, schedule: '41 3 * * *', payload: {} }),
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
