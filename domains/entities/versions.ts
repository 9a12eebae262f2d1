// What a proposal remembers of its target (the version and the fields it changes, as they were) and what changed
// since, for the approval that finds the target moved on.
import { unifiedDiff } from '../../lib/text-diff.ts';
import type { Db } from '../../plugins/db.ts';
import { entityFields, entityVersion, isVersioned } from './store.ts';

export interface TargetState {
  version: number;
  /** The fields the change sets, as the target had them. */
  before: Record<string, unknown>;
}

/** A field the owner (or another write) changed after the proposal was made. */
export interface FieldChange {
  field: string;
  /** As it was when the change was proposed. */
  proposed_against: unknown;
  current: unknown;
  /** What the change would set. */
  proposed: unknown;
  /** For text: the unified diff from the proposal's starting point to the current text. */
  diff?: string;
}

export interface Staleness {
  proposed_against_version: number;
  current_version: number;
  changes: FieldChange[];
}

/** The version of an entity, or undefined for a type without versions or a missing row. */
export async function currentVersion(sql: Db, type: string, id: string): Promise<number | undefined> {
  return isVersioned(type) ? entityVersion(sql, type, id) : undefined;
}

/** The target of an update or delete as it is now, for the proposal to remember. */
export async function targetState(
  sql: Db,
  type: string,
  id: string,
  payload: Record<string, unknown> | null,
): Promise<TargetState | undefined> {
  if (!isVersioned(type)) return undefined;
  const row = await entityFields(sql, type, id, Object.keys(payload ?? {}));
  return row && { version: row.version, before: row.fields };
}

/** What changed in the target since a proposal was made against `proposed`; undefined when it has not moved on. */
export async function changesSince(
  sql: Db,
  type: string,
  id: string,
  proposed: TargetState,
  payload: Record<string, unknown> | null,
): Promise<Staleness | undefined> {
  if (!isVersioned(type)) return undefined;
  const fields = Object.keys(payload ?? {});
  const now = await entityFields(sql, type, id, fields);
  if (!now || now.version === proposed.version) return undefined;
  const changes = fields.flatMap((field): FieldChange[] => {
    const before = proposed.before[field];
    const current = now.fields[field];
    if (JSON.stringify(before) === JSON.stringify(current)) return [];
    const change: FieldChange = { field, proposed_against: before, current, proposed: payload?.[field] };
    if (typeof before === 'string' && typeof current === 'string') {
      change.diff = unifiedDiff(before, current, `${field} (proposed against)`, `${field} (current)`);
    }
    return [change];
  });
  return { proposed_against_version: proposed.version, current_version: now.version, changes };
}

/** What approving an update would change in a text field: the unified diff from the current text. */
export interface ProposedDiff {
  field: string;
  diff: string;
}

/** For an update: the diff of each text field it sets against the target's current text. */
export async function proposedDiffs(
  sql: Db,
  type: string,
  id: string,
  payload: Record<string, unknown> | null,
): Promise<ProposedDiff[]> {
  if (!isVersioned(type) || !payload) return [];
  const texts = Object.keys(payload).filter((field) => typeof payload[field] === 'string');
  const now = await entityFields(sql, type, id, texts);
  if (!now) return [];
  return texts.flatMap((field) => {
    const current = now.fields[field];
    if (typeof current !== 'string') return [];
    const proposed = payload[field] as string;
    return [{ field, diff: unifiedDiff(current, proposed, `${field} (current)`, `${field} (proposed)`) }];
  });
}
