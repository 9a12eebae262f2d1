// The task list the worker runs: the executors of the tasks the modules hand it, each checked against its payload
// schema (a malformed payload fails the job at once) and recorded in job_records, plus the cron tick.
import type { Task, TaskList } from 'graphile-worker';
import type { CronItem, DomainTask, JobDeps, JobFailedHook } from './contract.ts';
import { cronTick, cronTickTask } from './cron.ts';
import { payloadProblem } from './enqueue.ts';
import { PermanentJobError } from './errors.ts';
import { recordedTaskList } from './recording.ts';

function checked(deps: JobDeps, { task, executor }: DomainTask): Task {
  const run = executor(deps);
  return async (payload, helpers) => {
    const problem = payloadProblem(task, payload);
    if (problem) throw new PermanentJobError(problem);
    await run(payload, helpers);
  };
}

export interface TaskListOptions {
  /** Every task of the modules with its executor. */
  tasks: readonly DomainTask[];
  /** The recurring items the tick starts. */
  cron: readonly CronItem[];
  /** Extra tasks next to the modules' (tests). */
  extra?: TaskList;
  /** Told of every job given up (the modules' hooks, gathered). */
  onFailed?: JobFailedHook;
}

export function buildTaskList(deps: JobDeps, options: TaskListOptions): TaskList {
  const { onFailed } = options;
  const tasks: TaskList = {};
  for (const entry of options.tasks) {
    if (tasks[entry.task.name]) throw new Error(`the task ${entry.task.name} is run by two modules`);
    tasks[entry.task.name] = checked(deps, entry);
  }
  // Every executor keeps its job record (job_records, read by the jobs API) up to date; the tick is bookkeeping.
  return {
    ...recordedTaskList(
      { ...deps, onFailed: onFailed && ((failure) => onFailed(deps, failure)) },
      { ...tasks, ...options.extra },
    ),
    [cronTickTask]: cronTick(deps, [...options.cron]),
  };
}
