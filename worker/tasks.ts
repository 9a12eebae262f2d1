// The task list: every domain's jobs.ts exports a function that builds its task map from the shared
// dependencies; the worker (in-process or separate) gathers them here.
import type { TaskList } from 'graphile-worker';
import type { Sql } from 'postgres';
import type { Config } from '../config.ts';
import { captureTasks } from '../domains/capture/jobs.ts';
import { recordedTaskList } from '../domains/jobs/recording.ts';

export interface JobDeps {
  sql: Sql;
  config: Config;
}

export type DomainTasks = (deps: JobDeps) => TaskList;

const domains: DomainTasks[] = [captureTasks];

export function buildTaskList(deps: JobDeps, extra: TaskList = {}): TaskList {
  // Every executor keeps its job record (job_records, read by the jobs API) up to date.
  return recordedTaskList(deps, Object.assign({}, ...domains.map((tasks) => tasks(deps)), extra));
}
