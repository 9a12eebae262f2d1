// The apps card: the launcher's tiles by group (icon or initial, name, description, a status dot with the latency
// on hover), each opening its link in a new tab; quick launch filters them as the owner types. In edit mode the
// tiles are not links: each has its edit, delete and move buttons, and each group an "Add app" button.
import '../launcher.css';
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { api, ok } from '../../../client.ts';
import { Confirm } from '../../../components/Dialog.tsx';
import { Icon } from '../../../components/Icon.tsx';
import { useData } from '../../../data.ts';
import { failed, toast } from '../../../state.ts';
import { type App, AppEditor, deleteApp, type Editing, editingApps, moveApp } from '../app-editor.tsx';
import { launchIndex, launchQuery, listenForLaunch, matchesLaunch } from '../launch.ts';

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

function AppFace({ app }: { app: App }) {
  return (
    <>
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
    </>
  );
}

export function AppsCard({ config }: { config: Record<string, unknown> }) {
  const group = typeof config.group === 'string' ? config.group : undefined;
  const columns = typeof config.columns === 'number' ? config.columns : undefined;
  const apps = useData(
    async () =>
      (await ok(api.GET('/api/apps', { params: { query: { group, limit: 100, offset: 0 } } }))).items,
    [group],
  );
  const editing = useSignal<Editing | null>(null);
  const deleting = useSignal<App | null>(null);
  // The launch listener is added once: it reads the newest apps from here.
  const latest = useRef<App[]>([]);
  latest.current = apps.data ?? [];

  useEffect(
    () =>
      listenForLaunch(() => {
        if (editingApps.value) return;
        const shown = visible(latest.current, launchQuery.value);
        const chosen = shown[Math.min(launchIndex.value, shown.length - 1)];
        if (chosen) openApp(chosen);
      }),
    [],
  );

  function change(write: Promise<unknown>, done?: string) {
    write
      .then(() => {
        if (done) toast(done, 'success');
        return apps.reload();
      })
      .catch(failed);
  }

  if (apps.data === undefined) return <p class="muted">Loading apps…</p>;
  const edit = editingApps.value;
  const allGroups = [...new Set(apps.data.map((app) => app.group))];
  const dialogs = (
    <>
      {editing.value && (
        <AppEditor
          editing={editing.value}
          groups={allGroups}
          onClose={(saved) => {
            editing.value = null;
            if (saved) apps.reload();
          }}
        />
      )}
      {deleting.value && (
        <Confirm
          question={`Delete the app "${deleting.value.name}"?`}
          action="Delete"
          onAnswer={(yes) => {
            const app = deleting.value;
            deleting.value = null;
            if (yes && app) change(deleteApp(app), 'App deleted');
          }}
        />
      )}
    </>
  );
  const addButton = (name: string) => (
    <button type="button" class="ghost small" onClick={() => (editing.value = { group: name })}>
      <Icon name="plus" size={14} /> Add app{name === (group ?? 'Apps') ? '' : ` to ${name}`}
    </button>
  );
  if (apps.data.length === 0)
    return edit ? (
      <div class="apps-card">
        {addButton(group ?? 'Apps')}
        {dialogs}
      </div>
    ) : (
      <p class="muted">No apps yet: add them in edit mode or import Homepage's files from Settings.</p>
    );
  const query = edit ? '' : launchQuery.value;
  const shown = visible(apps.data, query);
  const selected = shown[Math.min(launchIndex.value, shown.length - 1)];
  const groups = [...new Set(shown.map((app) => app.group))];
  return (
    <div class={`apps-card${edit ? ' editing' : ''}`}>
      {query !== '' && (
        <p class="launch-query" aria-live="polite">
          Launch: <strong>{query}</strong> ({shown.length} {shown.length === 1 ? 'app' : 'apps'}; Enter opens,
          Esc clears)
        </p>
      )}
      {groups.map((name) => {
        const members = shown.filter((app) => app.group === name);
        return (
          <section key={name} class="app-group" aria-label={name}>
            <h3>{name}</h3>
            <ul
              class="app-tiles"
              style={columns ? { gridTemplateColumns: `repeat(${columns}, minmax(0, 1fr))` } : {}}
            >
              {members.map((app, index) => (
                <li key={app.id}>
                  {edit ? (
                    <div class="app-tile" data-app={app.name}>
                      <AppFace app={app} />
                      <span class="app-actions">
                        <button
                          type="button"
                          class="ghost small"
                          aria-label={`Move ${app.name} earlier`}
                          disabled={index === 0}
                          onClick={() => change(moveApp(app, -1))}
                        >
                          ←
                        </button>
                        <button
                          type="button"
                          class="ghost small"
                          aria-label={`Move ${app.name} later`}
                          disabled={index === members.length - 1}
                          onClick={() => change(moveApp(app, 1))}
                        >
                          →
                        </button>
                        <button
                          type="button"
                          class="ghost small"
                          aria-label={`Edit ${app.name}`}
                          onClick={() => (editing.value = { app })}
                        >
                          <Icon name="edit" size={14} />
                        </button>
                        <button
                          type="button"
                          class="ghost small"
                          aria-label={`Delete ${app.name}`}
                          onClick={() => (deleting.value = app)}
                        >
                          <Icon name="trash" size={14} />
                        </button>
                      </span>
                    </div>
                  ) : (
                    <a
                      class={`app-tile${query !== '' && app === selected ? ' selected' : ''}`}
                      href={app.href}
                      target="_blank"
                      rel="noopener noreferrer"
                      data-app={app.name}
                      title={app.description || app.name}
                    >
                      <AppFace app={app} />
                    </a>
                  )}
                </li>
              ))}
            </ul>
            {edit && addButton(name)}
          </section>
        );
      })}
      {dialogs}
    </div>
  );
}
