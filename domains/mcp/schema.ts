// The schemas tool schemas may point at with Type.Ref, by $id: the domains' entities, resolved when a tool's JSON
// Schema is built. A tool's own argument and result schemas live with the tool, in its domain's tools.ts.
import type { TSchema } from 'typebox';
import { NetworkHost } from '../network-hosts/schema.ts';
import { Page } from '../pages/schema.ts';
import { PendingChange } from '../pending-changes/schema.ts';
import { Project } from '../projects/schema.ts';
import { Ref } from '../refs/schema.ts';
import { Resource } from '../resources/schema.ts';
import { SourceDoc } from '../source-docs/schema.ts';
import { Task } from '../tasks/schema.ts';

export const named: Record<string, TSchema> = {
  Page,
  Project,
  Task,
  Ref,
  SourceDoc,
  Resource,
  NetworkHost,
  PendingChange,
};
