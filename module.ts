// What a domain is to the rest of the hub: one module object, exported by its index.ts and listed once in
// modules.ts. `gather` turns the list into the lookups the shared parts use (the worker's tasks and cron items, the
// typed settings, the entity write handlers, the MCP tools, the runnable actions); app.ts hands them to the routes
// as `app.hub`, worker/main.ts to the worker.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { EntityHandler, EntityHandlers } from './domains/entities/handler.ts';
import { changeTypes } from './domains/entities/registry.ts';
import type { SealedStore } from './domains/integrations/keyring.ts';
import type { CallerTool, Tool, ToolContext } from './domains/mcp/tool.ts';
import type { SettingDefinition } from './lib/settings.ts';
import type {
  CronItem,
  DomainCron,
  DomainTask,
  JobDeps,
  JobFailedHook,
  RunnableAction,
} from './worker/contract.ts';

/** What app.ts hands every module's routes. */
export interface ModuleOptions {
  /** The clock of time-dependent answers (card staleness); tests pass their own. */
  now: () => Date;
  /** The owner's bearer token and its digest (browser sessions are bound to it). */
  ownerToken: string;
  ownerDigest: Buffer;
}

export interface HubModule {
  /** The domain's folder name. */
  name: string;
  /** Its routes, registered under /api. */
  routes: FastifyPluginAsyncTypebox<ModuleOptions>;
  /** Background tasks with their executors. */
  tasks?: readonly DomainTask[];
  /** Recurring items (the configuration may turn some off). */
  cron?: DomainCron;
  /** Typed settings keys it owns. */
  settings?: readonly SettingDefinition[];
  /** Handlers of the entity writes it owns (the one write path of REST, MCP and approved pending changes). */
  entities?: Readonly<Record<string, EntityHandler>>;
  /** Tools of the tool protocol. */
  tools?: readonly Tool[];
  /** Tools of the tool protocol that depend on the caller and stored state, listed per request. */
  callerTools?: (ctx: ToolContext) => Promise<readonly CallerTool[]>;
  /** Tasks the owner may start by name through /api/actions/run. */
  actions?: readonly RunnableAction[];
  /** Told of every job the worker gives up. */
  onJobFailed?: JobFailedHook;
  /** Where it keeps values sealed under the hub's secret key: the key check at start and the key rotation cover them. */
  sealed?: readonly SealedStore[];
}

/** Everything the modules contribute, gathered and checked once. */
export interface Hub {
  modules: readonly HubModule[];
  tasks: readonly DomainTask[];
  cron: (deps: JobDeps) => CronItem[];
  settings: ReadonlyMap<string, SettingDefinition>;
  entities: EntityHandlers;
  tools: readonly Tool[];
  toolsByName: ReadonlyMap<string, Tool>;
  /** Every module's caller tools for one caller. */
  callerTools: (ctx: ToolContext) => Promise<CallerTool[]>;
  actions: readonly RunnableAction[];
  /** Every module's onJobFailed, one after the other. */
  onJobFailed: JobFailedHook;
  /** Every module's sealed values. */
  sealed: readonly SealedStore[];
}

function unique<T>(items: readonly T[], keyOf: (item: T) => string, what: string): Map<string, T> {
  const byKey = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    if (byKey.has(key)) throw new Error(`two modules declare the ${what} ${key}`);
    byKey.set(key, item);
  }
  return byKey;
}

/** Gathers the modules' contributions; a name declared twice, or a change type without its handler, is an error. */
export function gather(modules: readonly HubModule[]): Hub {
  unique(modules, (module) => module.name, 'module');
  const tasks = modules.flatMap((module) => module.tasks ?? []);
  unique(tasks, (entry) => entry.task.name, 'task');
  const entities: Record<string, EntityHandler> = {};
  for (const module of modules) {
    for (const [type, handler] of Object.entries(module.entities ?? {})) {
      if (entities[type]) throw new Error(`two modules declare the entity handler ${type}`);
      entities[type] = handler;
    }
  }
  for (const type of changeTypes) {
    if (!entities[type]) throw new Error(`no module handles writes of the entity type ${type}`);
  }
  const tools = modules.flatMap((module) => module.tools ?? []);
  const actions = modules.flatMap((module) => module.actions ?? []);
  unique(actions, (action) => action.task.name, 'action');
  const runnable = new Set(tasks.map((entry) => entry.task));
  for (const action of actions) {
    if (!runnable.has(action.task)) throw new Error(`the action ${action.task.name} is no module's task`);
  }
  const crons = modules.flatMap((module) => (module.cron ? [module.cron] : []));
  const failureHooks = modules.flatMap((module) => (module.onJobFailed ? [module.onJobFailed] : []));
  const callerTools = modules.flatMap((module) => (module.callerTools ? [module.callerTools] : []));
  return {
    modules,
    tasks,
    cron: (deps) => crons.flatMap((items) => items(deps)),
    settings: unique(
      modules.flatMap((module) => module.settings ?? []),
      (setting) => setting.key,
      'setting',
    ),
    entities,
    tools,
    toolsByName: unique(tools, (tool) => tool.name, 'tool'),
    callerTools: async (ctx) => (await Promise.all(callerTools.map((list) => list(ctx)))).flat(),
    actions,
    onJobFailed: async (deps, failure) => {
      for (const hook of failureHooks) await hook(deps, failure);
    },
    sealed: modules.flatMap((module) => module.sealed ?? []),
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The modules' contributions (modules.ts), for the routes that serve them all. */
    hub: Hub;
  }
}
