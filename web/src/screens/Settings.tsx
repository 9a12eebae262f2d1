// Settings: the theme (12 colours, previewed live, saved or reset), agents and their tokens (a new token shown
// once), icon sets (upload a zip, browse), voice (retention; record from the microphone and transcribe).
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, formBody, ok } from '../client.ts';
import { Icon } from '../components/Icon.tsx';
import { ago } from '../lib.ts';
import { failed, toast } from '../state.ts';
import type { Agent, AgentToken, IconSet, VoiceClip } from '../types.ts';
import { HomepageImport } from './settings/HomepageImport.tsx';

const cssName = (name: string) => `--${name.replaceAll('_', '-')}`;
const label = (name: string) => name.replace('_', ' ');

function preview(palette: Record<string, string>) {
  for (const [name, value] of Object.entries(palette))
    document.documentElement.style.setProperty(cssName(name), value);
}

function Theme() {
  const palette = useSignal<Record<string, string>>({});
  const saved = useSignal<Record<string, string>>({});
  useEffect(() => {
    ok(api.GET('/api/theme')).then((theme) => {
      palette.value = theme.palette as Record<string, string>;
      saved.value = theme.palette as Record<string, string>;
    }, failed);
    // Leaving unsaved changes behind restores what the hub has.
    return () => document.documentElement.removeAttribute('style');
  }, []);
  function set(name: string, value: string) {
    palette.value = { ...palette.value, [name]: value };
    preview(palette.value);
  }
  async function save() {
    const changed = Object.fromEntries(
      Object.entries(palette.value).filter(([k, v]) => saved.value[k] !== v),
    );
    const theme = await ok(api.POST('/api/theme', { body: changed })).catch(failed);
    if (!theme) return;
    saved.value = theme.palette as Record<string, string>;
    toast('Theme saved', 'success');
  }
  async function reset() {
    const theme = await ok(api.DELETE('/api/theme')).catch(failed);
    if (!theme) return;
    palette.value = saved.value = theme.palette as Record<string, string>;
    preview(palette.value);
    toast('Theme reset to the defaults', 'success');
  }
  const dirty = Object.entries(palette.value).some(([k, v]) => saved.value[k] !== v);
  return (
    <section class="panel" aria-label="Theme">
      <div class="panel-head">
        <h2>Theme</h2>
        <button type="button" class="ghost" onClick={reset}>
          Reset
        </button>
        <button type="button" class="primary" disabled={!dirty} onClick={save}>
          Save theme
        </button>
      </div>
      <div class="swatches">
        {Object.entries(palette.value).map(([name, value]) => (
          <label key={name} class="swatch">
            <input
              type="color"
              value={value}
              onInput={(e) => set(name, e.currentTarget.value)}
              aria-label={label(name)}
            />
            <span>
              {label(name)}
              <code>{value}</code>
            </span>
          </label>
        ))}
      </div>
    </section>
  );
}

