// The task catalogue: every background task the hub runs, declared once with its payload schema. Task names are
// written here and nowhere else as strings to enqueue: `enqueue(tx, 'ingest.url', payload)` is typed by this table
// and checks the payload against it, and the worker refuses to start with a declared task that has no executor.
// A domain adds its task here (name, payload schema from its schema.ts, what it does) and its executor in its jobs.ts.
import type { Static, TSchema } from 'typebox';
import { IngestPayload, LinkdingSyncPayload } from '../domains/capture/schema.ts';
import { ScanPayload } from '../domains/devices/schema.ts';
import { DiscoverPayload, HealthCheckPayload } from '../domains/health/schema.ts';
import { PageHistoryPurgePayload } from '../domains/page-history/schema.ts';
import { SpeedtestRunPayload } from '../domains/speedtest/schema.ts';
import { TrashPurgePayload } from '../domains/trash/schema.ts';
import { VoicePurgePayload } from '../domains/voice/schema.ts';

export interface TaskDeclaration {
  payload: TSchema;
  /** What the task does, for the jobs API and the docs. */
  description: string;
  /** The owner (or an approved agent proposal) may start it by name through /api/actions/run. */
  action?: boolean;
  /** What an action's params are merged over to make the payload. */
  actionDefaults?: Record<string, unknown>;
  /** Attempts before a failing run is given up (graphile-worker's default is 25). */
  maxAttempts?: number;
}

export const taskCatalogue = {
  'ingest.url': {
    payload: IngestPayload,
    description:
      "Fetches a captured URL through the guarded client and stores the page's text as a source document",
  },
  'ingest.video': {
    payload: IngestPayload,
    description: "Stores a captured video's oEmbed metadata and, when configured, its transcript",
  },
  'speedtest.run': {
    payload: SpeedtestRunPayload,
    description: 'Measures the internet connection with SPEEDTEST_COMMAND and records the result',
    action: true,
    actionDefaults: { trigger: 'manual' },
    maxAttempts: 1,
  },
  'voice.purge': {
    payload: VoicePurgePayload,
    description: 'Deletes retained voice clips older than the retention, file and row',
  },
  'page_history.purge': {
    payload: PageHistoryPurgePayload,
    description:
      "Deletes page versions older than the page_history retention, keeping each page's newest ones",
  },
  'trash.purge': {
    payload: TrashPurgePayload,
    description: 'Deletes for good the trash items deleted longer ago than the trash retention',
  },
  'linkding.sync': {
    payload: LinkdingSyncPayload,
    description:
      'Reads the bookmarks added or changed in linkding (LINKDING_URL) since the last run and captures each one',
    maxAttempts: 3,
  },
  'health.check': {
    payload: HealthCheckPayload,
    description:
      'Checks monitored services (the named ones, every enabled one, or those due), records results and state changes, and sends alerts',
    action: true,
    maxAttempts: 1,
  },
  'discover.lan': {
    payload: DiscoverPayload,
    description:
      'Sweeps DISCOVERY_CIDRS on DISCOVERY_PORTS and stores what answers as disabled service candidates',
    action: true,
    maxAttempts: 2,
  },
  'devices.scan': {
    payload: ScanPayload,
    description:
      'Reads the neighbour table, DHCP leases and the scan command, and updates the LAN device inventory',
    action: true,
    maxAttempts: 3,
  },
} as const satisfies Record<string, TaskDeclaration>;

export type TaskName = keyof typeof taskCatalogue;
export type TaskPayload<Name extends TaskName> = Static<(typeof taskCatalogue)[Name]['payload']>;
export const taskNames = Object.keys(taskCatalogue) as TaskName[];

export function isTaskName(name: string): name is TaskName {
  return Object.hasOwn(taskCatalogue, name);
}

/** The tasks /api/actions may start. */
export const actionTasks = taskNames.filter(
  (name) => (taskCatalogue[name] as TaskDeclaration).action === true,
);
