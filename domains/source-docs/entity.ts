// Source-document writes for the entity registry. Ingestion writes through the store directly
// (upsertSourceDocByUrl); these handlers serve the REST routes and approved pending changes.
import { normaliseTags } from '../../lib/tags.ts';
import {
  deleteInReach,
  type EntityHandler,
  lockInReach,
  spaceToCreateIn,
  updated,
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

/** The metadata with its `tags` normalised (the tags are kept there); none given leaves none. */
function withTags(metadata: Record<string, unknown> | undefined, tags: string[] | undefined) {
  if (tags === undefined) return metadata;
  const { tags: _old, ...rest } = metadata ?? {};
  return { ...rest, ...(tags.length ? { tags: normaliseTags(tags) } : {}) };
}

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
      metadata: withTags(input.metadata, input.tags),
    });
  },

  async update(tx, id, patch, ctx) {
    const input = checkUpdate(patch);
    const current = await lockInReach(tx, ctx, id, lockSourceDoc, 'source document');
    const { tags, ...fields } = input;
    // Tags alone keep the rest of the metadata; metadata alone keeps the tags.
    const metadata =
      tags === undefined
        ? fields.metadata && withTags(fields.metadata, current.tags)
        : withTags(fields.metadata ?? current.metadata, tags);
    return updated(await updateSourceDoc(tx, id, { ...fields, metadata }), 'source document');
  },

  delete: deleteInReach(lockSourceDoc, deleteSourceDoc, 'source document'),
};
