// Running routines: each minute the due ones are enqueued, one job per routine and minute (claimed in its row), so
// a routine runs once however many processes tick; a run is a headless assistant turn of the routine's agent with the
// timeline of the period since its last run as its view, recorded with its output, usage, state and error.
import { cronMatches } from '../../lib/cron.ts';
import type { JobDeps } from '../../worker/contract.ts';
import { enqueue } from '../../worker/enqueue.ts';
import { findAgent } from '../agents/turn-token.ts';
import { runHeadlessTurn } from '../assistant/headless.ts';
import { eventsBetween } from '../timeline/read.ts';
import { routineRunTask } from './schema.ts';
import { claimDueMinute, enabledRoutines, findRoutine, finishRun, startRun } from './store.ts';

/**
 * Enqueues a run of every enabled routine due in the minute of `at`, each with its claim of the minute in one
 * transaction (so it runs once however often the minute is ticked); answers the ids enqueued.
 */
export async function enqueueDueRoutines(deps: Pick<JobDeps, 'sql'>, at: Date): Promise<string[]> {
  const minute = new Date(at);
  minute.setSeconds(0, 0);
  const due = (await enabledRoutines(deps.sql)).filter((routine) => cronMatches(routine.schedule, minute));
  const enqueued: string[] = [];
  for (const routine of due) {
    const claimed = await deps.sql.begin(async (tx) => {
      if (!(await claimDueMinute(tx, routine.id, minute))) return false;
      await enqueue(tx, routineRunTask, { routine_id: routine.id, trigger: 'schedule' });
      return true;
    });
    if (claimed) enqueued.push(routine.id);
  }
  return enqueued;
}

/** One run of a routine; a scheduled run of a routine disabled since it was enqueued does not happen. */
export async function runRoutine(
  deps: JobDeps,
  routineId: string,
  trigger: 'schedule' | 'manual',
): Promise<string | null> {
  const { sql } = deps;
  const routine = await findRoutine(sql, routineId);
  if (!routine || (trigger === 'schedule' && !routine.enabled)) return null;
  const run = await startRun(sql, routine.id, trigger, new Date());
  if (!run) return null;
  try {
    const agent = await findAgent(sql, routine.agent_id);
    if (!agent) throw new Error('the routine’s agent no longer exists');
    const since = new Date(run.period_since);
    const until = new Date(run.period_until);
    const events = await eventsBetween(sql, { spaceId: routine.space_id }, since, until, 500);
    const result = await runHeadlessTurn(deps, {
      agent,
      prompt: routine.prompt,
      view: {
        routine: routine.name,
        period: { since: since.toISOString(), until: until.toISOString() },
        timeline: events.map(({ data: _data, ...event }) => event),
      },
      spaceId: routine.space_id,
    });
    await finishRun(sql, run.id, {
      state: result.ok ? 'succeeded' : 'failed',
      output: result.text,
      tools: result.tools,
      drafts: result.drafts,
      usage: result.usage,
      error: result.error,
    });
  } catch (error) {
    await finishRun(sql, run.id, {
      state: 'failed',
      output: '',
      tools: [],
      drafts: [],
      usage: null,
      error: (error as Error).message,
    });
  }
  return run.id;
}
