// Source-document writes for the entity registry. Ingestion writes through the store directly
// (upsertSourceDocByUrl); these handlers serve the REST routes and approved pending changes.
import {
  deleteInReach,
  type EntityHandler,
  spaceToCreateIn,
  updateInReach,
  validator,
} from '../entities/handler.ts';
import { CreateSourceDoc, UpdateSourceDoc } from './schema.ts';
import {
  deleteSourceDoc,
  insertSourceDoc,
  lockSourceDoc,
  type SourceDocOrigin,
  updateSourceDoc,
} from './store.ts';

const checkCreate = validator(CreateSourceDoc, 'source document');
const checkUpdate = validator(UpdateSourceDoc, 'source document patch');

export const sourceDocHandler: EntityHandler = {
  async create(tx, payload, ctx) {
    const input = checkCreate(payload);
    const spaceId = await spaceToCreateIn(tx, ctx, input.space_id);
    return insertSourceDoc(tx, {
      space_id: spaceId,
      url: input.url ?? null,
      title: input.title ?? '',
      content: input.content ?? '',
      content_type: input.content_type ?? 'text/plain',
      origin: (input.origin ?? 'upload') as SourceDocOrigin,
      captured_at: input.captured_at === undefined ? undefined : new Date(input.captured_at),
      metadata: input.metadata,
    });
  },

  update: updateInReach(checkUpdate, lockSourceDoc, updateSourceDoc, 'source document'),

  delete: deleteInReach(lockSourceDoc, deleteSourceDoc, 'source document'),
};
