// Raising an alert: recorded, then routed by the enabled rules to their targets, one delivery job per target, all
// with the caller's connection or transaction (a check's result and its alert commit together). Sending happens in
// the jobs, so a slow or dead target never holds up the work that raised the alert, nor another target.
//
// Problems and recoveries: an alert with a `subject` (service:<id>) is an open problem until a later alert on the
// same subject ends it; `resolves` marks that later alert as the recovery, which also goes to every target its
// problem went to (so a recovery below a rule's min_priority still follows its down). Open problems repeat where
// their rule sets repeat_minutes (jobs.ts).
//
// Maintenance and folding: `suppressed` records the alert with the reason and sends it nowhere.
import type { Config } from '../../config/index.ts';
import type { Db, Sql } from '../../lib/db.ts';
import type { Alert } from '../../lib/notify.ts';
import { enqueue } from '../../worker/enqueue.ts';
import type { QuietHours, RuleFilter } from './schema.ts';
import { deliverTask } from './schema.ts';
import type { AlertAction } from './send.ts';
import {
  closeProblems,
  type DeliveredTarget,
  insertAlert,
  insertDelivery,
  listRuleRows,
  openProblemEvents,
  type RuleRow,
  targetsReached,
} from './store.ts';
import { environmentTargetId, type RoutableTarget, routableTargets } from './targets.ts';

export interface RaisedAlert extends Alert {
  /** A path into the web app (`/services`); made absolute with the `alerts` setting's web_url. */
  link?: string;
  /** What a problem is about (`service:<id>`): a later alert on it ends the problem; only open problems repeat. */
  subject?: string;
  /** This alert ends the problem on its subject (service.up). */
  resolves?: boolean;
  /** Recorded but sent nowhere, for this reason (`maintenance`, `suppressed_by:<alert id>`). */
  suppressed?: string;
  /** ntfy `http` action buttons (other targets get the link instead). */
  actions?: AlertAction[];
}

export interface AlertDeps {
  /** Routing needs only the environment's target (ALERT_URL). */
  config: Pick<Config, 'alerts'>;
}

export interface Raised {
  id: string;
  /** Deliveries queued (quiet hours' held ones not counted). */
  queued: number;
}

/** `service.*` matches `service.down`; `*` alone matches everything. */
export function eventMatches(pattern: string, event: string): boolean {
  const expression = pattern
    .split('*')
    .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
    .join('.*');
  return new RegExp(`^${expression}$`).test(event);
}

export function ruleMatches(
  rule: Pick<RuleRow, 'events' | 'filter'>,
  alert: { event: string; priority: number; data: Record<string, unknown> },
): boolean {
  if (!rule.events.some((pattern) => eventMatches(pattern, alert.event))) return false;
  const filter: RuleFilter = rule.filter ?? {};
  if (filter.min_priority !== undefined && alert.priority < filter.min_priority) return false;
  if (filter.service_ids?.length && !filter.service_ids.includes(String(alert.data.service_id))) return false;
  if (filter.categories?.length && !filter.categories.includes(String(alert.data.category))) return false;
  return true;
}

/** Minutes since midnight at `at` in `timezone`. */
function minutesIn(timezone: string, at: Date): number {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: timezone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at);
  const value = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? 0);
  return value('hour') * 60 + value('minute');
}

const clock = (text: string) => Number(text.slice(0, 2)) * 60 + Number(text.slice(3, 5));

/** Whether quiet hours hold `priority` back at `at` (a window may run past midnight: 22:00-07:00). */
export function isQuiet(quiet: QuietHours | null, priority: number, at: Date): boolean {
  if (!quiet) return false;
  if (quiet.except_priority_at_least !== undefined && priority >= quiet.except_priority_at_least)
    return false;
  const now = minutesIn(quiet.timezone, at);
  const from = clock(quiet.from);
  const to = clock(quiet.to);
  return from <= to ? now >= from && now < to : now >= from || now < to;
}

interface Planned extends DeliveredTarget {
  quiet: boolean;
}

