// Settings → Integrations: a form per upstream (weather, Proxmox, Shlink, speech to text, the assistant's endpoint,
// linkding, the Karakeep webhook, Docker). Test tries the upstream without saving; Save tests first and stores only what
// passed. Secrets are write-only: the form says whether one is set, never shows it, and an empty secret field keeps
// the stored one. An integration the environment sets is shown read-only. The alert targets are listed by name
// with where each is set; they are edited under Alerts.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { components } from '../../api.d.ts';
import { api, ok } from '../../client.ts';
import { failed, toast } from '../../state.ts';

type Integration = components['schemas']['Integration'];
type TestResult = components['schemas']['IntegrationTest'];
type Kind = 'weather' | 'proxmox' | 'shlink' | 'stt' | 'assistant' | 'linkding' | 'karakeep' | 'docker';

interface Field {
  name: string;
  label: string;
  kind?: 'number' | 'secret' | 'check' | 'pem';
  choices?: string[];
  hint?: string;
  /** A secret of several lines (a PEM key): a text area, write-only like the others. */
  multiline?: boolean;
}

const url = (hint: string): Field => ({ name: 'url', label: 'URL', hint });

const forms: Record<Kind, Field[]> = {
  weather: [
    { name: 'label', label: 'Place name' },
    { name: 'latitude', label: 'Latitude', kind: 'number' },
    { name: 'longitude', label: 'Longitude', kind: 'number' },
    { name: 'units', label: 'Units', choices: ['metric', 'imperial'] },
    { name: 'timezone', label: 'Time zone', hint: 'auto' },
    { name: 'url', label: 'Open-Meteo URL', hint: 'https://api.open-meteo.com' },
  ],
  proxmox: [
    url('https://pve.lan:8006'),
    { name: 'token_id', label: 'Token ID', hint: 'monitor@pve!dashboard' },
    { name: 'token_secret', label: 'Token secret', kind: 'secret' },
    { name: 'ca_certificate', label: 'CA certificate (PEM)', kind: 'pem' },
    { name: 'tls_insecure', label: 'Skip certificate verification', kind: 'check' },
  ],
  shlink: [url('https://s.example.com'), { name: 'api_key', label: 'API key', kind: 'secret' }],
  stt: [
    { name: 'provider', label: 'Provider', choices: ['openai', 'whispercpp'] },
    url('http://speaches.lan:8000'),
    { name: 'model', label: 'Model', hint: 'whisper-1' },
    { name: 'api_key', label: 'API key', kind: 'secret' },
  ],
  assistant: [
    url('http://ollama.lan:11434/v1'),
    { name: 'model', label: 'Model' },
    { name: 'api_key', label: 'API key', kind: 'secret' },
  ],
  linkding: [
    url('https://links.lan'),
    { name: 'token', label: 'API token', kind: 'secret' },
    { name: 'schedule', label: 'Schedule', hint: '*/15 * * * *' },
  ],
  karakeep: [{ name: 'webhook_secret', label: 'Webhook secret', kind: 'secret' }],
  docker: [
    { name: 'host', label: 'Host', hint: 'unix:///var/run/docker.sock' },
    { name: 'ca_certificate', label: 'CA certificate (ca.pem)', kind: 'pem' },
    { name: 'client_certificate', label: 'Client certificate (cert.pem)', kind: 'pem' },
    { name: 'client_key', label: 'Client key (key.pem)', kind: 'secret', multiline: true },
  ],
};

type Values = Record<string, string | boolean>;

function initialValues(item: Integration): Values {
  const values: Values = {};
  for (const field of forms[item.kind as Kind] ?? []) {
    const value = item.fields[field.name];
    if (field.kind === 'secret') values[field.name] = '';
    else if (field.kind === 'check') values[field.name] = value === true;
    else values[field.name] = value === undefined || value === null ? '' : String(value);
  }
  return values;
}

/** The body the API takes: empty fields left out (an empty secret keeps the stored one), numbers as numbers. */
function bodyOf(kind: Kind, values: Values): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of forms[kind]) {
    const value = values[field.name];
    if (field.kind === 'check') {
      if (value) body[field.name] = true;
    } else if (typeof value === 'string' && value.trim() !== '') {
      body[field.name] = field.kind === 'number' ? Number(value) : value.trim();
    }
  }
  return body;
}

const isSet = (value: unknown) => (value as { set?: boolean } | undefined)?.set === true;

function Outcome({ result }: { result: TestResult | null }) {
  if (!result) return null;
  return (
    <p role="status" class={result.ok ? 'integration-ok' : 'integration-failed'}>
      {result.ok ? 'Test passed' : 'Test failed'}
      {result.status !== null ? ` (HTTP ${result.status})` : ''}: {result.message} · {result.latency_ms} ms
    </p>
  );
}

