// Project writes for the entity registry.
import { defined } from '../../lib/defined.ts';
import {
  deleteInReach,
  type EntityHandler,
  lockInReach,
  spaceToCreateIn,
  updated,
  validator,
} from '../entities/handler.ts';
import { CreateProject, UpdateProject } from './schema.ts';
import { deleteProject, insertProject, lockProject, updateProject } from './store.ts';

const checkCreate = validator(CreateProject, 'project');
const checkUpdate = validator(UpdateProject, 'project patch');

function toDate(value: Date | string | null | undefined): Date | null | undefined {
  return value === undefined || value === null ? value : new Date(value);
}

export const projectHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    const input = checkCreate(payload);
    const spaceId = await spaceToCreateIn(tx, ctx, input.space_id);
    return insertProject(tx, {
      space_id: spaceId,
      name: input.name.trim(),
      status: input.status ?? 'active',
      research_status: input.research_status ?? 'idle',
      research_notes: input.research_notes ?? '',
    });
  },

  async update(tx, id, patch, ctx) {
    const input = checkUpdate(patch);
    await lockInReach(tx, ctx, id, lockProject, 'project');
    const fields = defined({
      ...input,
      name: input.name?.trim(),
      research_started_at: toDate(input.research_started_at),
      research_finished_at: toDate(input.research_finished_at),
    });
    return updated(await updateProject(tx, id, fields), 'project');
  },

  delete: deleteInReach(lockProject, deleteProject, 'project'),
};
