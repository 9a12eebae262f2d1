// What an event on the timeline is.

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
