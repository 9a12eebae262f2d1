// Services: health by category (state, latency, uptime over 24 hours, a certificate's days left, a DNS answer), add
// and edit every kind of check with its own fields, and the candidates LAN discovery found, to promote or dismiss.
// A push service (checked by the heartbeats it sends) shows its heartbeat URL with examples when it is made or its
// token renewed. Each service opens its history: uptime, latest checks and a push service's log.
import { useSignal } from '@preact/signals';
import { api, ok } from '../../client.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { SubjectEvents } from '../../components/Events.tsx';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Answer } from '../../types.ts';
import { ServiceHistory } from './history.tsx';
import { PushUrls } from './push.tsx';
import { stateBadge, uptimeText } from './states.ts';

type Candidate = Answer<'/api/health/discovered'>['items'][number];
type Service = Answer<'/api/health/services'>['groups'][number]['services'][number];
type Kind = Service['kind'];

const kinds: { kind: Kind; label: string }[] = [
  { kind: 'http', label: 'HTTP(S)' },
  { kind: 'tcp', label: 'TCP port' },
  { kind: 'ping', label: 'Ping' },
  { kind: 'dns', label: 'DNS' },
  { kind: 'tls', label: 'TLS certificate' },
  { kind: 'push', label: 'Heartbeats it sends (push: cron jobs, backups)' },
];
const dnsTypes = ['A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'PTR', 'SRV'] as const;
const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** The form's fields, as typed (numbers as text). */
interface Draft {
  id?: string;
  name: string;
  category: string;
  kind: Kind;
  url: string;
  method: (typeof methods)[number];
  keyword: string;
  pointer: string;
  expected: string;
  body: string;
  host: string;
  port: string;
  packets: string;
  dns_name: string;
  dns_type: (typeof dnsTypes)[number];
  expect: string;
  warn_days: string;
  slow_ms: string;
  interval_s: string;
  grace_s: string;
}

const emptyDraft: Draft = {
  name: '',
  category: '',
  kind: 'http',
  url: 'https://',
  method: 'GET',
  keyword: '',
  pointer: '',
  expected: '',
  body: '',
  host: '',
  port: '',
  packets: '3',
  dns_name: '',
  dns_type: 'A',
  expect: '',
  warn_days: '14',
  slow_ms: '',
  interval_s: '3600',
  grace_s: '600',
};

function draftOf(service: Service): Draft {
  const text = (value: string | number | null) => (value === null ? '' : String(value));
  return {
    ...emptyDraft,
    id: service.id,
    name: service.name,
    category: service.category,
    kind: service.kind,
    url: text(service.url),
    method: service.method as Draft['method'],
    keyword: text(service.keyword),
    pointer: service.json_query?.pointer ?? '',
    expected: service.json_query?.expected ?? '',
    body: text(service.body),
    host: text(service.host),
    port: text(service.port),
    packets: text(service.packets ?? 3),
    dns_name: text(service.dns_name),
    dns_type: (service.dns_type ?? 'A') as Draft['dns_type'],
    expect: text(service.expect),
    warn_days: text(service.warn_days ?? 14),
    slow_ms: text(service.slow_ms),
    interval_s: text(service.interval_s),
    grace_s: text(service.grace_s),
  };
}

/** What the form sends: the fields of its kind, blanks as null. */
function draftBody(d: Draft) {
  const orNull = (value: string) => (value.trim() === '' ? null : value.trim());
  const number = (value: string) => (value.trim() === '' ? null : Number(value));
  const common = { name: d.name, category: d.category || 'General', slow_ms: number(d.slow_ms) };
  switch (d.kind) {
    case 'http':
      return {
        ...common,
        kind: d.kind,
        url: d.url.trim(),
        method: d.method,
        keyword: orNull(d.keyword),
        body: d.method === 'GET' || d.method === 'HEAD' ? null : orNull(d.body),
        json_query: d.pointer.trim() ? { pointer: d.pointer.trim(), expected: d.expected } : null,
      };
    case 'tcp':
      return { ...common, kind: d.kind, host: d.host.trim(), port: number(d.port) };
    case 'ping':
      return { ...common, kind: d.kind, host: d.host.trim(), packets: number(d.packets) };
    case 'dns':
      return {
        ...common,
        kind: d.kind,
        host: d.host.trim(),
        port: number(d.port),
        dns_name: d.dns_name.trim(),
        dns_type: d.dns_type,
        expect: orNull(d.expect),
      };
    case 'tls':
      return {
        ...common,
        kind: d.kind,
        host: d.host.trim(),
        port: number(d.port),
        warn_days: number(d.warn_days),
      };
    case 'push':
      return {
        name: d.name,
        category: d.category || 'General',
        kind: d.kind,
        interval_s: Number(d.interval_s || 3600),
        grace_s: Number(d.grace_s || 600),
      };
  }
}

/** What the row says beyond the state: a certificate's days left, a DNS answer, a ping's loss. */
function finding(service: Service): string | null {
  const details = service.details;
  if (!details) return null;
  if (details.certificate) {
    const days = details.certificate.days_left;
    return days < 0 ? 'certificate expired' : `certificate: ${days} days left`;
  }
  if (details.answers) return details.answers.length ? details.answers.join(', ') : (details.rcode ?? null);
  if (details.loss_pct !== undefined) return `${details.loss_pct}% loss`;
  return null;
}

export default function Services() {
  const draft = useSignal<Draft | null>(null);
  const heartbeat = useSignal<{ name: string; token: string } | null>(null);
  const shownHistory = useSignal<Service | null>(null);
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
    const body = draftBody(d);
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
  async function pauseOrResume(service: Service) {
    const params = { path: { id: service.id } };
    const changed =
      service.state === 'paused'
        ? await ok(api.POST('/api/health/services/{id}/resume', { params })).catch(failed)
        : await ok(api.POST('/api/health/services/{id}/pause', { params, body: {} })).catch(failed);
    if (!changed) return;
    toast(changed.state === 'paused' ? `${service.name} paused` : `${service.name} resumed`, 'success');
    await load();
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
        <button type="button" class="primary" onClick={() => (draft.value = { ...emptyDraft })}>
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
                    {finding(service) && <div class="small service-finding">{finding(service)}</div>}
                    {service.message && service.state !== 'up' && (
                      <div class={`${service.state === 'paused' ? 'muted' : 'error'} small`}>
                        {service.message}
                      </div>
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
                      {uptimeText(service.uptime_24h)} · {service.latency_ms ?? '—'} ms ·{' '}
                      {ago(service.checked_at)}
                    </span>
                  </div>
                  <span class="service-actions">
                    <button
                      type="button"
                      class="ghost small"
                      title={
                        service.state === 'paused'
                          ? 'Check it again, now and on its interval'
                          : 'Stop its checks and alerts until resumed'
                      }
                      onClick={() => pauseOrResume(service)}
                    >
                      {service.state === 'paused' ? 'Resume' : 'Pause'}
                    </button>
                    <button
                      type="button"
                      class="ghost small"
                      aria-label={`History of ${service.name}`}
                      title="Uptime, latest checks and log"
                      onClick={() => (shownHistory.value = service)}
                    >
                      <Icon name="clock" size={14} />
                    </button>
                    <button
                      type="button"
                      class="ghost small"
                      aria-label={`Edit ${service.name}`}
                      onClick={() => (draft.value = draftOf(service))}
                    >
                      <Icon name="edit" size={14} />
                    </button>
                  </span>
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
      <div class="panel section-gap">
        <SubjectEvents kinds="service.*" heading="Recent service events" />
      </div>
      {shownHistory.value && (
        <ServiceHistory service={shownHistory.value} onClose={() => (shownHistory.value = null)} />
      )}
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
            <KindFields
              draft={draft.value}
              change={(fields) => (draft.value = { ...draft.value!, ...fields })}
            />
            {draft.value.kind === 'push' && draft.value.id && (
              <p class="muted small">
                The heartbeat URL was shown when the service was made.{' '}
                <button type="button" class="small" onClick={() => renewToken(draft.value!.id!)}>
                  New heartbeat URL
                </button>
              </p>
            )}
            <div class="row">
              <button type="submit" class="primary">
                Save
              </button>
              <button type="button" class="ghost" onClick={() => (draft.value = null)}>
                Cancel
              </button>
            </div>
            {draft.value.id && (
              <SubjectEvents
                subject={`service:${draft.value.id}`}
                heading="This service's events"
                limit={5}
              />
            )}
          </form>
        </Dialog>
      )}
    </div>
  );
}

/** The fields of the draft's kind, with the kind picker and slow_ms that every kind has. */
function KindFields({ draft, change }: { draft: Draft; change: (fields: Partial<Draft>) => void }) {
  const field = (key: keyof Draft, label: string, props: Record<string, unknown> = {}) => (
    <label>
      {label}
      <input
        value={String(draft[key] ?? '')}
        onInput={(e) => change({ [key]: e.currentTarget.value })}
        {...props}
      />
    </label>
  );
  const choice = <T extends string>(key: keyof Draft, label: string, options: readonly T[]) => (
    <label>
      {label}
      <select value={String(draft[key])} onChange={(e) => change({ [key]: e.currentTarget.value })}>
        {options.map((option) => (
          <option key={option} value={option}>
            {option}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <>
      <label>
        Kind
        <select value={draft.kind} onChange={(e) => change({ kind: e.currentTarget.value as Kind })}>
          {kinds.map(({ kind, label }) => (
            <option key={kind} value={kind}>
              {label}
            </option>
          ))}
        </select>
      </label>
      {draft.kind === 'http' && (
        <>
          {field('url', 'URL', { required: true })}
          {choice('method', 'Method', methods)}
          {field('keyword', 'Keyword in the answer')}
          {field('pointer', 'JSON Pointer', { placeholder: '/status' })}
          {field('expected', 'Expected value there', { placeholder: 'ok' })}
          {draft.method !== 'GET' && draft.method !== 'HEAD' && field('body', 'Request body')}
        </>
      )}
      {draft.kind !== 'http' &&
        draft.kind !== 'push' &&
        field('host', draft.kind === 'dns' ? 'DNS server' : 'Host', { required: true })}
      {draft.kind === 'push' && (
        <>
          {field('interval_s', 'Expected every (seconds)', { type: 'number', min: 10 })}
          {field('grace_s', 'Grace (seconds late before it is down)', { type: 'number', min: 0 })}
        </>
      )}
      {(draft.kind === 'tcp' || draft.kind === 'dns' || draft.kind === 'tls') &&
        field('port', 'Port', {
          type: 'number',
          min: 1,
          max: 65535,
          required: draft.kind === 'tcp',
          placeholder: draft.kind === 'dns' ? '53' : draft.kind === 'tls' ? '443' : '',
        })}
      {draft.kind === 'ping' && field('packets', 'Packets', { type: 'number', min: 1, max: 10 })}
      {draft.kind === 'dns' && (
        <>
          {field('dns_name', 'Name to look up', { required: true })}
          {choice('dns_type', 'Record type', dnsTypes)}
          {field('expect', 'Expected answer')}
        </>
      )}
      {draft.kind === 'tls' &&
        field('warn_days', 'Warn days before expiry', { type: 'number', min: 1, max: 365 })}
      {field('slow_ms', 'Slow above (ms)', { type: 'number', min: 1, placeholder: 'never' })}
    </>
  );
}
