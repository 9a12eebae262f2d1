// SQL of the alerts: targets (secrets sealed), rules, raised alerts and their deliveries.
import type { Db } from '../../lib/db.ts';
import { listPage } from '../../lib/list-page.ts';
import type {
  CreateRule,
  Delivery,
  DeliveryStatus,
  QuietHours,
  RuleFilter,
  TargetKind,
  UpdateRule,
} from './schema.ts';

export interface TargetRow {
  id: string;
  name: string;
  kind: TargetKind;
  fields: Record<string, unknown>;
  /** field -> sealed value */
  secrets: Record<string, string>;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const targetColumns = ['id', 'name', 'kind', 'fields', 'secrets', 'enabled', 'created_at', 'updated_at'];

export async function listTargetRows(sql: Db): Promise<TargetRow[]> {
  return sql<TargetRow[]>`select ${sql(targetColumns)} from alert_targets order by name, id`;
}

export async function findTargetRow(sql: Db, id: string): Promise<TargetRow | undefined> {
  const [row] = await sql<TargetRow[]>`select ${sql(targetColumns)} from alert_targets where id = ${id}`;
  return row;
}

export async function insertTargetRow(
  sql: Db,
  row: Pick<TargetRow, 'id' | 'name' | 'kind' | 'fields' | 'secrets' | 'enabled'>,
): Promise<TargetRow> {
  const [saved] = await sql<TargetRow[]>`
    insert into alert_targets (id, name, kind, fields, secrets, enabled)
    values (${row.id}, ${row.name}, ${row.kind}, ${sql.json(row.fields as never)},
      ${sql.json(row.secrets)}, ${row.enabled})
    returning ${sql(targetColumns)}`;
  return saved;
}

export async function updateTargetRow(
  sql: Db,
  id: string,
  row: Pick<TargetRow, 'name' | 'fields' | 'secrets' | 'enabled'>,
): Promise<TargetRow | undefined> {
  const [saved] = await sql<TargetRow[]>`
    update alert_targets set name = ${row.name}, fields = ${sql.json(row.fields as never)},
      secrets = ${sql.json(row.secrets)}, enabled = ${row.enabled}, updated_at = now()
    where id = ${id}
    returning ${sql(targetColumns)}`;
  return saved;
}

export async function deleteTargetRow(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from alert_targets where id = ${id}`;
  if (result.count === 0) return false;
  // A rule naming only this target would otherwise turn into "every target" (an empty list).
  await sql`update alert_rules set targets = array_remove(targets, ${id}::uuid), enabled = enabled and
    cardinality(array_remove(targets, ${id}::uuid)) > 0, updated_at = now() where ${id}::uuid = any(targets)`;
  return true;
}

/** The ids among `ids` that are no target. */
export async function absentTargets(sql: Db, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = await sql<{ id: string }[]>`select id from alert_targets where id = any(${ids}::uuid[])`;
  const present = new Set(found.map((row) => row.id));
  return ids.filter((id) => !present.has(id));
}

// Rules.

export interface RuleRow {
  id: string;
  name: string;
  events: string[];
  filter: RuleFilter;
  targets: string[];
  repeat_minutes: number | null;
  quiet_hours: QuietHours | null;
  enabled: boolean;
  created_at: Date;
  updated_at: Date;
}

const ruleColumns = [
  'id',
  'name',
  'events',
  'filter',
  'targets',
  'repeat_minutes',
  'quiet_hours',
  'enabled',
  'created_at',
  'updated_at',
];

export async function listRuleRows(sql: Db, options: { enabledOnly?: boolean } = {}): Promise<RuleRow[]> {
  return sql<RuleRow[]>`
    select ${sql(ruleColumns)} from alert_rules ${options.enabledOnly ? sql`where enabled` : sql``}
    order by created_at, id`;
}

export async function findRuleRow(sql: Db, id: string): Promise<RuleRow | undefined> {
  const [row] = await sql<RuleRow[]>`select ${sql(ruleColumns)} from alert_rules where id = ${id}`;
  return row;
}

export async function insertRuleRow(sql: Db, rule: CreateRule): Promise<RuleRow> {
  const [row] = await sql<RuleRow[]>`
    insert into alert_rules (name, events, filter, targets, repeat_minutes, quiet_hours, enabled)
    values (${rule.name ?? ''}, ${rule.events}, ${sql.json((rule.filter ?? {}) as never)}, ${rule.targets}::uuid[],
      ${rule.repeat_minutes ?? null}, ${rule.quiet_hours ? sql.json(rule.quiet_hours as never) : null},
      ${rule.enabled ?? true})
    returning ${sql(ruleColumns)}`;
  return row;
}

export async function updateRuleRow(sql: Db, id: string, change: UpdateRule): Promise<RuleRow | undefined> {
  const [row] = await sql<RuleRow[]>`
    update alert_rules set
      name = coalesce(${change.name ?? null}, name),
      events = coalesce(${change.events ?? null}::text[], events),
      filter = coalesce(${change.filter ? sql.json(change.filter as never) : null}::jsonb, filter),
      targets = coalesce(${change.targets ?? null}::uuid[], targets),
      repeat_minutes = ${change.repeat_minutes === undefined ? sql`repeat_minutes` : change.repeat_minutes},
      quiet_hours = ${
        change.quiet_hours === undefined
          ? sql`quiet_hours`
          : change.quiet_hours === null
            ? null
            : sql.json(change.quiet_hours as never)
      },
      enabled = coalesce(${change.enabled ?? null}::boolean, enabled),
      updated_at = now()
    where id = ${id}
    returning ${sql(ruleColumns)}`;
  return row;
}

export async function deleteRuleRow(sql: Db, id: string): Promise<boolean> {
  return (await sql`delete from alert_rules where id = ${id}`).count > 0;
}

// Alerts and deliveries.

export interface AlertRecord {
  event: string;
  title: string;
  message: string;
  priority: number;
  tags: string[];
  link: string | null;
  data: Record<string, unknown>;
  actions: unknown[];
  subject: string | null;
  resolves: boolean;
  suppressed: string | null;
}

export async function insertAlert(sql: Db, alert: AlertRecord): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into alerts (event, title, message, priority, tags, link, data, actions, subject, resolves, suppressed)
    values (${alert.event}, ${alert.title}, ${alert.message}, ${alert.priority}, ${alert.tags}, ${alert.link},
      ${sql.json(alert.data as never)}, ${sql.json(alert.actions as never)}, ${alert.subject}, ${alert.resolves},
      ${alert.suppressed})
    returning id`;
  return row.id;
}

/** Ends the open problems on `subject` (a newer alert about it replaces or resolves them); their ids. */
export async function closeProblems(sql: Db, subject: string, exceptId: string): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    update alerts set resolved_at = now()
    where subject = ${subject} and resolved_at is null and not resolves and id <> ${exceptId}
    returning id`;
  return rows.map((row) => row.id);
}

/** The open problems (unresolved, not recoveries) whose subject starts with `prefix`: subject to its latest event. */
export async function openProblemEvents(sql: Db, prefix: string): Promise<Map<string, string>> {
  const rows = await sql<{ subject: string; event: string }[]>`
    select distinct on (subject) subject, event from alerts
    where starts_with(subject, ${prefix}) and resolved_at is null and not resolves
    order by subject, created_at desc`;
  return new Map(rows.map((row) => [row.subject, row.event]));
}

export interface DeliveredTarget {
  target_id: string | null;
  target_name: string;
  target_kind: string;
  rule_id: string | null;
}

/** The targets the given alerts went out to (a recovery goes where its problem went). */
export async function targetsReached(sql: Db, alertIds: string[]): Promise<DeliveredTarget[]> {
  if (alertIds.length === 0) return [];
  return sql<DeliveredTarget[]>`
    select distinct on (target_id) target_id, target_name, target_kind, rule_id from alert_deliveries
    where alert_id = any(${alertIds}::uuid[]) and status <> 'quiet'
    order by target_id, created_at`;
}

export interface NewDelivery extends DeliveredTarget {
  alert_id: string;
  repeat: number;
  status: 'queued' | 'quiet';
}

export async function insertDelivery(sql: Db, delivery: NewDelivery): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    insert into alert_deliveries (alert_id, rule_id, target_id, target_name, target_kind, repeat, status)
    values (${delivery.alert_id}, ${delivery.rule_id}, ${delivery.target_id}, ${delivery.target_name},
      ${delivery.target_kind}, ${delivery.repeat}, ${delivery.status})
    returning id`;
  return row.id;
}

