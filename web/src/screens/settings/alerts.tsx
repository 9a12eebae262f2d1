// Settings → Alerts: where alerts go (targets, each with Test; secrets write-only, the environment's ALERT_URL shown
// read-only), which go where (rules: event patterns, minimum priority, repeats, quiet hours) and what was sent where
// with the target's answer (deliveries).
import { useSignal } from '@preact/signals';
import type { components } from '../../api.d.ts';
import { api, ok } from '../../client.ts';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { failed, toast } from '../../state.ts';

type Target = components['schemas']['AlertTarget'];
type Rule = components['schemas']['AlertRule'];
type Kind = 'ntfy' | 'gotify' | 'webhook' | 'apprise' | 'email';

interface Field {
  name: string;
  label: string;
  secret?: boolean;
  number?: boolean;
  list?: boolean;
  choices?: string[];
  hint?: string;
}

const forms: Record<Kind, Field[]> = {
  ntfy: [
    { name: 'url', label: 'Server', hint: 'https://ntfy.sh' },
    { name: 'topic', label: 'Topic', hint: 'homelab' },
    { name: 'token', label: 'Access token', secret: true },
  ],
  gotify: [
    { name: 'url', label: 'Server', hint: 'https://gotify.lan' },
    { name: 'token', label: 'Application token', secret: true },
  ],
  webhook: [
    { name: 'url', label: 'URL', hint: 'https://example.lan/hooks/hub' },
    { name: 'secret', label: 'Signing secret', secret: true, hint: 'whsec_…' },
  ],
  apprise: [
    { name: 'url', label: 'apprise-api', hint: 'http://apprise.lan:8000' },
    { name: 'key', label: 'Configuration key' },
    { name: 'urls', label: 'Apprise URLs', secret: true },
  ],
  email: [
    { name: 'host', label: 'SMTP host' },
    { name: 'port', label: 'Port', number: true, hint: '587' },
    { name: 'tls', label: 'TLS', choices: ['starttls', 'tls', 'none'] },
    { name: 'user', label: 'User' },
    { name: 'password', label: 'Password', secret: true },
    { name: 'from', label: 'From' },
    { name: 'to', label: 'To (comma separated)', list: true },
  ],
};

function fieldsOf(kind: Kind, values: Record<string, string>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of forms[kind]) {
    const value = (values[field.name] ?? '').trim();
    if (field.choices && !value) body[field.name] = field.choices[0];
    if (!value) continue;
    body[field.name] = field.number
      ? Number(value)
      : field.list
        ? value
            .split(',')
            .map((item) => item.trim())
            .filter(Boolean)
        : value;
  }
  return body;
}

