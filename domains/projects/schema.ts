import { type Static, Type } from 'typebox';
import {
  CreateSpaceId,
  NullableTimestamp,
  PageQuery,
  Paginated,
  Patch,
  Timestamp,
  Uuid,
} from '../../lib/schemas.ts';

export const ProjectStatus = Type.Enum(['planned', 'active', 'paused', 'done', 'archived']);
export const ResearchStatus = Type.Enum(['idle', 'queued', 'running', 'done', 'failed']);

export const Project = Type.Object(
  {
    id: Uuid,
    space_id: Uuid,
    name: Type.String(),
    status: ProjectStatus,
    research_status: ResearchStatus,
    research_notes: Type.String(),
    research_started_at: NullableTimestamp,
    research_finished_at: NullableTimestamp,
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Project' },
);

const name = Type.String({ minLength: 1, maxLength: 300, pattern: '\\S' });
const notes = Type.String({ maxLength: 200_000 });

export const CreateProject = Type.Object(
  {
    space_id: CreateSpaceId,
    name,
    status: Type.Optional(ProjectStatus),
    research_status: Type.Optional(ResearchStatus),
    research_notes: Type.Optional(notes),
  },
  { additionalProperties: false },
);
export type CreateProject = Static<typeof CreateProject>;

export const UpdateProject = Patch({
  name,
  status: ProjectStatus,
  research_status: ResearchStatus,
  research_notes: notes,
  research_started_at: NullableTimestamp,
  research_finished_at: NullableTimestamp,
});
export type UpdateProject = Static<typeof UpdateProject>;

export const ProjectList = Paginated(Type.Ref('Project'));
export const ProjectListQuery = Type.Intersect([
  PageQuery,
  Type.Object({ space_id: Type.Optional(Uuid), status: Type.Optional(ProjectStatus) }),
]);

export const ProjectLinks = Type.Object({
  project_id: Uuid,
  tasks: Type.Array(Type.Ref('Task')),
  refs: Type.Array(Type.Ref('Ref')),
});

export const LinkRef = Type.Object({ ref_id: Uuid }, { additionalProperties: false });
export const ProjectRefLink = Type.Object({ project_id: Uuid, ref_id: Uuid, created_at: Timestamp });
export const ProjectRefParams = Type.Object({ id: Uuid, refId: Uuid });
export const ProjectRefList = Paginated(Type.Ref('Ref'));
