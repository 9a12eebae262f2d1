import { type Static, Type } from 'typebox';
import { Offset, Timestamp, Uuid } from '../../lib/schemas.ts';

export const TurnBody = Type.Object(
  {
    message: Type.String({ minLength: 1, maxLength: 20_000, description: 'What the owner says' }),
    view: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
      description: 'What the owner is looking at (passed to the runner as JSON), or null',
    }),
  },
  { additionalProperties: false },
);
export type TurnBody = Static<typeof TurnBody>;

export const HistoryQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  offset: { ...Offset, description: 'How many of the newest (before `before`) to skip' },
  before: Type.Optional({ ...Uuid, description: 'A message id: the page of messages older than it' }),
});
export type HistoryQuery = Static<typeof HistoryQuery>;

export const Message = Type.Object(
  {
    id: Uuid,
    conversation_id: Uuid,
    role: Type.Union([
      Type.Literal('user'),
      Type.Literal('assistant'),
      Type.Literal('system'),
      Type.Literal('tool'),
    ]),
    content: Type.String(),
    metadata: Type.Record(Type.String(), Type.Unknown()),
    created_at: Timestamp,
  },
  { $id: 'Message' },
);

export const History = Type.Object({
  conversation_id: Type.Union([Uuid, Type.Null()]),
  agent: Type.Object({ id: Uuid, name: Type.String(), display_name: Type.String() }),
  items: Type.Array(Type.Ref('Message'), { description: 'Oldest first' }),
  has_more: Type.Boolean({ description: 'Older messages exist: ask again with before = the first id' }),
});

const iconRefOrEmoji = Type.Union([
  Type.String({ pattern: '^(brand:[a-z0-9-]{1,100}|set:[a-z0-9-]{1,40}:[a-z0-9-]{1,100})$' }),
  Type.String({
    pattern:
      '^\\p{Extended_Pictographic}[\\p{Extended_Pictographic}\\u200d\\ufe0f\\p{Emoji_Modifier}]{0,10}$',
  }),
  Type.Null(),
]);

/** The four settings the interface specification names. */
const specSettings = {
  avatar: iconRefOrEmoji,
  accent: Type.String({ pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$' }),
  persona: Type.String({
    maxLength: 20_000,
    description: 'The global assistant’s persona; empty: its agent’s own',
  }),
  voiceMode: Type.Union([Type.Literal('off'), Type.Literal('push-to-talk'), Type.Literal('hands-free')]),
};

/** The hub's own additions: which agents the assistant runs as. */
const hubSettings = {
  agent_id: Type.Union([Uuid, Type.Null()], {
    description: 'The agent of the global assistant and of companions; null: the built-in "assistant"',
  }),
  infra_agent_id: Type.Union([Uuid, Type.Null()], {
    description: 'The infrastructure agent; null: the first agent holding the infra capability',
  }),
};

export const AssistantSettings = Type.Object(
  { ...specSettings, ...hubSettings },
  { additionalProperties: false },
);
export type AssistantSettings = Static<typeof AssistantSettings>;

/** A write: the spec's four settings, and the hub's own only when they change (absent ones are kept). */
export const AssistantSettingsWrite = Type.Object(
  {
    ...specSettings,
    agent_id: Type.Optional(hubSettings.agent_id),
    infra_agent_id: Type.Optional(hubSettings.infra_agent_id),
  },
  { additionalProperties: false },
);
export type AssistantSettingsWrite = Static<typeof AssistantSettingsWrite>;

export const CompanionBody = Type.Object(
  { agent_id: Type.Union([Uuid, Type.Null()], { description: 'null: the assistant settings’ agent' }) },
  { additionalProperties: false },
);
