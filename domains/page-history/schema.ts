import { type Static, Type } from 'typebox';
import { PageQuery, Paginated, Timestamp, Uuid } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';

export const VersionAuthor = Type.Object(
  {
    kind: Type.Enum(['owner', 'agent', 'approval', 'system'], {
      description:
        "owner; an agent writing directly; the owner's approval of an agent's proposal; system (before history began)",
    }),
    agent_id: Type.Union([Uuid, Type.Null()]),
    pending_change_id: Type.Union([Uuid, Type.Null()]),
  },
  { description: 'who made this version' },
);

export const PageVersion = Type.Object(
  {
    n: Type.Integer({ minimum: 1, description: 'the version number, from 1, per page' }),
    title: Type.String(),
    size: Type.Integer({ minimum: 0, description: 'bytes of title and body' }),
    author: VersionAuthor,
    restored_from: Type.Union([Type.Integer(), Type.Null()], {
      description: 'the version this one restored',
    }),
    created_at: Timestamp,
    current: Type.Boolean({ description: "the page's text now" }),
  },
  { $id: 'PageVersion' },
);
export type PageVersion = Static<typeof PageVersion>;

export const PageVersionText = Type.Intersect([
  Type.Ref('PageVersion'),
  Type.Object({
    body: Type.String({ description: 'Markdown' }),
    diff: Type.String({
      description:
        'unified diff from this version to the current text (title and body); empty for the current one',
    }),
  }),
]);

export const PageVersionList = Paginated(Type.Ref('PageVersion'));
export const VersionListQuery = PageQuery;
export const VersionParams = Type.Object({
  id: Uuid,
  n: Type.Integer({ minimum: 1, maximum: 2_147_483_647 }),
});

export const PageHistorySettings = Type.Object(
  {
    retention_days: Type.Integer({ minimum: 1, maximum: 36_500, description: 'older versions are purged' }),
    keep_last: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      description: 'the newest versions of each page always kept, whatever their age',
    }),
  },
  { additionalProperties: false },
);

export const PageHistoryPurgePayload = Type.Object({}, { additionalProperties: false });

export const pageHistoryPurgeTask = defineTask({
  name: 'page_history.purge',
  payload: PageHistoryPurgePayload,
  description: "Deletes page versions older than the page_history retention, keeping each page's newest ones",
});
