// Names for the hub's schemas, all taken from the generated api.d.ts.
import type { components, paths } from './api.d.ts';

type Schemas = components['schemas'];
export type Space = Schemas['Space'];
export type PageNode = Schemas['PageNode'];
export type Page = Schemas['Page'];
export type Project = Schemas['Project'];
export type Task = Schemas['Task'];
export type Ref = Schemas['Ref'];
export type Resource = Schemas['Resource'];
export type SourceDoc = Schemas['SourceDoc'];
export type Job = Schemas['Job'];
export type Capture = Schemas['Capture'];
export type PendingChange = Schemas['PendingChange'];
export type AuditEntry = Schemas['AuditEntry'];
export type Agent = Schemas['Agent'];
export type AgentToken = Schemas['AgentToken'];
export type SpeedtestResult = Schemas['SpeedtestResult'];
export type VoiceClip = Schemas['VoiceClip'];
export type IconSet = Schemas['IconSet'];
export type Device = Schemas['Device'];
export type Service = Schemas['Service'];
export type PageVersion = Schemas['PageVersion'];
export type TrashItem = Schemas['TrashItem'];
export type TimelineEvent = Schemas['TimelineEvent'];

/** What a GET route answers with 200, from the generated paths: `Answer<'/api/health/services'>`. */
export type Answer<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer Body } } } };
}
  ? Body
  : never;
