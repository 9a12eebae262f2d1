// Task writes for the entity registry. A task lives in its project's space: a given space_id must agree, and a
// task moves only between projects of one space.
import { defined } from '../../lib/defined.ts';
import { hubError } from '../../lib/errors.ts';
import { agentCanReachSpace } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import {
  deleteInReach,
  type EntityHandler,
  lockInReach,
  updated,
  validator,
  type WriteContext,
} from '../entities/handler.ts';
import { CreateTask, UpdateTask } from './schema.ts';
import { deleteTask, insertTask, lockTask, projectSpace, updateTask } from './store.ts';

const checkCreate = validator(CreateTask, 'task');
const checkUpdate = validator(UpdateTask, 'task patch');

/** The space of a project the caller can see (one outside an agent's scope is as missing as none). */
async function spaceOfProject(tx: Db, ctx: WriteContext, projectId: string): Promise<string> {
  const spaceId = await projectSpace(tx, projectId);
  if (!spaceId || !agentCanReachSpace(ctx.principal, spaceId)) throw hubError('PROJECT_NOT_FOUND');
  return spaceId;
}

export const taskHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    const input = checkCreate(payload);
    const spaceId = await spaceOfProject(tx, ctx, input.project_id);
    if (input.space_id !== undefined && input.space_id !== spaceId) {
      throw hubError('SPACE_MISMATCH', "a task belongs to its project's space; space_id names another space");
    }
    return insertTask(tx, {
      project_id: input.project_id,
      space_id: spaceId,
      title: input.title.trim(),
      status: input.status ?? 'todo',
      due_at: input.due_at ?? null,
      notes: input.notes ?? '',
    });
  },

  async update(tx, id, patch, ctx) {
    const input = checkUpdate(patch);
    const task = await lockInReach(tx, ctx, id, lockTask, 'task');
    if (input.project_id !== undefined && input.project_id !== task.project_id) {
      if ((await spaceOfProject(tx, ctx, input.project_id)) !== task.space_id) {
        throw hubError('SPACE_MISMATCH', 'a task can only move to a project of the same space');
      }
    }
    return updated(await updateTask(tx, id, defined({ ...input, title: input.title?.trim() })), 'task');
  },

  delete: deleteInReach(lockTask, deleteTask, 'task'),
};
