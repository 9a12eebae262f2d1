// What an event on the timeline is, as recorded and as read.
import { type Static, Type } from 'typebox';
import { Offset, Timestamp, Uuid } from '../../lib/schemas.ts';

export type Severity = 'info' | 'notice' | 'warning' | 'critical';

/** Who did it: the owner, the hub itself, or an agent (its id). */
export type Actor = 'owner' | 'system' | { agent: string };

export interface NewEvent {
  /** `area.what`: service.down, device.first_seen, page.updated. */
  kind: string;
  title: string;
  severity?: Severity;
  subject?: { type: string; id: string };
  actor?: Actor;
  /** The space of a knowledge event (pages, tasks, captures); infrastructure events have none. */
  space_id?: string | null;
  data?: Record<string, unknown>;
  /** When it happened, if not now. */
  at?: Date;
}

export const TimelineEvent = Type.Object(
  {
    id: Type.String({ description: 'Increasing with each event recorded' }),
    at: Timestamp,
    kind: Type.String({ description: '`area.what`: service.down, device.first_seen, page.updated' }),
    severity: Type.Union([
      Type.Literal('info'),
      Type.Literal('notice'),
      Type.Literal('warning'),
      Type.Literal('critical'),
    ]),
    title: Type.String(),
    subject: Type.Union([Type.Object({ type: Type.String(), id: Type.String() }), Type.Null()], {
      description: 'What it is about (a service, a device by MAC, a page), if anything',
    }),
    actor: Type.String({ description: '`owner`, `system`, or the acting agent’s id' }),
    space_id: Type.Union([Uuid, Type.Null()], {
      description: 'The space of a knowledge event; null: global',
    }),
    data: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'TimelineEvent' },
);
export type TimelineEvent = Static<typeof TimelineEvent>;

const kindsPattern = '^[a-z0-9_.*-]+(,[a-z0-9_.*-]+)*$';

export const TimelineQuery = Type.Object(
  {
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Events at or after this moment' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Events before this moment' })),
    kinds: Type.Optional(
      Type.String({
        pattern: kindsPattern,
        maxLength: 500,
        description: 'Comma-separated kinds; `area.*` takes every kind of an area (`device.*,service.down`)',
      }),
    ),
    subject: Type.Optional(
      Type.String({
        pattern: '^[a-z][a-z0-9_-]*:.+$',
        maxLength: 260,
        description: '`type:id` (service:<uuid>, device:aa:bb:cc:dd:ee:ff)',
      }),
    ),
    q: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description: 'Words of the title or kind (web search syntax)',
      }),
    ),
    limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
    // Skips after the cursor's position (with one); the cursor is the way to page.
    offset: Offset,
    cursor: Type.Optional(
      Type.String({
        maxLength: 100,
        description: 'The next_cursor of the page before, for the next (older) page',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TimelineQuery = Static<typeof TimelineQuery>;

export const TimelinePage = Type.Object({
  items: Type.Array(TimelineEvent),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page' }),
});

export const maxAroundMinutes = 24 * 60;
export const aroundLimit = 500;

export const AroundQuery = Type.Object(
  {
    at: Type.String({ format: 'date-time' }),
    minutes: Type.Integer({ minimum: 1, maximum: maxAroundMinutes, default: 30 }),
  },
  { additionalProperties: false },
);
export type AroundQuery = Static<typeof AroundQuery>;

export const AroundAnswer = Type.Object({
  from: Timestamp,
  to: Timestamp,
  items: Type.Array(TimelineEvent, { description: `Oldest first; at most ${aroundLimit}` }),
  truncated: Type.Boolean({ description: 'More happened in the window than the list holds' }),
});
