// Pending changes: suggest-tier agents' writes waiting for the owner. Status moves pending -> applying (claimed by
// one approval) -> applied, back to pending when applying fails, or pending -> rejected. A change carrying a file
// keeps only its name, type, size and digest here; the bytes are on disk (files.ts).
import { randomUUID } from 'node:crypto';
import { listPage } from '../../lib/list-page.ts';
import type { Db } from '../../plugins/db.ts';
import type { ChangeType, WriteAction } from '../entities/registry.ts';

export type PendingStatus = 'pending' | 'applying' | 'applied' | 'rejected';

/** What the owner reviews a change's file by; the bytes are fetched on their own route. */
export interface PendingFileInfo {
  name: string;
  type: string;
  size: number;
  sha256: string;
}

export interface PendingChangeRow {
  id: string;
  agent_id: string | null;
  entity_type: ChangeType;
  action: WriteAction;
  entity_id: string | null;
  space_id: string | null;
  payload: Record<string, unknown> | null;
  /** Lists cut long payload values (a summary); a change read on its own has them whole. */
  payload_truncated: boolean;
  file: PendingFileInfo | null;
  /** The version of an update's or delete's target when it was proposed, and the fields it sets as they were. */
  target_version: number | null;
  target_before: Record<string, unknown> | null;
  status: PendingStatus;
  error: string | null;
  result_entity_id: string | null;
  reason: string | null;
  decided_by: string | null;
  decided_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewPendingChange {
  /** Chosen by the caller when a file is stored under it before the row commits; else a new one. */
  id?: string;
  agent_id: string | null;
  entity_type: string;
  action: string;
  entity_id: string | null;
  space_id: string | null;
  payload: Record<string, unknown> | null;
  file?: PendingFileInfo | null;
  target_version?: number | null;
  target_before?: Record<string, unknown> | null;
}

const plainColumns = [
  'id',
  'agent_id',
  'entity_type',
  'action',
  'entity_id',
  'space_id',
  'target_version',
  'target_before',
  'status',
  'error',
  'result_entity_id',
  'reason',
  'decided_by',
  'decided_at',
  'created_at',
  'updated_at',
];

/** Every column of a change as the API has it: the payload whole, the file as one object. */
function columns(sql: Db) {
  return sql`${sql(plainColumns)}, payload, false as payload_truncated, ${fileObject(sql)}`;
}

function fileObject(sql: Db) {
  return sql`case when file_name is null then null else json_build_object(
    'name', file_name, 'type', file_type, 'size', file_size, 'sha256', file_sha256) end as file`;
}

/** Payloads up to this size are listed whole. */
const wholePayloadBytes = 4096;
/** The end of a cut string, as a parameter: the server's bundle keeps its query texts ASCII (scripts/build-server.ts). */
const ellipsis = '…';

/**
 * A list item's payload: whole when small, else each long string cut to its first 500 characters and each large
 * object or array replaced by a note of its size, computed in the database so a list never carries megabytes.
 */
function summaryColumns(sql: Db) {
  return sql`${sql(plainColumns)},
    case when coalesce(octet_length(payload::text), 0) <= ${wholePayloadBytes} then payload
    else (select jsonb_object_agg(key, case
        when jsonb_typeof(value) = 'string' and length(value #>> '{}') > 500
          then to_jsonb(left(value #>> '{}', 500) || ${ellipsis}::text)
        when jsonb_typeof(value) in ('object', 'array') and octet_length(value::text) > 1000
          then to_jsonb(format('(%s bytes, see the change itself)', octet_length(value::text)))
        else value end)
      from jsonb_each(payload)) end as payload,
    coalesce(octet_length(payload::text), 0) > ${wholePayloadBytes} as payload_truncated,
    ${fileObject(sql)}`;
}

/**
 * A claim older than this was left by an approval that never finished (the process died mid-apply: its
 * transaction rolled back). It may be claimed again; a live apply holds the row lock, so it is never overtaken.
 */
const staleClaim = '5 minutes';

export async function insertPendingChange(sql: Db, change: NewPendingChange): Promise<PendingChangeRow> {
  const file = change.file;
  const [row] = await sql<PendingChangeRow[]>`
    insert into pending_changes (id, agent_id, entity_type, action, entity_id, space_id, payload,
                                 file_name, file_type, file_size, file_sha256, target_version, target_before)
    values (${change.id ?? randomUUID()}, ${change.agent_id}, ${change.entity_type}, ${change.action}, ${change.entity_id},
            ${change.space_id}, ${change.payload === null ? null : sql.json(change.payload as never)},
            ${file?.name ?? null}, ${file?.type ?? null}, ${file?.size ?? null}, ${file?.sha256 ?? null},
            ${change.target_version ?? null},
            ${change.target_before ? sql.json(change.target_before as never) : null})
    returning ${columns(sql)}`;
  return row;
}

export async function findPendingChange(sql: Db, id: string): Promise<PendingChangeRow | undefined> {
  const [row] = await sql<PendingChangeRow[]>`select ${columns(sql)} from pending_changes where id = ${id}`;
  return row;
}

export interface PendingChangeFilter {
  status?: string;
  agentId?: string;
  entityType?: string;
  action?: string;
  limit: number;
  offset: number;
}

/** Newest first, each change summarised (summaryColumns). */
export async function listPendingChanges(sql: Db, filter: PendingChangeFilter) {
  const where = sql`where true
    ${filter.status ? sql`and status = ${filter.status}` : sql``}
    ${filter.agentId ? sql`and agent_id = ${filter.agentId}` : sql``}
    ${filter.entityType ? sql`and entity_type = ${filter.entityType}` : sql``}
    ${filter.action ? sql`and action = ${filter.action}` : sql``}`;
  return listPage<PendingChangeRow>(
    sql,
    {
      select: summaryColumns(sql),
      from: sql`from pending_changes ${where}`,
      orderBy: sql`created_at desc, id`,
    },
    filter,
  );
}

/**
 * Claims a change for one approval: one conditional update, so of any number of concurrent approvals exactly one
 * gets the row. Undefined when the change is missing or not pending.
 */
export async function claimPendingChange(sql: Db, id: string): Promise<PendingChangeRow | undefined> {
  const [row] = await sql<PendingChangeRow[]>`
    update pending_changes set status = 'applying', updated_at = now()
    where id = ${id}
      and (status = 'pending' or (status = 'applying' and updated_at < now() - ${staleClaim}::interval))
    returning ${columns(sql)}`;
  return row;
}

/** Holds the claimed row for the apply transaction; false when the claim was lost meanwhile. */
export async function lockClaimedChange(sql: Db, id: string): Promise<boolean> {
  const [row] = await sql`select id from pending_changes where id = ${id} and status = 'applying' for update`;
  return row !== undefined;
}

export async function markApplied(
  sql: Db,
  id: string,
  resultEntityId: string,
  decidedBy: string,
): Promise<PendingChangeRow> {
  const [row] = await sql<PendingChangeRow[]>`
    update pending_changes set status = 'applied', result_entity_id = ${resultEntityId}, error = null,
      decided_by = ${decidedBy}, decided_at = now(), updated_at = now()
    where id = ${id} returning ${columns(sql)}`;
  return row;
}

/** Gives a failed claim back: pending again, with the error, so it can be approved again or rejected. */
export async function reopenPendingChange(
  sql: Db,
  id: string,
  error: string,
): Promise<PendingChangeRow | undefined> {
  const [row] = await sql<PendingChangeRow[]>`
    update pending_changes set status = 'pending', error = ${error}, updated_at = now()
    where id = ${id} and status = 'applying' returning ${columns(sql)}`;
  return row;
}

/** Rejects a pending change; undefined when it is missing or not pending. */
export async function rejectPendingChange(
  sql: Db,
  id: string,
  reason: string | null,
  decidedBy: string,
): Promise<PendingChangeRow | undefined> {
  const [row] = await sql<PendingChangeRow[]>`
    update pending_changes set status = 'rejected', reason = ${reason}, decided_by = ${decidedBy},
      decided_at = now(), updated_at = now()
    where id = ${id} and status = 'pending' returning ${columns(sql)}`;
  return row;
}

/** What an agent's undecided changes hold: how many, and their bytes (payload and file). */
export async function openChangesOf(sql: Db, agentId: string): Promise<{ changes: number; bytes: number }> {
  const [row] = await sql<{ changes: number; bytes: number }[]>`
    select count(*)::int as changes,
           coalesce(sum(coalesce(octet_length(payload::text), 0) + coalesce(file_size, 0)), 0)::float8 as bytes
    from pending_changes where agent_id = ${agentId} and status in ('pending', 'applying')`;
  return row;
}

/** Serialises one agent's proposals until the transaction ends, so two at once cannot both pass the quota. */
export async function lockProposalsOf(sql: Db, agentId: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtextextended(${`pending-quota:${agentId}`}, 0))`;
}

/** The ids of undecided changes that carry a file: the files that must stay on disk. */
export async function openFileChangeIds(sql: Db): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from pending_changes where file_name is not null and status in ('pending', 'applying')`;
  return rows.map((row) => row.id);
}

/** Uploads proposed before files were kept on disk: their bytes are still base64 in the payload. */
export async function legacyUploadIds(sql: Db): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from pending_changes where entity_type = 'upload' and payload ? 'content_base64' order by created_at`;
  return rows.map((row) => row.id);
}

export async function legacyUpload(
  sql: Db,
  id: string,
): Promise<{ status: PendingStatus; payload: Record<string, unknown> } | undefined> {
  const [row] = await sql<{ status: PendingStatus; payload: Record<string, unknown> }[]>`
    select status, payload from pending_changes where id = ${id} and payload ? 'content_base64' for update`;
  return row;
}

/** The change's file described by its columns and its payload without the bytes (and the names they moved to). */
export async function setLegacyUploadFile(sql: Db, id: string, file: PendingFileInfo): Promise<void> {
  await sql`
    update pending_changes set payload = payload - 'content_base64' - 'filename' - 'mimetype',
      file_name = ${file.name}, file_type = ${file.type}, file_size = ${file.size}, file_sha256 = ${file.sha256}
    where id = ${id}`;
}
