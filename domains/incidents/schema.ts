// What an incident is: a root cause and everything that failed under it, from the timeline's events.
import { type Static, Type } from 'typebox';
import { NullableTimestamp, PageQuery, Paginated, Timestamp, Uuid } from '../../lib/schemas.ts';
import { defineTask } from '../../worker/contract.ts';

/** A timeline subject in an incident: a service, a backup target, the storage roll-up. */
export const IncidentSubject = Type.Object({
  type: Type.String(),
  id: Type.String(),
  name: Type.String(),
});
export type IncidentSubject = Static<typeof IncidentSubject>;

export const IncidentMember = Type.Object({
  ...IncidentSubject.properties,
  /** Still failing; false once it has recovered. */
  failing: Type.Boolean(),
});
export type IncidentMember = Static<typeof IncidentMember>;

export const IncidentEvent = Type.Object({
  id: Type.String(),
  at: Timestamp,
  kind: Type.String(),
  title: Type.String(),
  severity: Type.String(),
});
export type IncidentEvent = Static<typeof IncidentEvent>;

export const incidentStates = ['open', 'resolved'] as const;
export type IncidentState = (typeof incidentStates)[number];

export const Incident = Type.Object(
  {
    id: Uuid,
    title: Type.String(),
    state: Type.Enum(incidentStates),
    opened_at: Timestamp,
    resolved_at: NullableTimestamp,
    /** Seconds from opening to resolution; null while open. */
    duration_s: Type.Union([Type.Integer(), Type.Null()]),
    /** The root cause, and whether it still fails. */
    root: IncidentMember,
    /** What failed under the root, and whether it still fails. */
    affected: Type.Array(IncidentMember),
    events: Type.Array(IncidentEvent),
    page_id: Type.Union([Uuid, Type.Null()]),
  },
  { $id: 'Incident' },
);
export type Incident = Static<typeof Incident>;

export const IncidentQuery = Type.Object({
  ...PageQuery.properties,
  state: Type.Optional(Type.Enum(incidentStates)),
});
export type IncidentQuery = Static<typeof IncidentQuery>;

export const IncidentPage = Paginated(Type.Ref('Incident'));

export const UpdateIncident = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** Only `resolved`: the owner closes it by hand. */
    state: Type.Optional(Type.Literal('resolved')),
    /** Written under the page's Resolution heading (replacing what is there). */
    resolution: Type.Optional(Type.String({ maxLength: 20_000 })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateIncident = Static<typeof UpdateIncident>;

export const incidentsFollowTask = defineTask({
  name: 'incidents.follow',
  payload: Type.Object({}),
  description:
    'Reads the timeline from where it last stopped and opens, joins or resolves incidents (one run at a time)',
  maxAttempts: 3,
});

export const incidentsDiagnoseTask = defineTask({
  name: 'incidents.diagnose',
  payload: Type.Object({ incident_id: Type.String({ format: 'uuid' }) }),
  description:
    'Asks the infrastructure agent for a diagnosis of a new incident; what it writes arrives as pending changes',
  maxAttempts: 1,
});
