// Ref writes for the entity registry, including the upsert by external identity (source + external_id).
import { httpErrors } from '@fastify/sensible';
import {
  assertReach,
  defined,
  type EntityHandler,
  missing,
  requireSpace,
  validator,
} from '../entities/handler.ts';
import { CreateRef, UpdateRef } from './schema.ts';
import { deleteRef, insertRef, lockRef, updateRef, upsertRef } from './store.ts';

const checkCreate = validator(CreateRef, 'ref');
const checkUpdate = validator(UpdateRef, 'ref patch');

export const refHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    const input = checkCreate(payload);
    const spaceId = await requireSpace(tx, ctx, input.space_id, 'a ref');
    return insertRef(tx, { ...input, source: input.source.trim(), space_id: spaceId });
  },

  async upsert(tx, payload, ctx) {
    const input = checkCreate(payload);
    const spaceId = await requireSpace(tx, ctx, input.space_id, 'a ref');
    const result = await upsertRef(tx, { ...input, source: input.source.trim(), space_id: spaceId });
    if (result === 'other-space') {
      throw httpErrors.conflict(
        `the ref ${input.source}:${input.external_id} already exists in another space`,
      );
    }
    return { entity: result.row, created: result.created };
  },

  async update(tx, id, patch, ctx) {
    const input = checkUpdate(patch);
    const ref = await lockRef(tx, id);
    if (!ref) throw missing('ref');
    assertReach(ctx, ref.space_id);
    const updated = await updateRef(tx, id, defined({ ...input, source: input.source?.trim() }));
    if (!updated) throw missing('ref');
    return updated;
  },

  async delete(tx, id, ctx) {
    const ref = await lockRef(tx, id);
    if (!ref) throw missing('ref');
    assertReach(ctx, ref.space_id);
    await deleteRef(tx, id);
    return ref;
  },
};