function IntegrationForm({ item, onSaved }: { item: Integration; onSaved: () => void }) {
  const kind = item.kind as Kind;
  const values = useSignal<Values>(initialValues(item));
  const result = useSignal<TestResult | null>(item.last_test ?? null);
  const busy = useSignal(false);
  const fixed = item.source === 'environment';
  const path = `/api/integrations/${kind}` as '/api/integrations/weather';

  async function test() {
    busy.value = true;
    try {
      const body = fixed ? undefined : bodyOf(kind, values.value);
      result.value = await ok(
        api.POST(`${path}/test` as '/api/integrations/weather/test', { body: body as never }),
      );
    } catch (error) {
      failed(error);
    } finally {
      busy.value = false;
    }
  }

  async function save(event: Event) {
    event.preventDefault();
    busy.value = true;
    try {
      const { data, error } = await api.PUT(path, {
        params: { query: { test: true } },
        body: bodyOf(kind, values.value) as never,
      });
      const refused = error as { message?: string; test?: TestResult } | undefined;
      if (refused) {
        if (refused.test) result.value = refused.test;
        toast(refused.message ?? 'not saved', 'error');
        return;
      }
      result.value = data?.last_test ?? null;
      toast(`${item.title} saved`, 'success');
      onSaved();
    } catch (error) {
      failed(error);
    } finally {
      busy.value = false;
    }
  }

  async function remove() {
    await ok(api.DELETE('/api/integrations/{kind}', { params: { path: { kind } } })).catch(failed);
    toast(`${item.title} removed`, 'success');
    onSaved();
  }

  const set = (name: string, value: string | boolean) => {
    values.value = { ...values.value, [name]: value };
  };
  return (
    <form id={`integration-${kind}`} class="integration" aria-label={item.title} onSubmit={save}>
      <div class="panel-head">
        <h3>{item.title}</h3>
        <span class={`badge${item.configured ? ' success' : ''}`}>
          {item.source === 'environment'
            ? 'set by the environment'
            : item.source === 'settings'
              ? 'configured here'
              : 'not configured'}
        </span>
      </div>
      {fixed && (
        <p class="muted small">Read-only: change {item.variables.slice(0, 2).join(' and ')} instead.</p>
      )}
      <div class="row">
        {forms[kind].map((field) => {
          const id = `integration-${kind}-${field.name}`;
          const value = values.value[field.name];
          if (field.kind === 'check') {
            return (
              <label key={field.name} class="check">
                <input
                  type="checkbox"
                  disabled={fixed}
                  checked={value === true}
                  onChange={(e) => set(field.name, e.currentTarget.checked)}
                />
                {field.label}
              </label>
            );
          }
          if (field.choices) {
            return (
              <label key={field.name} for={id}>
                {field.label}
                <select
                  id={id}
                  disabled={fixed}
                  value={String(value)}
                  onChange={(e) => set(field.name, e.currentTarget.value)}
                >
                  <option value="">—</option>
                  {field.choices.map((choice) => (
                    <option key={choice} value={choice}>
                      {choice}
                    </option>
                  ))}
                </select>
              </label>
            );
          }
          const secretSet = field.kind === 'secret' && isSet(item.fields[field.name]);
          const onInput = (e: Event) => set(field.name, (e.currentTarget as HTMLInputElement).value);
          return (
            <label key={field.name} for={id}>
              {field.label}
              {field.kind === 'secret' && <span class="muted small"> ({secretSet ? 'set' : 'not set'})</span>}
              {field.kind === 'pem' || field.multiline ? (
                <textarea
                  id={id}
                  disabled={fixed}
                  placeholder={secretSet ? 'set: leave empty to keep' : undefined}
                  value={String(value)}
                  onInput={onInput}
                />
              ) : (
                <input
                  id={id}
                  disabled={fixed}
                  // Preact types each input type apart; the three used here take the same attributes.
                  type={
                    (field.kind === 'secret'
                      ? 'password'
                      : field.kind === 'number'
                        ? 'number'
                        : 'text') as 'text'
                  }
                  step={field.kind === 'number' ? 'any' : undefined}
                  autoComplete={field.kind === 'secret' ? 'new-password' : 'off'}
                  placeholder={secretSet ? 'set: leave empty to keep' : field.hint}
                  value={String(value)}
                  onInput={onInput}
                />
              )}
            </label>
          );
        })}
      </div>
      <Outcome result={result.value} />
      <div class="row">
        <button type="button" disabled={busy.value} onClick={test}>
          Test
        </button>
        <button type="submit" class="primary" disabled={busy.value || fixed}>
          Save
        </button>
        {item.source === 'settings' && (
          <button type="button" class="ghost" onClick={remove}>
            Remove
          </button>
        )}
      </div>
    </form>
  );
}

export function Integrations() {
  const items = useSignal<Integration[]>([]);
  const load = () =>
    ok(api.GET('/api/integrations')).then((list) => {
      items.value = list.items;
    }, failed);
  useEffect(() => {
    load().then(() => {
      // Opened from a dashboard card ("Set up"): its form comes into view with the first field focused.
      const target = location.hash ? document.getElementById(location.hash.slice(1)) : null;
      target?.scrollIntoView({ block: 'start' });
      target?.querySelector<HTMLElement>('input:not([disabled]), select:not([disabled])')?.focus();
    });
  }, []);
  const targets = items.value.filter((item) => item.kind === 'alert-target');
  return (
    <section class="panel" aria-label="Integrations">
      <div class="panel-head">
        <h2>Integrations</h2>
      </div>
      <div class="integrations">
        {items.value
          .filter((item) => item.kind !== 'alert-target')
          .map((item) => (
            <IntegrationForm key={`${item.kind}-${item.updated_at ?? ''}`} item={item} onSaved={load} />
          ))}
      </div>
      {targets.length > 0 && (
        <div>
          <h3>Alert targets</h3>
          <ul class="list">
            {targets.map((target) => (
              <li key={target.id}>
                {target.title.replace(/^Alert target: /, '')}{' '}
                <span class="muted small">
                  ({String(target.fields.target_kind)},{' '}
                  {target.source === 'environment' ? `set by ${target.variables[0]}` : 'edited under Alerts'}
                  {target.configured ? '' : ', off'})
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}
