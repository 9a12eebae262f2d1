// Alert targets: stored ones (secrets sealed under the hub's secret key, bound to the target's id and field, shown
// only as { set }) and the environment's (ALERT_URL, ALERT_FORMAT, ALERT_TOKEN), which the API lists but never changes.
import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/index.ts';
import type { Db } from '../../lib/db.ts';
import { hubError } from '../../lib/errors.ts';
import { openSecret, type SecretPlace, sealSecret } from '../../lib/secrets.ts';
import { Compile } from '../../lib/typebox.ts';
import { recordStore, secretKeyOf } from '../integrations/keyring.ts';
import { type CreateTarget, kinds, type Target, type TargetKind, type UpdateTarget } from './schema.ts';
import {
  deleteTargetRow,
  findTargetRow,
  insertTargetRow,
  listTargetRows,
  replaceTargetSecrets,
  sealedTargetSecrets,
  type TargetRow,
  updateTargetRow,
} from './store.ts';

/** Where an alert target's secret is sealed: bound to its target and field, so it opens for no other. */
export function alertTargetPlace(targetId: string, field: string): SecretPlace {
  return { kind: `alert-target:${targetId}`, field };
}

/** The targets' sealed secrets, for the key check at start and the key rotation. */
export const sealedTargets = recordStore({
  rows: sealedTargetSecrets,
  record: (target) => target.secrets,
  placeOf: (target, field) => alertTargetPlace(target.id, field),
  replace: (sql, target, secrets) => replaceTargetSecrets(sql, target.id, secrets),
});

/** The environment's target: a fixed id, so rules and deliveries can name it. */
export const environmentTargetId = '00000000-0000-4000-8000-00000000a1e7';

export interface TargetDeps {
  sql: Db;
  config: Config;
}

/** A target ready to send: its kind and every field, secrets opened. */
export interface OpenTarget {
  id: string;
  name: string;
  kind: TargetKind | 'json';
  fields: Record<string, unknown>;
}

const secretFields = (kind: TargetKind) => kinds[kind].secrets as readonly string[];

export function environmentTarget(config: Pick<Config, 'alerts'>): OpenTarget | null {
  const { url, format, token } = config.alerts;
  if (!url) return null;
  return {
    id: environmentTargetId,
    name: 'ALERT_URL (environment)',
    kind: format === 'ntfy' ? 'ntfy' : 'json',
    // ALERT_URL is the topic's whole URL for ntfy.
    fields: { url, topic: null, token },
  };
}

function environmentView(target: OpenTarget): Target {
  return {
    id: target.id,
    name: target.name,
    kind: target.kind,
    enabled: true,
    source: 'environment',
    fields: { url: target.fields.url, token: { set: Boolean(target.fields.token) } },
    created_at: null,
    updated_at: null,
  };
}

