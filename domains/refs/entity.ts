// Ref writes for the entity registry, including the upsert by external identity (source + external_id), which is
// unique per space.
import { normaliseTags } from '../../lib/tags.ts';
import {
  deleteInReach,
  type EntityHandler,
  spaceToCreateIn,
  updateInReach,
  validator,
} from '../entities/handler.ts';
import { CreateRef, UpdateRef } from './schema.ts';
import { deleteRef, insertRef, lockRef, updateRef, upsertRef } from './store.ts';

const checkCreate = validator(CreateRef, 'ref');
const checkUpdate = validator(UpdateRef, 'ref patch');

/** The source trimmed and the tags normalised (left out when the payload leaves them out). */
function fitted(input: CreateRef) {
  return {
    ...input,
    source: input.source.trim(),
    tags: input.tags === undefined ? undefined : normaliseTags(input.tags),
  };
}

export const refHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    const input = checkCreate(payload);
    const spaceId = await spaceToCreateIn(tx, ctx, input.space_id);
    return insertRef(tx, { ...fitted(input), space_id: spaceId });
  },

  async upsert(tx, payload, ctx) {
    const input = checkCreate(payload);
    const spaceId = await spaceToCreateIn(tx, ctx, input.space_id);
    const result = await upsertRef(tx, { ...fitted(input), space_id: spaceId });
    return { entity: result.row, created: result.created };
  },

  update: updateInReach(checkUpdate, lockRef, updateRef, 'ref', (input) => ({
    ...input,
    source: input.source?.trim(),
    tags: input.tags === undefined ? undefined : normaliseTags(input.tags),
  })),

  delete: deleteInReach(lockRef, deleteRef, 'ref'),
};
