// The public status page at /status/:slug: no sign-in, the owner's theme (written into the page by the server), each
// listed service's state, uptime over 24 hours and 30 days, and a bar of its last 90 days. Read every minute.
import { useEffect } from 'preact/hooks';
import { api, ok } from '../../client.ts';
import { useData } from '../../data.ts';

const stateWords: Record<string, string> = {
  up: 'Operational',
  down: 'Down',
  degraded: 'Degraded',
  warning: 'Warning',
  pending: 'Waiting for a check',
  paused: 'Paused',
  unknown: 'Unknown',
};
const overallWords: Record<string, string> = {
  up: 'All systems operational',
  down: 'Some systems are down',
  partial: 'Some systems need attention',
};

function percent(value: number | null): string {
  return value === null ? 'no data' : `${Number(value.toFixed(2))}%`;
}

function dayClass(uptime: number | null): string {
  if (uptime === null) return 'none';
  if (uptime >= 99) return 'good';
  if (uptime >= 95) return 'fair';
  return 'bad';
}

export function slugOf(path: string): string {
  return decodeURIComponent(path.replace(/^\/status\//, '').split('/')[0] ?? '');
}

export default function StatusPage() {
  const slug = slugOf(location.pathname);
  const page = useData(
    async () => {
      const { data, response } = await api.GET('/api/status/{slug}', { params: { path: { slug } } });
      if (response.status === 404) return null;
      return ok(Promise.resolve({ data, response }));
    },
    [slug],
    { every: 60_000 },
  );
  const status = page.data;
  useEffect(() => {
    document.title = status ? `${status.title} · Status` : 'Status';
  }, [status?.title]);
  if (status === undefined) return <main class="status-page" aria-busy="true" />;
  if (status === null) {
    return (
      <main class="status-page">
        <h1>No such status page</h1>
        <p class="muted">This page does not exist or is not public.</p>
      </main>
    );
  }
  return (
    <main class="status-page">
      <header class="status-head">
        <h1>{status.title}</h1>
        {status.description && <p class="muted">{status.description}</p>}
        {!status.public && <p class="badge warning">Preview: this page is not public</p>}
      </header>
      <p class={`status-overall ${status.state}`} role="status">
        {overallWords[status.state] ?? status.state}
      </p>
      <ul class="status-services">
        {status.services.map((service) => (
          <li key={service.id} class="panel">
            <div class="status-service-head">
              <strong>{service.name}</strong>
              <span class={`status-state ${service.state}`}>
                {stateWords[service.state] ?? service.state}
              </span>
            </div>
            <div class="status-bar" role="img" aria-label={`${service.name}: daily uptime over 90 days`}>
              {service.days.map((day) => (
                <span
                  key={day.date}
                  class={`status-day ${dayClass(day.uptime)}`}
                  title={`${day.date}: ${percent(day.uptime)}`}
                />
              ))}
            </div>
            <div class="status-figures muted small">
              <span>90 days ago</span>
              <span>
                {percent(service.uptime_24h)} in 24 h · {percent(service.uptime_30d)} in 30 days
              </span>
              <span>today</span>
            </div>
          </li>
        ))}
      </ul>
      {status.services.length === 0 && <p class="muted">No services are listed on this page yet.</p>}
      <footer class="muted small">Updated {new Date(status.generated_at).toLocaleTimeString()}</footer>
    </main>
  );
}