function Agents() {
  const agents = useSignal<Agent[]>([]);
  const tokens = useSignal<AgentToken[]>([]);
  const name = useSignal('');
  const tier = useSignal<'read' | 'suggest' | 'owner'>('suggest');
  const minted = useSignal<{ agent: string; token: string } | null>(null);
  async function load() {
    const [a, t] = await Promise.all([
      ok(api.GET('/api/agents', { params: { query: { limit: 100 } } })),
      ok(api.GET('/api/agent-tokens', { params: { query: { limit: 100 } } })),
    ]);
    agents.value = a.items;
    tokens.value = t.items;
  }
  useEffect(() => {
    load().catch(failed);
  }, []);
  async function create(event: Event) {
    event.preventDefault();
    await ok(api.POST('/api/agents', { body: { name: name.value, tier: tier.value } })).then(() => {
      name.value = '';
    }, failed);
    await load().catch(failed);
  }
  async function mint(agent: Agent) {
    const token = await ok(api.POST('/api/agent-tokens', { body: { agent_id: agent.id } })).catch(failed);
    if (!token) return;
    minted.value = { agent: agent.display_name || agent.name, token: token.token };
    await load().catch(failed);
  }
  async function revoke(token: AgentToken) {
    await ok(api.DELETE('/api/agent-tokens/{id}', { params: { path: { id: token.id } } })).catch(failed);
    await load().catch(failed);
  }
  return (
    <section class="panel" aria-label="Agents and tokens">
      <div class="panel-head">
        <h2>Agents and tokens</h2>
      </div>
      {minted.value && (
        <div class="minted" role="alert">
          <strong>New token for {minted.value.agent}</strong>
          <span class="muted">Copy it now: it is shown this once and stored only as a hash.</span>
          <code class="token">{minted.value.token}</code>
          <div class="row">
            <button type="button" onClick={() => navigator.clipboard?.writeText(minted.value?.token ?? '')}>
              Copy
            </button>
            <button type="button" class="ghost" onClick={() => (minted.value = null)}>
              Done
            </button>
          </div>
        </div>
      )}
      <table>
        <thead>
          <tr>
            <th>Agent</th>
            <th>Tier</th>
            <th>Tokens</th>
            <th>
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {agents.value.map((agent) => (
            <tr key={agent.id}>
              <td>
                <strong>{agent.display_name || agent.name}</strong>
                <div class="muted small">{agent.status}</div>
              </td>
              <td>
                <span class="badge">{agent.tier}</span>
              </td>
              <td>
                {tokens.value
                  .filter((t) => t.agent_id === agent.id && !t.revoked_at)
                  .map((t) => (
                    <div key={t.id} class="token-row">
                      <code>{t.token_prefix}…</code>
                      <span class="muted small">used {ago(t.last_used_at)}</span>
                      <button type="button" class="ghost small" onClick={() => revoke(t)}>
                        Revoke
                      </button>
                    </div>
                  ))}
              </td>
              <td>
                <button type="button" class="small" onClick={() => mint(agent)}>
                  <Icon name="plus" size={13} /> Token
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="row section-gap" onSubmit={create}>
        <label>
          New agent
          <input
            value={name.value}
            onInput={(e) => (name.value = e.currentTarget.value)}
            required
            pattern="[a-z0-9][a-z0-9_\-]*"
          />
        </label>
        <label>
          Tier
          <select
            value={tier.value}
            onChange={(e) => (tier.value = e.currentTarget.value as typeof tier.value)}
          >
            <option value="read">read</option>
            <option value="suggest">suggest</option>
            <option value="owner">owner</option>
          </select>
        </label>
        <button type="submit">
          <Icon name="plus" size={15} /> Add agent
        </button>
      </form>
    </section>
  );
}

interface SetIcon {
  name: string;
  url: string;
  ref: string;
}

function IconSets() {
  const sets = useSignal<IconSet[]>([]);
  const open = useSignal<{ name: string; icons: SetIcon[] } | null>(null);
  const setName = useSignal('');
  async function load() {
    sets.value = (await ok(api.GET('/api/icon-sets'))).items;
  }
  async function browse(name: string) {
    const set = await ok(api.GET('/api/icon-sets/{set}', { params: { path: { set: name } } }));
    open.value = { name, icons: set.icons };
  }
  useEffect(() => {
    load().catch(failed);
  }, []);
  async function upload(event: Event) {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const file = (form.elements.namedItem('zip') as HTMLInputElement).files?.[0];
    if (!file) return;
    const body = new FormData();
    body.append('name', setName.value);
    body.append('file', file, file.name);
    const created = await ok(api.POST('/api/icon-sets', formBody(body))).catch(failed);
    if (!created) return;
    toast(`Icon set ${setName.value} uploaded`, 'success');
    const name = setName.value;
    setName.value = '';
    form.reset();
    await load();
    await browse(name);
  }
  return (
    <section class="panel" aria-label="Icon sets">
      <div class="panel-head">
        <h2>Icon sets</h2>
      </div>
      <div class="chips">
        {sets.value.map((set) => (
          <button
            key={set.name}
            type="button"
            aria-pressed={open.value?.name === set.name}
            onClick={() => browse(set.name).catch(failed)}
          >
            {set.name} <span class="muted">{set.icon_count}</span>
          </button>
        ))}
        {sets.value.length === 0 && (
          <span class="muted">No icon sets yet: brand icons are always there.</span>
        )}
      </div>
      {open.value && (
        <ul class="icon-grid" aria-label={`Icons of ${open.value.name}`}>
          {open.value.icons.map((icon) => (
            <li key={icon.name} title={icon.ref}>
              <img src={icon.url} alt={icon.name} width={32} height={32} loading="lazy" />
              <span>{icon.name}</span>
            </li>
          ))}
        </ul>
      )}
      <form class="row section-gap" onSubmit={upload}>
        <label>
          Set name
          <input
            value={setName.value}
            onInput={(e) => (setName.value = e.currentTarget.value)}
            required
            pattern="[a-z0-9\-]{1,40}"
          />
        </label>
        <label>
          Zip of SVG or PNG icons
          <input name="zip" type="file" accept=".zip,application/zip" required />
        </label>
        <button type="submit">Upload</button>
      </form>
    </section>
  );
}

function Voice() {
  const settings = useSignal<{ retain_clips: boolean; retention_days: number } | null>(null);
  const clips = useSignal<VoiceClip[]>([]);
  const recorder = useSignal<MediaRecorder | null>(null);
  const transcript = useSignal('');
  async function load() {
    clips.value = (await ok(api.GET('/api/voice/clips', { params: { query: { limit: 10 } } }))).items;
  }
  useEffect(() => {
    ok(api.GET('/api/voice/settings')).then((s) => (settings.value = s), failed);
    load().catch(failed);
  }, []);
  async function save(event: Event) {
    event.preventDefault();
    if (!settings.value) return;
    await ok(api.PUT('/api/voice/settings', { body: settings.value })).then(
      () => toast('Voice settings saved', 'success'),
      failed,
    );
  }
  async function record() {
    if (recorder.value) {
      recorder.value.stop();
      return;
    }
    try {
      const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
      const media = new MediaRecorder(stream);
      const chunks: Blob[] = [];
      media.ondataavailable = (event) => chunks.push(event.data);
      media.onstop = async () => {
        for (const track of stream.getTracks()) track.stop();
        recorder.value = null;
        const body = new FormData();
        body.append('file', new Blob(chunks, { type: media.mimeType }), 'recording.webm');
        const result = await ok(api.POST('/api/voice/transcribe', formBody(body))).catch(failed);
        if (result) transcript.value = result.text;
        await load().catch(failed);
      };
      media.start();
      recorder.value = media;
    } catch (error) {
      failed(error);
    }
  }
  return (
    <section class="panel" aria-label="Voice">
      <div class="panel-head">
        <h2>Voice</h2>
        <button type="button" class={recorder.value ? 'danger' : 'primary'} onClick={record}>
          <Icon name="mic" size={15} /> {recorder.value ? 'Stop and transcribe' : 'Record'}
        </button>
      </div>
      {transcript.value && <blockquote class="transcript">{transcript.value}</blockquote>}
      {settings.value && (
        <form class="row" onSubmit={save}>
          <label class="check">
            <input
              type="checkbox"
              checked={settings.value.retain_clips}
              onChange={(e) =>
                (settings.value = { ...settings.value!, retain_clips: e.currentTarget.checked })
              }
            />
            Keep clips
          </label>
          <label>
            Delete clips after (days)
            <input
              type="number"
              min="1"
              max="3650"
              value={settings.value.retention_days}
              onInput={(e) =>
                (settings.value = { ...settings.value!, retention_days: Number(e.currentTarget.value) })
              }
            />
          </label>
          <button type="submit">Save</button>
        </form>
      )}
      <ul class="list section-gap">
        {clips.value.map((clip) => (
          <li key={clip.id} class="clip">
            <span class="muted small">{ago(clip.created_at)}</span> {clip.transcript}
          </li>
        ))}
      </ul>
    </section>
  );
}

export default function Settings() {
  return (
    <div>
      <div class="page-head">
        <h1>Settings</h1>
      </div>
      <div class="stack">
        <Theme />
        <Agents />
        <IconSets />
        <Voice />
        <HomepageImport />
      </div>
    </div>
  );
}