export interface DeliveryToSend {
  id: string;
  status: DeliveryStatus;
  target_id: string | null;
  target_name: string;
  target_kind: string;
  alert: AlertRecord & { id: string; created_at: Date };
}

export async function findDeliveryToSend(sql: Db, id: string): Promise<DeliveryToSend | undefined> {
  const [row] = await sql<DeliveryToSend[]>`
    select d.id, d.status, d.target_id, d.target_name, d.target_kind,
      json_build_object('id', a.id, 'event', a.event, 'title', a.title, 'message', a.message,
        'priority', a.priority, 'tags', a.tags, 'link', a.link, 'data', a.data, 'actions', a.actions,
        'subject', a.subject, 'resolves', a.resolves, 'suppressed', a.suppressed, 'created_at', a.created_at) as alert
    from alert_deliveries d join alerts a on a.id = d.alert_id
    where d.id = ${id}`;
  return row;
}

export async function recordAttempt(
  sql: Db,
  id: string,
  outcome: { status: DeliveryStatus; answer_status: number | null; answer: string },
): Promise<void> {
  await sql`
    update alert_deliveries set status = ${outcome.status}, attempts = attempts + 1,
      answer_status = ${outcome.answer_status}, answer = ${outcome.answer.slice(0, 2000)}, updated_at = now(),
      sent_at = case when ${outcome.status === 'sent'} then now() else sent_at end
    where id = ${id}`;
}

