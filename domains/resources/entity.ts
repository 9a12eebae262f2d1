// Resource writes for the entity registry. Dependency wiring is not here: it is owner-only and never diverted.
import {
  deleteInReach,
  type EntityHandler,
  spaceToCreateIn,
  updateInReach,
  validator,
} from '../entities/handler.ts';
import { CreateResource, UpdateResource } from './schema.ts';
import { deleteResource, insertResource, lockResource, updateResource } from './store.ts';

const checkCreate = validator(CreateResource, 'resource');
const checkUpdate = validator(UpdateResource, 'resource patch');

export const resourceHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    const input = checkCreate(payload);
    const spaceId = await spaceToCreateIn(tx, ctx, input.space_id);
    return insertResource(tx, {
      space_id: spaceId,
      name: input.name.trim(),
      kind: input.kind ?? 'other',
      host: input.host ?? null,
      notes: input.notes ?? '',
      monitoring: input.monitoring ?? {},
      metadata: input.metadata ?? {},
    });
  },

  update: updateInReach(checkUpdate, lockResource, updateResource, 'resource', (input) => ({
    ...input,
    name: input.name?.trim(),
  })),

  delete: deleteInReach(lockResource, deleteResource, 'resource'),
};
