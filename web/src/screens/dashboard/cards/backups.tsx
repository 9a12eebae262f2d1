// The backups card: the Proxmox backups (fresh or stale, and the last successful run; before any backup script has
// reported a run, how to connect one rather than a warning), then the hub's own backups: red when the last success is
// older than their schedule allows, and their last runs (state, time, size).
import { byteSize } from '../../../lib.ts';
import { scheduleLabel } from '../../../schedule.ts';
import type { Answer } from '../../../types.ts';
import { when } from './parts.tsx';

export type Backups = Answer<'/api/backups'>;

export function BackupsCard({ data }: { data: Backups }) {
  const hub = data.hub;
  return (
    <div class="stack-tight">
      {data.last_run === null ? (
        <>
          <span class="badge">not reporting</span>
          <span class="muted small">
            No backup job has reported a run yet: a backup script (a vzdump hook) posts each run to
            /api/backups.
          </span>
        </>
      ) : (
        <>
          <span class={`badge ${data.stale ? 'warning' : 'success'}`}>{data.stale ? 'stale' : 'fresh'}</span>
          <span>
            {data.last_success_at
              ? `Last success ${new Date(data.last_success_at).toLocaleString()}`
              : 'No successful run yet'}
          </span>
          {data.stale && data.stale_reason && <span class="muted small">{data.stale_reason}</span>}
        </>
      )}
      <section class="stack-tight" aria-label="The hub's own backups">
        <strong>
          This hub{' '}
          <span class={`badge ${hub.stale ? 'danger' : 'success'}`}>{hub.stale ? 'stale' : 'fresh'}</span>
        </strong>
        {hub.stale && hub.stale_reason && <span class="muted small">{hub.stale_reason}</span>}
        {hub.runs.length === 0 ? (
          <span class="muted small">
            {hub.schedule
              ? `No backup yet; scheduled ${scheduleLabel(hub.schedule)}`
              : 'No backup yet; no schedule'}
          </span>
        ) : (
          <ul class="card-list">
            {hub.runs.map((run) => (
              <li key={run.started_at}>
                <span class={`badge ${run.state === 'succeeded' ? 'success' : 'danger'}`}>{run.state}</span>
                <span>{when(run.finished_at)}</span>
                <span class="muted small">{run.size_bytes === null ? '—' : byteSize(run.size_bytes)}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