export async function listDeliveries(
  sql: Db,
  query: { status?: DeliveryStatus; alert_id?: string; limit: number; offset: number },
): Promise<{ items: Delivery[]; total: number }> {
  const conditions = [
    query.status ? sql`d.status = ${query.status}` : null,
    query.alert_id ? sql`d.alert_id = ${query.alert_id}` : null,
  ].filter((condition) => condition !== null);
  const where = conditions.length
    ? sql`where ${conditions.reduce((all, condition) => sql`${all} and ${condition}`)}`
    : sql``;
  return listPage<Delivery>(
    sql,
    {
      select: sql`d.id, d.alert_id, a.event, a.title, a.priority, d.rule_id, d.target_id, d.target_name,
        d.target_kind, d.repeat, d.status, d.attempts, d.answer_status, d.answer, d.created_at, d.updated_at,
        d.sent_at`,
      from: sql`from alert_deliveries d join alerts a on a.id = d.alert_id ${where}`,
      orderBy: sql`d.created_at desc, d.id`,
    },
    query,
  );
}

export interface DueRepeat {
  alert_id: string;
  priority: number;
  rule_id: string;
  quiet_hours: QuietHours | null;
  repeat: number;
  targets: DeliveredTarget[];
}

/**
 * Open problems whose rule repeats and whose last round for that rule is at least `repeat_minutes` old: the next
 * round's number and the targets of the last round.
 */
export async function dueRepeats(sql: Db): Promise<DueRepeat[]> {
  return sql<DueRepeat[]>`
    with rounds as (
      select d.alert_id, d.rule_id, max(d.repeat) as repeat, max(d.created_at) as last
      from alert_deliveries d join alerts a on a.id = d.alert_id
      where a.subject is not null and not a.resolves and a.resolved_at is null and a.suppressed is null
        and d.rule_id is not null
      group by d.alert_id, d.rule_id
    )
    select r.alert_id, a.priority, r.rule_id, ru.quiet_hours, r.repeat + 1 as repeat,
      (select json_agg(json_build_object('target_id', d.target_id, 'target_name', d.target_name,
          'target_kind', d.target_kind, 'rule_id', d.rule_id))
        from alert_deliveries d
        where d.alert_id = r.alert_id and d.rule_id = r.rule_id and d.repeat = r.repeat) as targets
    from rounds r
    join alert_rules ru on ru.id = r.rule_id and ru.enabled and ru.repeat_minutes is not null
    join alerts a on a.id = r.alert_id
    where r.last <= now() - make_interval(mins => ru.repeat_minutes)`;
}

/** The alert targets' sealed secrets (tokens, passwords, webhook secrets), by target; locked for a rotation. */
export async function sealedTargetSecrets(
  sql: Db,
  options: { lock: boolean },
): Promise<{ id: string; secrets: Record<string, string> }[]> {
  return sql<{ id: string; secrets: Record<string, string> }[]>`
    select id, secrets from alert_targets where secrets <> '{}'::jsonb
    order by id ${options.lock ? sql`for update` : sql``}`;
}

export async function replaceTargetSecrets(
  sql: Db,
  id: string,
  secrets: Record<string, string>,
): Promise<void> {
  await sql`update alert_targets set secrets = ${sql.json(secrets)} where id = ${id}`;
}
