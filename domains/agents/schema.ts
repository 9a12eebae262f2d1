import { type Static, Type } from 'typebox';
import {
  NullableDateInput,
  NullableTimestamp,
  PageQuery,
  Paginated,
  Timestamp,
  Uuid,
} from '../../lib/schemas.ts';

export const TierSchema = Type.Union([Type.Literal('read'), Type.Literal('suggest'), Type.Literal('owner')]);
const Status = Type.Union([Type.Literal('active'), Type.Literal('disabled')]);
const name = Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$', description: 'lowercase handle' });
const displayName = Type.String({ minLength: 1, maxLength: 200 });
const persona = Type.String({ maxLength: 20_000 });
const capabilities = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  maxItems: 100,
  uniqueItems: true,
});

export const Agent = Type.Object(
  {
    id: Uuid,
    name,
    display_name: Type.String(),
    persona: Type.String(),
    capabilities: Type.Array(Type.String()),
    tier: TierSchema,
    space_id: Type.Union([Uuid, Type.Null()]),
    status: Status,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Agent' },
);

export const AgentInput = Type.Object(
  {
    name,
    display_name: Type.Optional(displayName),
    persona: Type.Optional(persona),
    capabilities: Type.Optional(capabilities),
    tier: Type.Optional(TierSchema),
    space_id: Type.Optional(Type.Union([Uuid, Type.Null()])),
    status: Type.Optional(Status),
  },
  { additionalProperties: false },
);
export type AgentInput = Static<typeof AgentInput>;

export const AgentPatch = Type.Object(
  {
    display_name: Type.Optional(displayName),
    persona: Type.Optional(persona),
    capabilities: Type.Optional(capabilities),
    tier: Type.Optional(TierSchema),
    space_id: Type.Optional(Type.Union([Uuid, Type.Null()])),
    status: Type.Optional(Status),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type AgentPatch = Static<typeof AgentPatch>;

export const AgentList = Paginated(Type.Ref('Agent'));

export const AgentProfile = Type.Object({
  id: Uuid,
  name: Type.String(),
  display_name: Type.String(),
  persona: Type.String(),
  capabilities: Type.Array(Type.String()),
  tier: TierSchema,
  space_id: Type.Union([Uuid, Type.Null()]),
  status: Status,
});

export const AgentToken = Type.Object(
  {
    id: Uuid,
    agent_id: Uuid,
    label: Type.String(),
    token_prefix: Type.String({
      description: 'the first characters, to recognise a token without revealing it',
    }),
    created_at: Timestamp,
    expires_at: NullableTimestamp,
    revoked_at: NullableTimestamp,
    last_used_at: NullableTimestamp,
  },
  { $id: 'AgentToken' },
);

export const MintedToken = Type.Intersect([
  Type.Ref('AgentToken'),
  Type.Object({
    token: Type.String({ description: 'the plaintext token: shown once, stored only as a hash' }),
  }),
]);

export const MintToken = Type.Object(
  {
    agent_id: Uuid,
    label: Type.Optional(Type.String({ maxLength: 200 })),
    expires_at: Type.Optional(NullableDateInput),
  },
  { additionalProperties: false },
);

export const TokenListQuery = Type.Intersect([PageQuery, Type.Object({ agent_id: Type.Optional(Uuid) })]);
export const TokenList = Paginated(Type.Ref('AgentToken'));