export function targetView(row: TargetRow): Target {
  const fields: Record<string, unknown> = { ...row.fields };
  for (const field of secretFields(row.kind)) fields[field] = { set: Boolean(row.secrets[field]) };
  return {
    id: row.id,
    name: row.name,
    kind: row.kind,
    enabled: row.enabled,
    source: 'settings',
    fields,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export async function listTargets(deps: TargetDeps): Promise<Target[]> {
  const environment = environmentTarget(deps.config);
  const rows = await listTargetRows(deps.sql);
  return [...(environment ? [environmentView(environment)] : []), ...rows.map(targetView)];
}

export async function getTarget(deps: TargetDeps, id: string): Promise<Target> {
  const environment = environmentTarget(deps.config);
  if (environment && id === environmentTargetId) return environmentView(environment);
  const row = await findTargetRow(deps.sql, id);
  if (!row) throw hubError('ALERT_TARGET_NOT_FOUND', id);
  return targetView(row);
}

const checkers = new Map<TargetKind, ReturnType<typeof Compile>>();
function checkFields(kind: TargetKind, fields: Record<string, unknown>): void {
  let checker = checkers.get(kind);
  if (!checker) {
    checker = Compile(kinds[kind].fields);
    checkers.set(kind, checker);
  }
  if (checker.Check(fields)) return;
  const [first] = checker.Errors(fields);
  const where = first?.instancePath ? `fields${first.instancePath.replace(/\//g, '.')}` : 'fields';
  throw hubError('VALIDATION_FAILED', `${where} ${first?.message ?? `do not fit a ${kind} target`}`);
}

/** What a kind needs beyond its schema: a secret it cannot work without, apprise's urls or key. */
function checkComplete(kind: TargetKind, fields: Record<string, unknown>, secrets: Record<string, unknown>) {
  const missing = kinds[kind].requiredSecrets.filter((field) => !secrets[field]);
  if (missing.length > 0)
    throw hubError('VALIDATION_FAILED', `a ${kind} target needs ${missing.join(' and ')}`);
  if (kind === 'apprise' && !fields.key && !secrets.urls) {
    throw hubError('VALIDATION_FAILED', 'an apprise target needs urls or a configuration key');
  }
  if (kind === 'email' && Boolean(fields.user) !== Boolean(secrets.password)) {
    throw hubError(
      'VALIDATION_FAILED',
      'an email target with a user needs a password, and a password a user',
    );
  }
}

/** Splits a body's fields into plain fields and sealed secrets; `stored` fills in the secrets left out. */
async function sealed(
  deps: TargetDeps,
  id: string,
  kind: TargetKind,
  body: Record<string, unknown>,
  stored: Record<string, string>,
): Promise<{ fields: Record<string, unknown>; secrets: Record<string, string> }> {
  const fields: Record<string, unknown> = {};
  const secrets: Record<string, string> = {};
  const { key } = await secretKeyOf(deps.config.server);
  for (const [field, value] of Object.entries(body)) {
    if (secretFields(kind).includes(field)) {
      if (typeof value === 'string') secrets[field] = sealSecret(key, alertTargetPlace(id, field), value);
    } else if (value !== null && value !== undefined) {
      fields[field] = value;
    }
  }
  for (const field of secretFields(kind)) {
    if (body[field] === undefined && stored[field]) secrets[field] = stored[field];
  }
  checkComplete(kind, fields, secrets);
  return { fields, secrets };
}

export async function createTarget(deps: TargetDeps, body: CreateTarget): Promise<Target> {
  const id = randomUUID();
  checkFields(body.kind, body.fields);
  const { fields, secrets } = await sealed(deps, id, body.kind, body.fields, {});
  const row = await insertTargetRow(deps.sql, {
    id,
    name: body.name,
    kind: body.kind,
    fields,
    secrets,
    enabled: body.enabled ?? true,
  });
  return targetView(row);
}

export function refuseEnvironment(id: string): void {
  if (id === environmentTargetId) {
    throw hubError(
      'SET_BY_ENVIRONMENT',
      'this target is set by the environment (ALERT_URL, ALERT_FORMAT, ALERT_TOKEN): change it there',
    );
  }
}

export async function updateTarget(deps: TargetDeps, id: string, change: UpdateTarget): Promise<Target> {
  refuseEnvironment(id);
  const row = await findTargetRow(deps.sql, id);
  if (!row) throw hubError('ALERT_TARGET_NOT_FOUND', id);
  let { fields, secrets } = row;
  if (change.fields) {
    const given = change.fields as Record<string, unknown>;
    const body: Record<string, unknown> = { ...row.fields };
    for (const [field, value] of Object.entries(given)) {
      if (secretFields(row.kind).includes(field)) continue;
      if (value === null) delete body[field];
      else body[field] = value;
    }
    const checked = { ...body };
    for (const field of secretFields(row.kind)) {
      if (typeof given[field] === 'string') checked[field] = given[field];
      if (field in given) body[field] = given[field];
    }
    checkFields(row.kind, checked);
    ({ fields, secrets } = await sealed(deps, id, row.kind, body, row.secrets));
  }
  const saved = await updateTargetRow(deps.sql, id, {
    name: change.name ?? row.name,
    enabled: change.enabled ?? row.enabled,
    fields,
    secrets,
  });
  if (!saved) throw hubError('ALERT_TARGET_NOT_FOUND', id);
  return targetView(saved);
}

/** Removes a stored target (its deliveries stay, naming it); the environment's is 409. */
export async function deleteTarget(deps: TargetDeps, id: string): Promise<void> {
  refuseEnvironment(id);
  if (!(await deleteTargetRow(deps.sql, id))) throw hubError('ALERT_TARGET_NOT_FOUND', id);
}

/** A stored or the environment's target with its secrets opened, for sending; null when there is none. */
export async function openTarget(deps: TargetDeps, id: string): Promise<OpenTarget | null> {
  if (id === environmentTargetId) return environmentTarget(deps.config);
  const row = await findTargetRow(deps.sql, id);
  if (!row) return null;
  const { key } = await secretKeyOf(deps.config.server);
  const fields: Record<string, unknown> = { ...row.fields };
  for (const [field, value] of Object.entries(row.secrets))
    fields[field] = openSecret(key, alertTargetPlace(id, field), value);
  return { id: row.id, name: row.name, kind: row.kind, fields };
}

export interface RoutableTarget {
  id: string;
  name: string;
  kind: string;
}

/** Every target an alert can go to: the environment's and the enabled stored ones. */
export async function routableTargets(deps: {
  sql: Db;
  config: Pick<Config, 'alerts'>;
}): Promise<RoutableTarget[]> {
  const environment = environmentTarget(deps.config);
  const rows = await listTargetRows(deps.sql);
  return [
    ...(environment ? [{ id: environment.id, name: environment.name, kind: environment.kind }] : []),
    ...rows.filter((row) => row.enabled).map((row) => ({ id: row.id, name: row.name, kind: row.kind })),
  ];
}
