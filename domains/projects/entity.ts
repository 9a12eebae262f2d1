// Project writes for the entity registry.
import {
  assertReach,
  defined,
  type EntityHandler,
  missing,
  requireSpace,
  validator,
} from '../entities/handler.ts';
import { CreateProject, UpdateProject } from './schema.ts';
import { deleteProject, insertProject, lockProject, updateProject } from './store.ts';

const checkCreate = validator(CreateProject, 'project');
const checkUpdate = validator(UpdateProject, 'project patch');

export const projectHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    const input = checkCreate(payload);
    const spaceId = await requireSpace(tx, ctx, input.space_id, 'a project');
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
    const project = await lockProject(tx, id);
    if (!project) throw missing('project');
    assertReach(ctx, project.space_id);
    const { research_started_at, research_finished_at, ...rest } = input;
    const updated = await updateProject(
      tx,
      id,
      defined({
        ...rest,
        name: input.name?.trim(),
        research_started_at: research_started_at === undefined ? undefined : toDate(research_started_at),
        research_finished_at: research_finished_at === undefined ? undefined : toDate(research_finished_at),
      }),
    );
    if (!updated) throw missing('project');
    return updated;
  },

  async delete(tx, id, ctx) {
    const project = await lockProject(tx, id);
    if (!project) throw missing('project');
    assertReach(ctx, project.space_id);
    await deleteProject(tx, id);
    return project;
  },
};

function toDate(value: Date | string | null): Date | null {
  return value === null ? null : new Date(value);
}
