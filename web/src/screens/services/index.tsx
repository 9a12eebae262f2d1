// Services: health by category (state, latency, uptime over 24 hours), add and edit, and the candidates LAN
// discovery found, to promote or dismiss. A push service (checked by the heartbeats it sends) shows its heartbeat
// URL with examples when it is made or its token renewed.
import { useSignal } from '@preact/signals';
import { api, ok } from '../../client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Answer } from '../../types.ts';
import { PushUrls } from './push.tsx';

type Candidate = Answer<'/api/health/discovered'>['items'][number];

const stateBadge: Record<string, string> = { up: 'success', down: 'danger', degraded: 'warning' };

interface Draft {
  id?: string;
  name: string;
  category: string;
  target: string;
  /** A heartbeat (push) service rather than a URL or tcp://host:port the hub checks. */
  push?: boolean;
  interval_s?: number;
  grace_s?: number;
}

function targetBody(target: string) {
  const tcp = /^tcp:\/\/([^:/]+):(\d+)$/.exec(target.trim());
  return tcp
    ? { kind: 'tcp' as const, host: tcp[1], port: Number(tcp[2]) }
    : { kind: 'http' as const, url: target.trim() };
}

export default function Services() {
  const draft = useSignal<Draft | null>(null);
  const heartbeat = useSignal<{ name: string; token: string } | null>(null);
  const health = useData(
    () => ok(api.GET('/api/health/services', { params: { query: { include_disabled: true } } })),
    [],
    { every: 15000 },
  );
  const found = useData(() => ok(api.GET('/api/health/discovered')), [], { every: 15000 });
  const groups = health.data?.groups ?? [];
  const names = new Map(groups.flatMap((group) => group.services).map((s) => [s.id, s.name]));
  const candidates = found.data?.items ?? [];
  const load = () => Promise.all([health.reload(), found.reload()]);
  async function save(event: Event) {
    event.preventDefault();
    const d = draft.value;
    if (!d) return;
    const body = d.push
      ? {
          name: d.name,
          category: d.category || 'General',
          kind: 'push' as const,
          interval_s: d.interval_s ?? 3600,
          grace_s: d.grace_s ?? 600,
        }
      : { name: d.name, category: d.category || 'General', ...targetBody(d.target) };
    const saved = d.id
      ? await ok(api.PATCH('/api/health/services/{id}', { params: { path: { id: d.id } }, body })).catch(
          failed,
        )
      : await ok(api.POST('/api/health/services', { body })).catch(failed);
    if (!saved) return;
    if (saved.push_token) heartbeat.value = { name: saved.name, token: saved.push_token };
    draft.value = null;
    toast('Service saved', 'success');
    await load();
  }
  async function renewToken(id: string) {
    const renewed = await ok(
      api.POST('/api/health/services/{id}/push-token', { params: { path: { id } } }),
    ).catch(failed);
    if (!renewed?.push_token) return;
    heartbeat.value = { name: renewed.name, token: renewed.push_token };
    draft.value = null;
  }
  async function checkNow() {
    await ok(api.POST('/api/health/check', { body: {} })).then(
      () => toast('Checking every service', 'success'),
      failed,
    );
    await load();
  }
  async function promote(candidate: Candidate) {
    await ok(
      api.POST('/api/health/discovered/{id}/promote', { params: { path: { id: candidate.id } }, body: {} }),
    ).catch(failed);
    await load();
  }
  async function dismiss(candidate: Candidate) {
    await ok(api.DELETE('/api/health/discovered/{id}', { params: { path: { id: candidate.id } } })).catch(
      failed,
    );
    await load();
  }
  return (
    <div>
      <div class="page-head">
        <h1>Services</h1>
        <button type="button" onClick={checkNow}>
          <Icon name="refresh" size={15} /> Check now
        </button>
        <button
          type="button"
          class="primary"
          onClick={() => (draft.value = { name: '', category: '', target: 'https://' })}
        >
          <Icon name="plus" size={15} /> Add service
        </button>
      </div>
      {heartbeat.value && (
        <PushUrls
          name={heartbeat.value.name}
          token={heartbeat.value.token}
          onDone={() => (heartbeat.value = null)}
        />
      )}
      {groups.length === 0 && <div class="panel muted empty">No monitored services yet.</div>}
      <div class="service-groups">
        {groups.map((group) => (
          <section key={group.category} class="panel" aria-label={group.category}>
            <div class="panel-head">
              <h2>{group.category}</h2>
              <span class={`badge ${group.healthy === group.total ? 'success' : 'warning'}`}>
                {group.healthy}/{group.total} up
              </span>
            </div>
            <ul class="service-list">
              {group.services.map((service) => (
                <li key={service.id}>
                  <span class={`dot ${stateBadge[service.state] ?? ''}`} aria-hidden="true" />
                  <div>
                    <strong>{service.name}</strong>
                    <div class="muted small">{service.target}</div>
                    {service.message && service.state !== 'up' && (
                      <div class="error small">{service.message}</div>
                    )}
                  </div>
                  <div class="service-figures">
                    <span class={`badge ${stateBadge[service.state] ?? ''}`}>{service.state}</span>
                    {service.maintenance && (
                      <span
                        class="badge info"
                        title={`until ${new Date(service.maintenance.ends_at).toLocaleString()}`}
                      >
                        In maintenance: {service.maintenance.title}
                      </span>
                    )}
                    {service.suppressed_by && (
                      <span class="badge" title="its alert is folded into the outage of what it runs on">
                        Suppressed by {names.get(service.suppressed_by) ?? 'its host'}
                      </span>
                    )}
                    <span class="muted small">
                      {service.uptime_24h === null ? '—' : `${service.uptime_24h.toFixed(1)}%`} ·{' '}
                      {service.latency_ms ?? '—'} ms · {ago(service.checked_at)}
                    </span>
                  </div>
                  <button
                    type="button"
                    class="ghost small"
                    aria-label={`Edit ${service.name}`}
                    onClick={() =>
                      (draft.value = {
                        id: service.id,
                        name: service.name,
                        category: service.category,
                        target: service.target,
                        push: service.kind === 'push',
                        interval_s: service.interval_s,
                        grace_s: service.grace_s,
                      })
                    }
                  >
                    <Icon name="edit" size={14} />
                  </button>
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
      <section class="panel section-gap" aria-label="Discovered">
        <div class="panel-head">
          <h2>Discovered on the network</h2>
          <button
            type="button"
            class="small"
            onClick={() =>
              ok(api.POST('/api/health/discover')).then(
                () => toast('Sweeping the network', 'success'),
                failed,
              )
            }
          >
            Discover
          </button>
        </div>
        {candidates.length === 0 ? (
          <p class="muted">No candidates waiting.</p>
        ) : (
          <ul class="service-list">
            {candidates.map((candidate) => (
              <li key={candidate.id}>
                <span class="dot" aria-hidden="true" />
                <div>
                  <strong>{candidate.display_name}</strong>
                  <div class="muted small">{candidate.target}</div>
                </div>
                <div class="row">
                  <button type="button" class="primary small" onClick={() => promote(candidate)}>
                    Promote
                  </button>
                  <button type="button" class="small" onClick={() => dismiss(candidate)}>
                    Dismiss
                  </button>
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
      {draft.value && (
        <Dialog label="Service" onClose={() => (draft.value = null)}>
          <form class="modal" onSubmit={save}>
            <h2>{draft.value.id ? 'Edit service' : 'Add a service'}</h2>
            <label>
              Name
              <input
                value={draft.value.name}
                onInput={(e) => (draft.value = { ...draft.value!, name: e.currentTarget.value })}
                required
              />
            </label>
            <label>
              Category
              <input
                value={draft.value.category}
                placeholder="General"
                onInput={(e) => (draft.value = { ...draft.value!, category: e.currentTarget.value })}
              />
            </label>
            <label>
              Checked by
              <select
                value={draft.value.push ? 'push' : 'target'}
                onChange={(e) => (draft.value = { ...draft.value!, push: e.currentTarget.value === 'push' })}
              >
                <option value="target">the hub: a URL or tcp://host:port</option>
                <option value="push">heartbeats it sends (push: cron jobs, backups)</option>
              </select>
            </label>
            {draft.value.push ? (
              <>
                <label>
                  Expected every (seconds)
                  <input
                    type="number"
                    min={10}
                    value={draft.value.interval_s ?? 3600}
                    onInput={(e) =>
                      (draft.value = { ...draft.value!, interval_s: Number(e.currentTarget.value) })
                    }
                  />
                </label>
                <label>
                  Grace (seconds late before it is down)
                  <input
                    type="number"
                    min={0}
                    value={draft.value.grace_s ?? 600}
                    onInput={(e) =>
                      (draft.value = { ...draft.value!, grace_s: Number(e.currentTarget.value) })
                    }
                  />
                </label>
                {draft.value.id && (
                  <p class="muted small">
                    The heartbeat URL was shown when the service was made.{' '}
                    <button type="button" class="small" onClick={() => renewToken(draft.value!.id!)}>
                      New heartbeat URL
                    </button>
                  </p>
                )}
              </>
            ) : (
              <label>
                URL (http, https) or tcp://host:port
                <input
                  value={draft.value.target}
                  onInput={(e) => (draft.value = { ...draft.value!, target: e.currentTarget.value })}
                  required
                />
              </label>
            )}
            <div class="row">
              <button type="submit" class="primary">
                Save
              </button>
              <button type="button" class="ghost" onClick={() => (draft.value = null)}>
                Cancel
              </button>
            </div>
          </form>
        </Dialog>
      )}
    </div>
  );
}
