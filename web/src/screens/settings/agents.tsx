// Settings → Agents and tokens: the agents with their tier and live tokens, a new agent, a new token (shown this
// once), a token revoked.
import { useSignal } from '@preact/signals';
import { api, ok } from '../../client.ts';
import { AddRow } from '../../components/AddRow.tsx';
import { Icon } from '../../components/Icon.tsx';
import { Table } from '../../components/Table.tsx';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { failed } from '../../state.ts';
import type { Agent, AgentToken } from '../../types.ts';

type Tier = Agent['tier'];

export function Agents() {
  const agents = useData(() => ok(api.GET('/api/agents', { params: { query: { limit: 100 } } })));
  const tokens = useData(() => ok(api.GET('/api/agent-tokens', { params: { query: { limit: 100 } } })));
  const tier = useSignal<Tier>('suggest');
  const minted = useSignal<{ agent: string; token: string } | null>(null);
  const load = () => Promise.all([agents.reload(), tokens.reload()]);
  async function create(name: string) {
    const created = await ok(api.POST('/api/agents', { body: { name, tier: tier.value } })).catch(failed);
    await load();
    return created !== undefined;
  }
  async function mint(agent: Agent) {
    const token = await ok(api.POST('/api/agent-tokens', { body: { agent_id: agent.id } })).catch(failed);
    if (!token) return;
    minted.value = { agent: agent.display_name || agent.name, token: token.token };
    await load();
  }
  async function revoke(token: AgentToken) {
    await ok(api.DELETE('/api/agent-tokens/{id}', { params: { path: { id: token.id } } })).catch(failed);
    await load();
  }
  const live = (agent: Agent) =>
    (tokens.data?.items ?? []).filter((t) => t.agent_id === agent.id && !t.revoked_at);
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
      <Table
        rows={agents.data?.items ?? []}
        head={['Agent', 'Tier', 'Tokens', '']}
        row={(agent) => (
          <tr key={agent.id}>
            <td>
              <strong>{agent.display_name || agent.name}</strong>
              <div class="muted small">{agent.status}</div>
            </td>
            <td>
              <span class="badge">{agent.tier}</span>
            </td>
            <td>
              {live(agent).map((t) => (
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
        )}
      />
      <AddRow
        label="New agent"
        class="row section-gap"
        button="Add agent"
        pattern="[a-z0-9][a-z0-9_\-]*"
        onAdd={create}
      >
        <label>
          Tier
          <select value={tier.value} onChange={(e) => (tier.value = e.currentTarget.value as Tier)}>
            <option value="read">read</option>
            <option value="suggest">suggest</option>
            <option value="owner">owner</option>
          </select>
        </label>
      </AddRow>
    </section>
  );
}
