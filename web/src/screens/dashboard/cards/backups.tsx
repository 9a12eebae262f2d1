// The backups card: fresh or stale, and the last successful run.
import type { Answer } from '../../../types.ts';

export type Backups = Answer<'/api/backups'>;

export function BackupsCard({ data }: { data: Backups }) {
  return (
    <div class="stack-tight">
      <span class={`badge ${data.stale ? 'warning' : 'success'}`}>{data.stale ? 'stale' : 'fresh'}</span>
      <span>
        {data.last_success_at
          ? `Last success ${new Date(data.last_success_at).toLocaleString()}`
          : 'No successful run yet'}
      </span>
      {data.stale && data.stale_reason && <span class="muted small">{data.stale_reason}</span>}
    </div>
  );
}
