// Push services: checked by the heartbeats they send, never by the hub reaching them. A heartbeat arrives at
// /api/push/:token (Uptime Kuma's shape) or /api/ping/:token[/start|/fail|/<exit code>] (healthchecks.io's shape);
// the token is the only credential, so it carries 256 random bits and is stored as its SHA-256 alone (a backup,
// an export or a database dump never carries a working heartbeat URL). The owner sees it once, in the answer that
// makes it, as agent tokens are shown; losing it means renewing it.
//
// The state of a push service follows what it sends (up, or down after `retries` more failing heartbeats), and
// the periodic health check turns it down, with no network I/O, when nothing came within interval_s plus grace_s,
// or when a `start` had no finish within grace_s (alert heartbeat.missed). As healthchecks.io does, a ping may name
// its run (`?rid=<uuid>`): a finish with a rid ends the start with that rid, one without ends the start without, the
// run's duration becomes the result's latency, and each open run is late on its own.
import { randomBytes } from 'node:crypto';
import { hashToken } from '../../lib/secrets.ts';
import type { Db } from '../../plugins/db.ts';
import type { JobDeps } from '../../worker/contract.ts';
import { type RaisedAlert, raiseAlert } from '../alerts/raise.ts';
import type { CheckOutcome } from './checks.ts';
import { settleOutages } from './outage.ts';
import { nextStanding } from './state.ts';
import {
  appendPushLog,
  clearLatePushStarts,
  endPushStart,
  hasPushToken,
  heartbeatReceived,
  overduePushServices,
  type PushService,
  pushServiceByToken,
  pushStarted,
  recordCheck,
  setPushToken,
} from './store.ts';
import { recordHeartbeatMissed, recordStateChange } from './timeline.ts';

/** A new heartbeat token: 32 random bytes, base64url (43 characters, safe in a URL path). */
export function newPushToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Gives service `id` a new heartbeat token and returns it (the only time it is seen). */
export async function renewPushToken(sql: Db, id: string): Promise<string> {
  const token = newPushToken();
  await setPushToken(sql, id, hashToken(token));
  return token;
}

/**
 * After a write: a push service without a token gets one (returned), a service of another kind holds none. A push
 * service that has one keeps it (null: nothing new to show).
 */
export async function keepPushToken(sql: Db, id: string, kind: string): Promise<string | null> {
  if (kind !== 'push') {
    await setPushToken(sql, id, null);
    return null;
  }
  return (await hasPushToken(sql, id)) ? null : renewPushToken(sql, id);
}

/** The enabled push service a token belongs to. */
export function findPushService(sql: Db, token: string): Promise<PushService | undefined> {
  return pushServiceByToken(sql, hashToken(token));
}

/**
 * What a heartbeat says: the run went well (up), failed (down), has started and will report again, or only says
 * something (log).
 */
export interface Heartbeat {
  signal: 'up' | 'down' | 'start' | 'log';
  message: string;
  latency_ms: number | null;
  /** The run it starts or finishes (healthchecks.io's rid), or null. */
  rid: string | null;
}

/** A missed heartbeat, recorded beside the service's own down alert (which outage.ts raises, folded or not). */
function missedAlert(service: PushService, reason: string): RaisedAlert {
  return {
    event: 'heartbeat.missed',
    title: `${service.name} missed its heartbeat`,
    message: `${service.name} (${service.category}) missed its heartbeat: ${reason}`,
    tags: ['hourglass', 'heartbeat-missed'],
    // The default rule sends it (4): a backup or cron job that did not report is an outage the owner must hear of,
    // and this alert names the job and what it missed where the service.down beside it names the state.
    priority: 4,
    link: '/services',
    data: { service_id: service.id, service: service.name, category: service.category, reason },
  };
}

/** Records a result of `service`; returns whether its state changed (outage.ts then judges and alerts). */
async function record(
  deps: JobDeps,
  service: PushService,
  outcome: CheckOutcome,
  missed: boolean,
  rid: string | null = null,
): Promise<boolean> {
  return deps.sql.begin(async (tx) => {
    // A finish ends its start: how long the run took is the result's latency.
    const took = missed ? null : await endPushStart(tx, service.id, rid);
    const measured = took === null ? outcome : { ...outcome, latency_ms: took };
    const result = await recordCheck(tx, service.id, measured, (previous) =>
      nextStanding(previous, outcome.ok ? 'up' : null, service.retries),
    );
    if (result && !missed) await heartbeatReceived(tx, service.id);
    if (result?.changed) {
      await recordStateChange(tx, { service, from: result.from, to: result.to, message: measured.message });
    }
    if (result?.changed && missed && result.to === 'down') {
      await recordHeartbeatMissed(tx, service, outcome.message);
      await raiseAlert(tx, deps, missedAlert(service, outcome.message));
    }
    return Boolean(result?.changed);
  });
}

/** Records a heartbeat of `service`: a result (its message kept), the state it moves to, and its alert. */
export async function receiveHeartbeat(
  deps: JobDeps,
  service: PushService,
  heartbeat: Heartbeat,
): Promise<void> {
  if (heartbeat.signal === 'start') {
    await pushStarted(deps.sql, service.id, heartbeat.rid);
    return;
  }
  if (heartbeat.signal === 'log') {
    // A message only: the state, the last heartbeat and an open start stay as they were.
    await appendPushLog(deps.sql, service.id, heartbeat.message);
    return;
  }
  const outcome = {
    ok: heartbeat.signal === 'up',
    latency_ms: heartbeat.latency_ms,
    message: heartbeat.message,
  };
  // A heartbeat comes between check rounds: a change it brings is judged (and alerted) now, not at the next round.
  if (await record(deps, service, outcome, false, heartbeat.rid)) await settleOutages(deps);
}

/** The periodic check of push services (those named, or all): each overdue one records a miss. */
export async function checkHeartbeats(deps: JobDeps, ids?: string[]): Promise<number> {
  const overdue = await overduePushServices(deps.sql, ids);
  for (const service of overdue) {
    const run = service.late_rid === null ? '' : `run ${service.late_rid} `;
    const message = service.unfinished
      ? `${run}started but did not finish within ${service.grace_s} s`
      : `no heartbeat within ${service.interval_s + service.grace_s} s`;
    if (service.unfinished) await clearLatePushStarts(deps.sql, service.id);
    await record(deps, service, { ok: false, latency_ms: null, message }, true);
  }
  return overdue.length;
}