/** One delivery per target: where several rules reach a target, one not held by quiet hours wins. */
function plan(rules: RuleRow[], targets: RoutableTarget[], priority: number, at: Date): Map<string, Planned> {
  const planned = new Map<string, Planned>();
  const byId = new Map(targets.map((target) => [target.id, target]));
  for (const rule of rules) {
    const quiet = isQuiet(rule.quiet_hours, priority, at);
    const reached = rule.targets.length ? rule.targets.flatMap((id) => byId.get(id) ?? []) : targets;
    for (const target of reached) {
      const existing = planned.get(target.id);
      if (existing && !(existing.quiet && !quiet)) continue;
      planned.set(target.id, {
        target_id: target.id,
        target_name: target.name,
        target_kind: target.kind,
        rule_id: rule.id,
        quiet,
      });
    }
  }
  return planned;
}

/** Queues one round of deliveries of an alert; how many were queued (not held by quiet hours). */
export async function queueDeliveries(
  sql: Db,
  alertId: string,
  deliveries: Planned[],
  repeat: number,
): Promise<number> {
  let queued = 0;
  for (const delivery of deliveries) {
    const id = await insertDelivery(sql, {
      alert_id: alertId,
      // The environment's target is no row: its deliveries name it without an id.
      target_id: delivery.target_id === environmentTargetId ? null : delivery.target_id,
      target_name: delivery.target_name,
      target_kind: delivery.target_kind,
      rule_id: delivery.rule_id,
      repeat,
      status: delivery.quiet ? 'quiet' : 'queued',
    });
    if (!delivery.quiet) {
      await enqueue(sql, deliverTask, { delivery_id: id });
      queued++;
    }
  }
  return queued;
}

/**
 * The open problems whose subject starts with `prefix` (`device:`), each subject to the event of its latest alert:
 * how a domain knows what it last raised, so a state is alerted once and its return resolves it.
 */
export function openProblems(sql: Db, prefix: string): Promise<Map<string, string>> {
  return openProblemEvents(sql, prefix);
}

/**
 * Records an alert and queues its deliveries in one transaction: the caller's, or one of its own when given the pool
 * (an alert never stands recorded without its deliveries). Returns the alert's id.
 */
export async function raiseAlert(
  sql: Db,
  deps: AlertDeps,
  alert: RaisedAlert,
  at = new Date(),
): Promise<Raised> {
  if (isPool(sql)) return (await sql.begin((tx) => raiseAlert(tx, deps, alert, at))) as Raised;
  const priority = Math.min(5, Math.max(1, Math.round(alert.priority ?? 3)));
  const data = alert.data ?? {};
  const id = await insertAlert(sql, {
    event: alert.event,
    title: alert.title,
    message: alert.message,
    priority,
    tags: alert.tags ?? [],
    link: alert.link ?? null,
    data,
    actions: alert.actions ?? [],
    subject: alert.subject ?? null,
    resolves: alert.resolves ?? false,
    suppressed: alert.suppressed ?? null,
  });
  const ended = alert.subject ? await closeProblems(sql, alert.subject, id) : [];
  if (alert.suppressed) return { id, queued: 0 };
  const rules = (await listRuleRows(sql, { enabledOnly: true })).filter((rule) =>
    ruleMatches(rule, { event: alert.event, priority, data }),
  );
  const targets = await routableTargets({ sql, config: deps.config });
  const planned = plan(rules, targets, priority, at);
  if (alert.resolves) {
    for (const reached of await targetsReached(sql, ended)) {
      const key = reached.target_id ?? environmentTargetId;
      if (planned.get(key)?.quiet === false) continue;
      if (!targets.some((target) => target.id === key)) continue; // Deleted or disabled since.
      planned.set(key, { ...reached, target_id: key, quiet: false });
    }
  }
  return { id, queued: await queueDeliveries(sql, id, [...planned.values()], 0) };
}

/** A pool can begin a transaction; a transaction cannot. */
function isPool(sql: Db): sql is Sql {
  return typeof (sql as Partial<Sql>).begin === 'function';
}
