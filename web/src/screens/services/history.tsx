// A service's history: its uptime over 24 hours, 7 days and 30 days, its latest checks (state, when, latency and what
// the check said) and, for a push service, the messages its log pings sent (`/api/ping/<token>/log`, the newest 100).
import { api, ok } from '../../client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { stateBadge, uptimeText } from './states.ts';

export function ServiceHistory({
  service,
  onClose,
}: {
  service: { id: string; name: string; kind: string };
  onClose: () => void;
}) {
  const history = useData(() =>
    ok(
      api.GET('/api/health/services/{id}/history', {
        params: { path: { id: service.id }, query: { limit: 20 } },
      }),
    ),
  );
  const data = history.data;
  return (
    <Dialog label={`History of ${service.name}`} onClose={onClose}>
      <div class="modal stack-tight">
        <h2>History of {service.name}</h2>
        {!data ? (
          <p class="muted">Loading…</p>
        ) : (
          <>
            <p>
              Uptime: {uptimeText(data.uptime['24h'])} over 24 hours, {uptimeText(data.uptime['7d'])} over 7
              days, {uptimeText(data.uptime['30d'])} over 30 days
            </p>
            <section class="stack-tight" aria-label="Latest checks">
              <h3>Latest checks</h3>
              {data.checks.length === 0 ? (
                <p class="muted small">No check yet.</p>
              ) : (
                <ul class="card-list">
                  {data.checks.map((check) => (
                    <li key={check.checked_at}>
                      <span class={`badge ${stateBadge[check.state] ?? ''}`}>{check.state}</span>
                      <span title={new Date(check.checked_at).toLocaleString()}>{ago(check.checked_at)}</span>
                      <span class="muted small">
                        {check.latency_ms === null ? '' : `${check.latency_ms} ms `}
                        {check.message ?? ''}
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </section>
            {service.kind === 'push' && (
              <section class="stack-tight" aria-label="Log">
                <h3>Log</h3>
                {data.log.length === 0 ? (
                  <p class="muted small">
                    No log message yet: a job sends one to its heartbeat URL with /log.
                  </p>
                ) : (
                  <ul class="card-list">
                    {data.log.map((entry) => (
                      <li key={`${entry.at}-${entry.message}`}>
                        <span title={new Date(entry.at).toLocaleString()}>{ago(entry.at)}</span>
                        <span class="muted small">{entry.message}</span>
                      </li>
                    ))}
                  </ul>
                )}
              </section>
            )}
          </>
        )}
        <div class="row">
          <button type="button" class="ghost" onClick={onClose}>
            Close
          </button>
        </div>
      </div>
    </Dialog>
  );
}
