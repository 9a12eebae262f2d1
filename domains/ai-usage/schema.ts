import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../../lib/schemas.ts';

export const UsageRecordInput = Type.Object(
  {
    source: Type.String({ minLength: 1, maxLength: 100, description: 'Who used the model: a tool’s name' }),
    model: Type.String({ minLength: 1, maxLength: 200 }),
    input_tokens: Type.Integer({ minimum: 0, maximum: 100_000_000 }),
    output_tokens: Type.Integer({ minimum: 0, maximum: 100_000_000 }),
    latency_ms: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: 86_400_000 }), Type.Null()])),
    ok: Type.Optional(Type.Boolean({ default: true })),
    local: Type.Optional(
      Type.Boolean({ default: false, description: 'The model ran on the owner’s machines' }),
    ),
  },
  { additionalProperties: false },
);
export type UsageRecordInput = Static<typeof UsageRecordInput>;

export const UsageRecord = Type.Object({
  id: Uuid,
  agent_id: Type.Union([Uuid, Type.Null()]),
  source: Type.String(),
  model: Type.String(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  latency_ms: Type.Union([Type.Integer(), Type.Null()]),
  ok: Type.Boolean(),
  local: Type.Boolean(),
  created_at: Timestamp,
});
export type UsageRecord = Static<typeof UsageRecord>;

const Nullable = Type.Union([Type.Number(), Type.Null()]);

export const ModelUsage = Type.Object({
  model: Type.String(),
  local: Type.Boolean(),
  requests: Type.Integer(),
  input_tokens: Type.Integer(),
  output_tokens: Type.Integer(),
  errors: Type.Integer(),
  error_rate: Type.Number(),
  p50_latency_ms: Nullable,
  p95_latency_ms: Nullable,
});
export type ModelUsage = Static<typeof ModelUsage>;

export const UsageSummaryQuery = Type.Object({
  tz: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone; default the hub’s' }),
  ),
});

export const UsageSummary = Type.Object({
  time_zone: Type.String(),
  today: Type.Object({
    input_tokens: Type.Integer(),
    output_tokens: Type.Integer(),
    requests: Type.Integer(),
  }),
  week: Type.Object({
    input_tokens: Type.Integer(),
    output_tokens: Type.Integer(),
    requests: Type.Integer(),
  }),
  top_model: Type.Union([Type.String(), Type.Null()], { description: 'Most tokens over the last 7 days' }),
  local: Type.Object({
    requests: Type.Integer(),
    p50_latency_ms: Nullable,
    p95_latency_ms: Nullable,
    error_rate: Type.Union([Type.Number(), Type.Null()]),
  }),
  models: Type.Array(ModelUsage, { description: 'The last 7 days, most tokens first' }),
});
export type UsageSummary = Static<typeof UsageSummary>;
