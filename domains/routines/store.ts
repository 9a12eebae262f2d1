// SQL of routines and their runs (migration 0045).
import type { Db } from '../../plugins/db.ts';
import type { CreateRoutine, Routine, RoutineRun, UpdateRoutine } from './schema.ts';

const routineColumns = (sql: Db) =>
  sql`id, name, agent_id, schedule, prompt, space_id, enabled, last_run_at, created_at, updated_at`;
const runColumns = (sql: Db) =>
  sql`id, routine_id, trigger, state, period_since, period_until, output, tools, drafts, usage, error, started_at,
      finished_at`;

export async function insertRoutine(sql: Db, routine: CreateRoutine): Promise<Routine> {
  const [row] = await sql<Routine[]>`
    insert into routines (name, agent_id, schedule, prompt, space_id, enabled)
    values (${routine.name}, ${routine.agent_id}, ${routine.schedule}, ${routine.prompt},
            ${routine.space_id ?? null}, ${routine.enabled ?? true})
    returning ${routineColumns(sql)}`;
  return row;
}

export async function listRoutines(sql: Db, page: { limit: number; offset: number }) {
  const items = await sql<Routine[]>`
    select ${routineColumns(sql)} from routines order by name, id limit ${page.limit} offset ${page.offset}`;
  const [{ total }] = await sql<{ total: number }[]>`select count(*)::int as total from routines`;
  return { items, total };
}

export async function enabledRoutines(sql: Db): Promise<Routine[]> {
  return sql<Routine[]>`select ${routineColumns(sql)} from routines where enabled order by id`;
}

/** Claims the minute `minute` for the routine: true once per routine and minute, however many processes ask. */
export async function claimDueMinute(sql: Db, id: string, minute: Date): Promise<boolean> {
  const rows = await sql`
    update routines set last_due_at = ${minute}
    where id = ${id} and enabled and (last_due_at is null or last_due_at < ${minute}) returning id`;
  return rows.length > 0;
}

export async function findRoutine(sql: Db, id: string): Promise<Routine | undefined> {
  const [row] = await sql<Routine[]>`select ${routineColumns(sql)} from routines where id = ${id}`;
  return row;
}

export async function updateRoutine(sql: Db, id: string, patch: UpdateRoutine): Promise<Routine | undefined> {
  const [row] = await sql<Routine[]>`
    update routines set ${sql(patch as Record<string, unknown>, ...(Object.keys(patch) as never[]))},
      updated_at = now()
    where id = ${id} returning ${routineColumns(sql)}`;
  return row;
}

export async function deleteRoutine(sql: Db, id: string): Promise<boolean> {
  const rows = await sql`delete from routines where id = ${id} returning id`;
  return rows.length > 0;
}

/**
 * Starts a run over the period since the routine's last run (or its creation) until `until`, and moves the routine's
 * mark to `until`, in one statement: two runs never see the same period.
 */
export async function startRun(
  sql: Db,
  routineId: string,
  trigger: 'schedule' | 'manual',
  until: Date,
): Promise<RoutineRun | undefined> {
  const [row] = await sql<RoutineRun[]>`
    with marked as (
      update routines r set last_run_at = ${until}
      from (select id, coalesce(last_run_at, created_at) as since from routines where id = ${routineId} for update) old
      where r.id = old.id
      returning r.id, old.since
    )
    insert into routine_runs (routine_id, trigger, period_since, period_until)
    select id, ${trigger}, since, ${until} from marked
    returning ${runColumns(sql)}`;
  return row;
}

export async function finishRun(
  sql: Db,
  id: string,
  outcome: Pick<RoutineRun, 'state' | 'output' | 'tools' | 'drafts' | 'usage' | 'error'>,
): Promise<void> {
  await sql`
    update routine_runs set state = ${outcome.state}, output = ${outcome.output},
      tools = ${sql.json(outcome.tools as never)}, drafts = ${sql.json(outcome.drafts as never)},
      usage = ${outcome.usage ? sql.json(outcome.usage as never) : null}, error = ${outcome.error},
      finished_at = now()
    where id = ${id}`;
}

export async function listRuns(sql: Db, routineId: string, page: { limit: number; offset: number }) {
  const items = await sql<RoutineRun[]>`
    select ${runColumns(sql)} from routine_runs where routine_id = ${routineId}
    order by started_at desc, id limit ${page.limit} offset ${page.offset}`;
  const [{ total }] = await sql<{ total: number }[]>`
    select count(*)::int as total from routine_runs where routine_id = ${routineId}`;
  return { items, total };
}
