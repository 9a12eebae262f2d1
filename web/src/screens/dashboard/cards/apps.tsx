// The apps card: the launcher's tiles by group (icon or initial, name, description, a status dot with the latency
// on hover), each opening its link in a new tab; quick launch filters them as the owner types.
import '../launcher.css';
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { components } from '../../../api.d.ts';
import { api, ok } from '../../../client.ts';
import { failed } from '../../../state.ts';
import { launchIndex, launchQuery, listenForLaunch, matchesLaunch } from '../launch.ts';

type App = components['schemas']['App'];

const statusWords: Record<App['status'], string> = {
  up: 'up',
  down: 'down',
  degraded: 'slow',
  warning: 'certificate expiring',
  pending: 'not checked yet',
  paused: 'checks paused',
  unknown: 'no service linked',
};

function statusTitle(app: App): string {
  const latency = app.latency_ms === null ? '' : `, ${app.latency_ms} ms`;
  return `${app.name}: ${statusWords[app.status]}${latency}`;
}

/** The Docker container an app was promoted from, in words: "running", "exited", "running, unhealthy". */
function containerWords(container: NonNullable<App['container']>): string {
  return container.health ? `${container.state}, ${container.health}` : container.state;
}

/** The apps shown now, in order: the card's group (or all), filtered by quick launch. */
function visible(apps: App[], query: string): App[] {
  return apps.filter((app) => matchesLaunch(app, query));
}

function openApp(app: App) {
  window.open(app.href, '_blank', 'noopener');
}

export function AppsCard({ config }: { config: Record<string, unknown> }) {
  const apps = useSignal<App[] | null>(null);
  const group = typeof config.group === 'string' ? config.group : undefined;
  const columns = typeof config.columns === 'number' ? config.columns : undefined;

  useEffect(() => {
    ok(api.GET('/api/apps', { params: { query: { group, limit: 100, offset: 0 } } }))
      .then((page) => {
        apps.value = page.items;
      })
      .catch(failed);
  }, [group]);

  useEffect(
    () =>
      listenForLaunch(() => {
        const shown = visible(apps.value ?? [], launchQuery.value);
        const chosen = shown[Math.min(launchIndex.value, shown.length - 1)];
        if (chosen) openApp(chosen);
      }),
    [],
  );

  if (apps.value === null) return <p class="muted">Loading apps…</p>;
  if (apps.value.length === 0)
    return <p class="muted">No apps yet: add them with POST /api/apps or import Homepage's files.</p>;
  const query = launchQuery.value;
  const shown = visible(apps.value, query);
  const selected = shown[Math.min(launchIndex.value, shown.length - 1)];
  const groups = [...new Set(shown.map((app) => app.group))];
  return (
    <div class="apps-card">
      {query !== '' && (
        <p class="launch-query" aria-live="polite">
          Launch: <strong>{query}</strong> ({shown.length} {shown.length === 1 ? 'app' : 'apps'}; Enter opens,
          Esc clears)
        </p>
      )}
      {groups.map((name) => (
        <section key={name} class="app-group" aria-label={name}>
          <h3>{name}</h3>
          <ul
            class="app-tiles"
            style={columns ? { gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` } : {}}
          >
            {shown
              .filter((app) => app.group === name)
              .map((app) => (
                <li key={app.id}>
                  <a
                    class={`app-tile${query !== '' && app === selected ? ' selected' : ''}`}
                    href={app.href}
                    target="_blank"
                    rel="noopener noreferrer"
                    data-app={app.name}
                    title={app.description || app.name}
                  >
                    {app.icon_url ? (
                      <img class="app-icon" src={app.icon_url} alt="" width={32} height={32} loading="lazy" />
                    ) : (
                      <span class="app-icon app-initial" aria-hidden="true">
                        {app.name.slice(0, 1).toUpperCase()}
                      </span>
                    )}
                    <span class="app-text">
                      <span class="app-name">{app.name}</span>
                      {app.description && <span class="app-description">{app.description}</span>}
                      {app.container && (
                        <span
                          class={`app-container state-${app.container.state} health-${app.container.health ?? 'none'}`}
                          data-container={app.container.state}
                          title={`Docker container: ${containerWords(app.container)}`}
                        >
                          {containerWords(app.container)}
                        </span>
                      )}
                    </span>
                    <span
                      class={`status-dot status-${app.status}`}
                      role="img"
                      aria-label={statusTitle(app)}
                      title={statusTitle(app)}
                      data-status={app.status}
                    />
                  </a>
                </li>
              ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
