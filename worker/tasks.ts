// The task list the worker runs: every domain's executors for the tasks of the catalogue, each checked against its
// payload schema (a malformed payload fails the job at once) and recorded in job_records, plus the cron tick.
import type { JobHelpers, Task, TaskList } from 'graphile-worker';
import type { Sql } from 'postgres';
import type { Config } from '../config.ts';
import { captureTasks } from '../domains/capture/jobs.ts';
import { linkdingCron } from '../domains/capture/linkding.ts';
import { devicesCron, devicesTasks } from '../domains/devices/jobs.ts';
import { healthCron, healthTasks } from '../domains/health/jobs.ts';
import { pageHistoryCron, pageHistoryTasks } from '../domains/page-history/jobs.ts';
import { speedtestCron, speedtestTasks } from '../domains/speedtest/jobs.ts';
import { trashCron, trashTasks } from '../domains/trash/jobs.ts';
import { voiceCron, voiceTasks } from '../domains/voice/jobs.ts';
import { type TaskName, type TaskPayload, taskNames } from './catalogue.ts';
import { type CronItem, cronTick, cronTickTask, type DomainCron } from './cron.ts';
import { payloadProblem } from './enqueue.ts';
import { PermanentJobError } from './errors.ts';
import { recordedTaskList } from './recording.ts';

export interface JobDeps {
  sql: Sql;
  config: Config;
}

/** An executor: receives the payload already checked against the task's schema. */
export type Executor<Name extends TaskName> = (
  payload: TaskPayload<Name>,
  helpers: JobHelpers,
) => Promise<void>;
export type Executors = { [Name in TaskName]?: Executor<Name> };
/** A domain's executors, built from the shared dependencies. */
export type DomainTasks = (deps: JobDeps) => Executors;

const domainTasks: DomainTasks[] = [
  captureTasks,
  speedtestTasks,
  voiceTasks,
  devicesTasks,
  healthTasks,
  pageHistoryTasks,
  trashTasks,
];
const domainCron: DomainCron[] = [
  linkdingCron,
  speedtestCron,
  voiceCron,
  devicesCron,
  healthCron,
  pageHistoryCron,
  trashCron,
];

/** Every recurring item the domains contribute. */
export function cronItems(deps: JobDeps): CronItem[] {
  return domainCron.flatMap((items) => items(deps));
}

function checked<Name extends TaskName>(name: Name, executor: Executor<Name>): Task {
  return async (payload, helpers) => {
    const problem = payloadProblem(name, payload);
    if (problem) throw new PermanentJobError(problem);
    await executor(payload as TaskPayload<Name>, helpers);
  };
}

export interface TaskListOptions {
  /** Extra tasks next to the domains' (tests). */
  extra?: TaskList;
  /** Recurring items to run instead of the domains' (tests); [] runs none. */
  cron?: CronItem[];
}

export function buildTaskList(deps: JobDeps, options: TaskListOptions = {}): TaskList {
  const executors: Executors = Object.assign({}, ...domainTasks.map((tasks) => tasks(deps)));
  const tasks: TaskList = {};
  for (const name of taskNames) {
    const executor = executors[name] as Executor<typeof name> | undefined;
    if (!executor) throw new Error(`the task ${name} is in the catalogue but no domain runs it`);
    tasks[name] = checked(name, executor);
  }
  // Every executor keeps its job record (job_records, read by the jobs API) up to date; the tick is bookkeeping.
  return {
    ...recordedTaskList(deps, { ...tasks, ...options.extra }),
    [cronTickTask]: cronTick(deps, options.cron ?? cronItems(deps)),
  };
}
