// The tasks domain's tools: list tasks in the caller's scope, create and change them.
import { readScopeOf } from '../entities/write.ts';
import { closed, paged, type Tool, tool, Written, withId, write, writeNote } from '../mcp/tool.ts';
import { CreateTask, TaskList, TaskListQuery, UpdateTask } from './schema.ts';
import { listTasks } from './store.ts';

const UpdateTaskArgs = withId(UpdateTask);

export const taskTools: Tool[] = [
  tool({
    name: 'list_tasks',
    title: 'List tasks',
    description: 'Tasks, due first, filtered by space, project or status.',
    input: closed(TaskListQuery),
    output: TaskList,
    readOnly: true,
    run: (args, ctx) =>
      paged(
        args,
        listTasks(ctx.sql, {
          spaceId: readScopeOf(ctx.principal, args.space_id),
          projectId: args.project_id,
          status: args.status,
          limit: args.limit,
          offset: args.offset,
        }),
      ),
  }),
  tool({
    name: 'create_task',
    title: 'Create a task',
    description: `Create a task in a project (it takes the project's space). ${writeNote}`,
    input: CreateTask,
    output: Written('Task'),
    readOnly: false,
    run: (args, ctx) => write(ctx, { entity_type: 'task', action: 'create', payload: args }),
  }),
  tool({
    name: 'update_task',
    title: 'Change a task',
    description: `Change a task, or move it to another project of the same space. ${writeNote}`,
    input: UpdateTaskArgs,
    output: Written('Task'),
    readOnly: false,
    run: ({ id, ...patch }, ctx) =>
      write(ctx, { entity_type: 'task', action: 'update', entity_id: id, payload: patch }),
  }),
];