function Targets({ items, reload }: { items: Target[]; reload: () => Promise<void> }) {
  const kind = useSignal<Kind>('ntfy');
  const name = useSignal('');
  const values = useSignal<Record<string, string>>({});
  const results = useSignal<Record<string, string>>({});
  async function add(event: Event) {
    event.preventDefault();
    const body = { name: name.value.trim(), kind: kind.value, fields: fieldsOf(kind.value, values.value) };
    await ok(api.POST('/api/alerts/targets', { body: body as never })).then(async () => {
      toast('Target added', 'success');
      name.value = '';
      values.value = {};
      await reload();
    }, failed);
  }
  async function test(target: Target) {
    const result = await ok(
      api.POST('/api/alerts/targets/{id}/test', { params: { path: { id: target.id } } }),
    ).catch(failed);
    if (!result) return;
    const said = `${result.ok ? 'Sent' : 'Failed'}${result.status !== null ? ` (${result.status})` : ''}: ${result.answer}`;
    results.value = { ...results.value, [target.id]: said };
  }
  async function remove(target: Target) {
    await ok(api.DELETE('/api/alerts/targets/{id}', { params: { path: { id: target.id } } })).then(
      reload,
      failed,
    );
  }
  return (
    <div>
      <h3>Targets</h3>
      <ul class="list" aria-label="Alert targets">
        {items.map((target) => (
          <li key={target.id}>
            <strong>{target.name}</strong> <span class="muted">{target.kind}</span>
            {target.source === 'environment' && <span class="muted"> · set by the environment</span>}
            {!target.enabled && <span class="muted"> · off</span>}{' '}
            <button type="button" onClick={() => test(target)}>
              Test
            </button>
            {target.source === 'settings' && (
              <button type="button" class="danger" onClick={() => remove(target)}>
                Delete
              </button>
            )}
            {results.value[target.id] && <p role="status">{results.value[target.id]}</p>}
          </li>
        ))}
        {items.length === 0 && <li class="muted">No targets yet: alerts are recorded but sent nowhere.</li>}
      </ul>
      <form class="stack" onSubmit={add} aria-label="New target">
        <div class="row">
          <label>
            Name
            <input required value={name.value} onInput={(e) => (name.value = e.currentTarget.value)} />
          </label>
          <label>
            Kind
            <select
              value={kind.value}
              onChange={(e) => {
                kind.value = e.currentTarget.value as Kind;
                values.value = {};
              }}
            >
              {Object.keys(forms).map((k) => (
                <option key={k} value={k}>
                  {k}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div class="row">
          {forms[kind.value].map((field) =>
            field.choices ? (
              <label key={field.name}>
                {field.label}
                <select
                  value={values.value[field.name] ?? field.choices[0]}
                  onChange={(e) => (values.value = { ...values.value, [field.name]: e.currentTarget.value })}
                >
                  {field.choices.map((choice) => (
                    <option key={choice}>{choice}</option>
                  ))}
                </select>
              </label>
            ) : (
              <label key={field.name}>
                {field.label}
                <input
                  type={(field.secret ? 'password' : field.number ? 'number' : 'text') as 'text'}
                  autocomplete="off"
                  placeholder={field.hint}
                  value={values.value[field.name] ?? ''}
                  onInput={(e) => (values.value = { ...values.value, [field.name]: e.currentTarget.value })}
                />
              </label>
            ),
          )}
        </div>
        <button type="submit" class="primary">
          Add target
        </button>
      </form>
    </div>
  );
}

function describe(rule: Rule, targets: Target[]): string {
  const names = rule.targets.length
    ? rule.targets.map((id) => targets.find((target) => target.id === id)?.name ?? 'removed').join(', ')
    : 'every target';
  const parts = [`${rule.events.join(', ')} → ${names}`];
  if (rule.filter.min_priority) parts.push(`priority ≥ ${rule.filter.min_priority}`);
  if (rule.filter.categories?.length) parts.push(`in ${rule.filter.categories.join(', ')}`);
  if (rule.repeat_minutes) parts.push(`repeats every ${rule.repeat_minutes} min`);
  if (rule.quiet_hours)
    parts.push(`quiet ${rule.quiet_hours.from}–${rule.quiet_hours.to} ${rule.quiet_hours.timezone}`);
  return parts.join(' · ');
}

function Rules({
  items,
  targets,
  reload,
}: {
  items: Rule[];
  targets: Target[];
  reload: () => Promise<void>;
}) {
  const events = useSignal('service.*');
  const chosen = useSignal<string[]>([]);
  const minPriority = useSignal('');
  const repeat = useSignal('');
  const quietFrom = useSignal('');
  const quietTo = useSignal('');
  const timezone = useSignal(Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC');
  async function add(event: Event) {
    event.preventDefault();
    const body = {
      events: events.value
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean),
      targets: chosen.value,
      filter: minPriority.value ? { min_priority: Number(minPriority.value) } : {},
      repeat_minutes: repeat.value ? Number(repeat.value) : null,
      quiet_hours:
        quietFrom.value && quietTo.value
          ? { from: quietFrom.value, to: quietTo.value, timezone: timezone.value }
          : null,
    };
    await ok(api.POST('/api/alerts/rules', { body })).then(async () => {
      toast('Rule added', 'success');
      await reload();
    }, failed);
  }
  async function toggle(rule: Rule) {
    await ok(
      api.PATCH('/api/alerts/rules/{id}', {
        params: { path: { id: rule.id } },
        body: { enabled: !rule.enabled },
      }),
    ).then(reload, failed);
  }
  async function remove(rule: Rule) {
    await ok(api.DELETE('/api/alerts/rules/{id}', { params: { path: { id: rule.id } } })).then(
      reload,
      failed,
    );
  }
  return (
    <div>
      <h3>Rules</h3>
      <ul class="list" aria-label="Alert rules">
        {items.map((rule) => (
          <li key={rule.id}>
            <label class="check">
              <input type="checkbox" checked={rule.enabled} onChange={() => toggle(rule)} />
              {rule.name || describe(rule, targets)}
            </label>
            {rule.name && <span class="muted"> {describe(rule, targets)}</span>}{' '}
            <button type="button" class="danger" onClick={() => remove(rule)}>
              Delete
            </button>
          </li>
        ))}
      </ul>
      <form class="stack" onSubmit={add} aria-label="New rule">
        <div class="row">
          <label>
            Events
            <input required value={events.value} onInput={(e) => (events.value = e.currentTarget.value)} />
          </label>
          <label>
            Minimum priority
            <input
              type="number"
              min="1"
              max="5"
              value={minPriority.value}
              onInput={(e) => (minPriority.value = e.currentTarget.value)}
            />
          </label>
          <label>
            Repeat every (minutes)
            <input
              type="number"
              min="1"
              value={repeat.value}
              onInput={(e) => (repeat.value = e.currentTarget.value)}
            />
          </label>
        </div>
        <fieldset class="row">
          <legend>Targets (none: every target)</legend>
          {targets.map((target) => (
            <label key={target.id} class="check">
              <input
                type="checkbox"
                checked={chosen.value.includes(target.id)}
                onChange={(e) =>
                  (chosen.value = e.currentTarget.checked
                    ? [...chosen.value, target.id]
                    : chosen.value.filter((id) => id !== target.id))
                }
              />
              {target.name}
            </label>
          ))}
        </fieldset>
        <div class="row">
          <label>
            Quiet from
            <input
              type="time"
              value={quietFrom.value}
              onInput={(e) => (quietFrom.value = e.currentTarget.value)}
            />
          </label>
          <label>
            Quiet until
            <input
              type="time"
              value={quietTo.value}
              onInput={(e) => (quietTo.value = e.currentTarget.value)}
            />
          </label>
          <label>
            Time zone
            <input value={timezone.value} onInput={(e) => (timezone.value = e.currentTarget.value)} />
          </label>
        </div>
        <button type="submit" class="primary">
          Add rule
        </button>
      </form>
    </div>
  );
}

function Deliveries() {
  const deliveries = useData(() =>
    ok(api.GET('/api/alerts/deliveries', { params: { query: { limit: 20 } } })),
  );
  const items = deliveries.data?.items ?? [];
  return (
    <div>
      <h3>Deliveries</h3>
      <table aria-label="Alert deliveries">
        <thead>
          <tr>
            <th>When</th>
            <th>Alert</th>
            <th>Target</th>
            <th>Status</th>
            <th>Answer</th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={item.id}>
              <td>{ago(String(item.created_at))}</td>
              <td>
                {item.title} <span class="muted">{item.event}</span>
              </td>
              <td>{item.target_name}</td>
              <td>
                {item.status}
                {item.attempts > 1 ? ` (${item.attempts} attempts)` : ''}
              </td>
              <td>
                {item.answer_status ?? ''} {item.answer ?? ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {items.length === 0 && <p class="muted">Nothing sent yet.</p>}
    </div>
  );
}

export function Alerts() {
  const targets = useData(() => ok(api.GET('/api/alerts/targets')));
  const rules = useData(() => ok(api.GET('/api/alerts/rules')));
  const targetItems = targets.data?.items ?? [];
  return (
    <section class="panel" aria-label="Alerts">
      <div class="panel-head">
        <h2>Alerts</h2>
      </div>
      <Targets items={targetItems} reload={targets.reload} />
      <Rules items={rules.data?.items ?? []} targets={targetItems} reload={rules.reload} />
      <Deliveries />
    </section>
  );
}
