// Settings › Data › Backups: the hub's own archives (time, size, duration, state), newest first; the owner runs one
// now (the hub.backup action; the list is read again every two seconds until the new run shows) and downloads any
// archive still in BACKUP_DIR.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ok } from '../../client.ts';
import { Table } from '../../components/Table.tsx';
import { useData } from '../../data.ts';
import { byteSize, dateTime } from '../../lib.ts';
import { scheduleLabel } from '../../schedule.ts';
import { failed, toast } from '../../state.ts';

/** How long the list is watched for a run started here before the owner is told to look again later. */
const watchMs = 120_000;

function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

export function Backups() {
  /** When a run started here was asked for; null when none is awaited. */
  const awaiting = useSignal<number | null>(null);
  const backups = useData(
    () => ok(api.GET('/api/system/backups')),
    [awaiting.value !== null],
    awaiting.value !== null ? { every: 2000 } : {},
  );
  const runs = backups.data?.items ?? [];
  const since = awaiting.value;
  const newest = runs[0];
  useEffect(() => {
    if (since === null) return;
    // The worker's clock is the hub's; a run counts as this one when it started after the click, give or take.
    if (newest && Date.parse(newest.started_at) >= since - 5000) {
      awaiting.value = null;
      if (newest.state === 'succeeded') toast('Backup written', 'success');
      else toast(`Backup failed: ${newest.error ?? 'see the log'}`, 'error');
    } else if (Date.now() - since > watchMs) {
      awaiting.value = null;
    }
  }, [since, newest?.id]);

  async function runNow() {
    try {
      await ok(api.POST('/api/actions/run', { body: { action: 'hub.backup' } }));
      awaiting.value = Date.now();
    } catch (error) {
      failed(error);
    }
  }

  const info = backups.data;
  return (
    <section class="panel" aria-label="Backups">
      <div class="panel-head">
        <h3>Backups</h3>
        <button type="button" disabled={since !== null} onClick={runNow}>
          {since !== null ? 'Backing up…' : 'Back up now'}
        </button>
      </div>
      {info && (
        <p class="muted">
          {info.schedule
            ? `Scheduled ${scheduleLabel(info.schedule)}`
            : 'No schedule: backups run only when started'}
          . Archives are kept in {info.directory}
          {info.encrypted ? ', encrypted with BACKUP_PASSPHRASE' : ''}. Keep the secret key with them.
        </p>
      )}
      <Table
        rows={runs}
        head={['Started', 'State', 'Size', 'Duration', '']}
        empty={backups.loading ? 'Loading…' : 'No backup of the hub yet.'}
        row={(run) => (
          <tr key={run.id}>
            <td>{dateTime(run.started_at)}</td>
            <td>
              <span class={`badge ${run.state === 'succeeded' ? 'success' : 'danger'}`}>{run.state}</span>
              {run.error && <span class="muted"> {run.error}</span>}
            </td>
            <td>{run.size_bytes === null ? '—' : byteSize(run.size_bytes)}</td>
            <td>{duration(run.duration_ms)}</td>
            <td>
              {run.available && run.file_name ? (
                <a href={`/api/system/backups/${encodeURIComponent(run.file_name)}`} download>
                  Download<span class="visually-hidden"> {run.file_name}</span>
                </a>
              ) : (
                <span class="muted">{run.file_name ? 'removed by retention' : ''}</span>
              )}
            </td>
          </tr>
        )}
      />
    </section>
  );
}
