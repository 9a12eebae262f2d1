import { type Static, Type } from 'typebox';
import { Offset, Timestamp } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';

const Nullable = <T extends ReturnType<typeof Type.Number> | ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const SpeedtestRunPayload = Type.Object(
  { trigger: Type.Union([Type.Literal('manual'), Type.Literal('schedule')]) },
  { additionalProperties: false },
);
export type SpeedtestRunPayload = Static<typeof SpeedtestRunPayload>;

export const SpeedtestSettings = Type.Object(
  {
    enabled: Type.Boolean({ description: 'false stops the schedule; a manual run still works' }),
    schedule: Type.String({
      minLength: 1,
      maxLength: 100,
      description: '5-field cron, in the hub’s local time',
    }),
    low_download_mbps: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], {
      description: 'A result below this download speed is flagged and alerted; null: no threshold',
    }),
    low_upload_mbps: Type.Union([Type.Number({ minimum: 0 }), Type.Null()]),
  },
  { additionalProperties: false },
);
export type SpeedtestSettings = Static<typeof SpeedtestSettings>;

export const SpeedtestResult = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    job_id: Nullable(Type.String()),
    trigger: Type.Union([Type.Literal('manual'), Type.Literal('schedule')]),
    status: Type.Union([Type.Literal('ok'), Type.Literal('failed')]),
    measured_at: Timestamp,
    download_mbps: Nullable(Type.Number()),
    upload_mbps: Nullable(Type.Number()),
    ping_ms: Nullable(Type.Number()),
    jitter_ms: Nullable(Type.Number()),
    packet_loss_pct: Nullable(Type.Number({ description: 'null when the runner did not measure it' })),
    server_id: Nullable(Type.String()),
    server_name: Nullable(Type.String()),
    server_location: Nullable(Type.String()),
    server_host: Nullable(Type.String()),
    isp: Nullable(Type.String()),
    result_url: Nullable(Type.String({ description: 'The shareable result page' })),
    bytes_sent: Nullable(Type.Number()),
    bytes_received: Nullable(Type.Number()),
    format: Nullable(Type.String({ description: 'ookla or speedtest-cli' })),
    below_threshold: Type.Boolean(),
    error: Nullable(Type.String()),
  },
  { $id: 'SpeedtestResult' },
);
export type SpeedtestResult = Static<typeof SpeedtestResult>;

export const SpeedtestRunAccepted = Type.Object({
  job_id: Type.String(),
  already_running: Type.Boolean({ description: 'true: a run was queued or running; this is its job' }),
});

const Spread = Type.Object({
  min: Nullable(Type.Number()),
  median: Nullable(Type.Number()),
  max: Nullable(Type.Number()),
});

export const HistoryQuery = Type.Object({
  since: Type.Optional(Type.String({ format: 'date-time' })),
  until: Type.Optional(Type.String({ format: 'date-time' })),
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
  offset: Offset,
});
export type HistoryQuery = Static<typeof HistoryQuery>;

export const Summary = Type.Object({
  count: Type.Integer(),
  failures: Type.Integer(),
  below_threshold: Type.Integer(),
  download_mbps: Spread,
  upload_mbps: Spread,
  ping_ms: Spread,
});
export type Summary = Static<typeof Summary>;

export const History = Type.Object({
  items: Type.Array(Type.Ref('SpeedtestResult')),
  summary: Summary,
});

export const speedtestRunTask = defineTask({
  name: 'speedtest.run',
  payload: SpeedtestRunPayload,
  description: 'Measures the internet connection with SPEEDTEST_COMMAND and records the result',
  maxAttempts: 1,
});
