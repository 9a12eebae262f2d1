// Settings → Alerts → Maintenance windows: the windows (on now, next occurrence), a new one (one-off, or recurring
// by an RRULE with a duration) covering chosen services, and removal.
import { useSignal } from '@preact/signals';
import { api, ok } from '../../client.ts';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { failed, toast } from '../../state.ts';

interface Draft {
  title: string;
  starts: string;
  ends: string;
  rrule: string;
  duration: number;
  services: string[];
  notify: boolean;
}

const empty: Draft = {
  title: '',
  starts: '',
  ends: '',
  rrule: '',
  duration: 60,
  services: [],
  notify: false,
};
const when = (value: string) => new Date(value).toLocaleString();
/** A datetime-local value (the browser's time zone) as an instant. */
const instant = (local: string) => new Date(local).toISOString();

export function Maintenance() {
  const windows = useData(() => ok(api.GET('/api/maintenance')));
  const health = useData(() =>
    ok(api.GET('/api/health/services', { params: { query: { include_disabled: true } } })),
  );
  const services = (health.data?.groups ?? []).flatMap((group) => group.services);
  const named = new Map(services.map((service) => [service.id, service.name]));
  const draft = useSignal<Draft | null>(null);
  const change = (next: Partial<Draft>) => (draft.value = { ...(draft.value as Draft), ...next });

  async function save(event: Event) {
    event.preventDefault();
    const d = draft.value;
    if (!d) return;
    const recurring = d.rrule.trim() !== '';
    const body = {
      title: d.title,
      starts_at: instant(d.starts),
      ends_at: recurring ? null : instant(d.ends),
      rrule: recurring ? d.rrule.trim() : null,
      duration_minutes: recurring ? d.duration : null,
      service_ids: d.services,
      notify_start_end: d.notify,
    };
    const saved = await ok(api.POST('/api/maintenance', { body })).catch(failed);
    if (!saved) return;
    draft.value = null;
    toast('Maintenance window saved', 'success');
    await windows.reload();
  }
  async function remove(id: string) {
    await ok(api.DELETE('/api/maintenance/{id}', { params: { path: { id } } })).catch(failed);
    await windows.reload();
  }

  const d = draft.value;
  return (
    <section class="panel" aria-label="Maintenance windows">
      <div class="panel-head">
        <h2>Maintenance windows</h2>
        {!d && (
          <button type="button" class="small" onClick={() => (draft.value = { ...empty })}>
            <Icon name="plus" size={14} /> Add window
          </button>
        )}
      </div>
      <p class="muted small">
        During a window the services it covers raise no alerts and their downtime does not count against
        uptime.
      </p>
      {(windows.data?.items ?? []).length === 0 && <p class="muted">No maintenance windows.</p>}
      <ul class="list">
        {(windows.data?.items ?? []).map((window) => (
          <li key={window.id}>
            <div>
              <strong>{window.title}</strong> {window.active && <span class="badge info">On now</span>}
              <div class="muted small">
                {window.rrule
                  ? `${window.rrule}, ${window.duration_minutes} min from ${when(window.starts_at)}`
                  : `${when(window.starts_at)} – ${when(window.ends_at ?? window.starts_at)}`}
                {window.next && !window.active && ` · next ${when(window.next.starts_at)}`}
              </div>
              <div class="muted small">
                {window.service_ids.map((id) => named.get(id) ?? id).join(', ') || 'no services listed'}
                {window.resource_ids.length > 0 && ` · ${window.resource_ids.length} resource(s)`}
              </div>
            </div>
            <button
              type="button"
              class="ghost small"
              aria-label={`Remove ${window.title}`}
              onClick={() => remove(window.id)}
            >
              <Icon name="trash" size={14} />
            </button>
          </li>
        ))}
      </ul>
      {d && (
        <form class="stack section-gap" onSubmit={save} aria-label="New maintenance window">
          <label>
            Title
            <input value={d.title} required onInput={(e) => change({ title: e.currentTarget.value })} />
          </label>
          <div class="row">
            <label>
              Starts
              <input
                type="datetime-local"
                value={d.starts}
                required
                onInput={(e) => change({ starts: e.currentTarget.value })}
              />
            </label>
            <label>
              Ends (one-off)
              <input
                type="datetime-local"
                value={d.ends}
                required={d.rrule.trim() === ''}
                onInput={(e) => change({ ends: e.currentTarget.value })}
              />
            </label>
          </div>
          <div class="row">
            <label>
              Repeats (RRULE, optional)
              <input
                value={d.rrule}
                placeholder="FREQ=WEEKLY;BYDAY=SU"
                onInput={(e) => change({ rrule: e.currentTarget.value })}
              />
            </label>
            <label>
              Each lasts (minutes)
              <input
                type="number"
                min="1"
                max="10080"
                value={d.duration}
                onInput={(e) => change({ duration: Number(e.currentTarget.value) })}
              />
            </label>
          </div>
          <fieldset>
            <legend>Services</legend>
            {services.map((service) => (
              <label key={service.id} class="check">
                <input
                  type="checkbox"
                  checked={d.services.includes(service.id)}
                  onChange={(e) =>
                    change({
                      services: e.currentTarget.checked
                        ? [...d.services, service.id]
                        : d.services.filter((id) => id !== service.id),
                    })
                  }
                />
                {service.name}
              </label>
            ))}
          </fieldset>
          <label class="check">
            <input
              type="checkbox"
              checked={d.notify}
              onChange={(e) => change({ notify: e.currentTarget.checked })}
            />
            Alert when it starts and ends
          </label>
          <div class="row">
            <button type="submit" class="primary">
              Save window
            </button>
            <button type="button" class="ghost" onClick={() => (draft.value = null)}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
