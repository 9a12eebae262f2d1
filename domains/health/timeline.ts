// A service's state changes on the ops timeline, recorded in the transaction that made them: down (after its
// retries), up, degraded, warning, paused, resumed; an expired certificate and a missed heartbeat beside the down
// they cause, and a certificate entering its warning days beside the warning.
import type { Db } from '../../lib/db.ts';
import { type Actor, recordEvent, type Severity } from '../timeline/record.ts';
import type { ServiceState } from './schema.ts';

interface Change {
  service: { id: string; name: string };
  from: ServiceState;
  to: ServiceState;
  message: string | null;
  actor?: Actor;
  /** What else the change says (latency, certificate details). */
  data?: Record<string, unknown>;
}

const described: Partial<Record<ServiceState, { title: string; severity: Severity }>> = {
  down: { title: 'is down', severity: 'critical' },
  up: { title: 'is up', severity: 'info' },
  degraded: { title: 'is slow', severity: 'warning' },
  warning: { title: 'has a warning', severity: 'warning' },
  paused: { title: 'is paused', severity: 'info' },
  pending: { title: 'is resumed', severity: 'info' },
};

export async function recordStateChange(db: Db, change: Change): Promise<void> {
  const { service, from, to } = change;
  const how = described[to];
  if (from === to || !how) return;
  const kind = to === 'pending' ? 'service.resumed' : `service.${to}`;
  const back = to === 'up' && from === 'down' ? ' again' : '';
  await recordEvent(db, {
    kind,
    title: `${service.name} ${how.title}${back}${change.message ? `: ${change.message}` : ''}`,
    severity: to === 'up' && from === 'down' ? 'notice' : how.severity,
    subject: { type: 'service', id: service.id },
    actor: change.actor ?? 'system',
    data: {
      service_id: service.id,
      service: service.name,
      from,
      to,
      message: change.message,
      ...change.data,
    },
  });
}

/** A certificate past its expiry (the check failed for it) or entering its warning days. */
export async function recordCertificate(
  db: Db,
  service: { id: string; name: string },
  state: 'expired' | 'expiring',
  message: string,
  certificate: unknown,
): Promise<void> {
  await recordEvent(db, {
    kind: `certificate.${state}`,
    title: `${service.name}: ${message}`,
    severity: state === 'expired' ? 'critical' : 'warning',
    subject: { type: 'service', id: service.id },
    data: { service_id: service.id, service: service.name, message, certificate: certificate ?? null },
  });
}

export async function recordHeartbeatMissed(
  db: Db,
  service: { id: string; name: string },
  reason: string,
): Promise<void> {
  await recordEvent(db, {
    kind: 'heartbeat.missed',
    title: `${service.name} missed its heartbeat: ${reason}`,
    severity: 'warning',
    subject: { type: 'service', id: service.id },
    data: { service_id: service.id, service: service.name, reason },
  });
}
