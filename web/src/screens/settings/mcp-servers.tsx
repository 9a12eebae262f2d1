// Settings → MCP servers: the downstream servers behind the hub's MCP endpoint, each with its state (or why it was
// disabled), its tools and their effective policies; a policy changed per tool, a server listed again, a new one
// connected (its Authorization header write-only).
import { useSignal } from '@preact/signals';
import { Fragment } from 'preact';
import type { components } from '../../api.d.ts';
import { api, ok } from '../../client.ts';
import { Table } from '../../components/Table.tsx';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { failed, toast } from '../../state.ts';

type McpServer = components['schemas']['McpServer'];
type Policy = McpServer['tool_policy'][string];

function Tools({ server, onChanged }: { server: McpServer; onChanged: () => unknown }) {
  const tools = useData(() =>
    ok(api.GET('/api/mcp-servers/{id}/tools', { params: { path: { id: server.id } } })),
  );
  async function setPolicy(tool: string, policy: Policy | '') {
    const tool_policy = { ...server.tool_policy };
    if (policy) tool_policy[tool] = policy;
    else delete tool_policy[tool];
    await ok(
      api.PATCH('/api/mcp-servers/{id}', { params: { path: { id: server.id } }, body: { tool_policy } }),
    ).then(() => toast(`${server.name}.${tool}: ${policy || 'default policy'}`, 'success'), failed);
    await Promise.all([tools.reload(), onChanged()]);
  }
  return (
    <Table
      rows={tools.data?.items ?? []}
      empty="No tools listed."
      head={['Tool', 'Annotations', 'Policy']}
      row={(tool) => (
        <tr key={tool.name}>
          <td>
            <code>{tool.listed_as || tool.name}</code>
            {tool.description && <div class="muted small">{tool.description}</div>}
          </td>
          <td class="small">
            {Object.entries(tool.annotations)
              .filter(([, value]) => typeof value === 'boolean')
              .map(([name, value]) => `${name}: ${value}`)
              .join(', ') || '—'}
          </td>
          <td>
            <label>
              <span class="visually-hidden">Policy of {tool.name}</span>
              <select
                value={server.tool_policy[tool.name] ?? ''}
                onChange={(e) => setPolicy(tool.name, e.currentTarget.value as Policy | '')}
              >
                <option value="">default ({tool.policy_source === 'tool' ? 'override' : tool.policy})</option>
                <option value="pass">pass</option>
                <option value="approve">approve</option>
                <option value="deny">deny</option>
              </select>
            </label>
          </td>
        </tr>
      )}
    />
  );
}

export function McpServers() {
  const servers = useData(() => ok(api.GET('/api/mcp-servers')));
  const open = useSignal<string | null>(null);
  const name = useSignal('');
  const url = useSignal('');
  const token = useSignal('');
  async function add(event: Event) {
    event.preventDefault();
    const headers: Record<string, string> = token.value ? { Authorization: `Bearer ${token.value}` } : {};
    const saved = await ok(
      api.POST('/api/mcp-servers', { body: { name: name.value, url: url.value, headers } }),
    ).catch(failed);
    if (saved) {
      toast(
        saved.enabled ? `${saved.name}: ${saved.tool_count} tools` : `${saved.name} saved disabled`,
        'success',
      );
      name.value = '';
      url.value = '';
      token.value = '';
    }
    await servers.reload();
  }
  async function refresh(server: McpServer) {
    await ok(api.POST('/api/mcp-servers/{id}/refresh', { params: { path: { id: server.id } } })).catch(
      failed,
    );
    await servers.reload();
  }
  return (
    <section class="panel" aria-label="MCP servers">
      <div class="panel-head">
        <h2>MCP servers</h2>
      </div>
      <p class="muted small">
        Their tools appear on the hub's MCP endpoint as server.tool for agents with the capability mcp:server.
        Read-only tools pass; the rest wait for your approval unless you set a policy.
      </p>
      <Table
        rows={servers.data?.items ?? []}
        empty="No MCP servers connected."
        head={['Server', 'State', 'Tools', '']}
        row={(server) => (
          <Fragment key={server.id}>
            <tr>
              <td>
                <strong>{server.name}</strong>
                <div class="muted small">{server.url}</div>
              </td>
              <td>
                <span class="badge">{server.enabled ? 'enabled' : 'disabled'}</span>
                {server.last_error && <div class="small">{server.last_error}</div>}
                <div class="muted small">listed {ago(server.refreshed_at)}</div>
              </td>
              <td>
                <button
                  type="button"
                  class="ghost small"
                  aria-expanded={open.value === server.id}
                  onClick={() => (open.value = open.value === server.id ? null : server.id)}
                >
                  {server.tool_count} tools
                </button>
              </td>
              <td>
                <button type="button" class="small" onClick={() => refresh(server)}>
                  Refresh {server.name}
                </button>
              </td>
            </tr>
            {open.value === server.id && (
              <tr>
                <td colSpan={4}>
                  <Tools server={server} onChanged={servers.reload} />
                </td>
              </tr>
            )}
          </Fragment>
        )}
      />
      <form class="row section-gap" aria-label="New MCP server" onSubmit={add}>
        <label>
          Name
          <input
            value={name.value}
            onInput={(e) => (name.value = e.currentTarget.value)}
            required
            pattern="[a-z0-9][a-z0-9\-]*"
          />
        </label>
        <label>
          Streamable HTTP URL
          <input type="url" value={url.value} onInput={(e) => (url.value = e.currentTarget.value)} required />
        </label>
        <label>
          Bearer token (optional)
          <input type="password" value={token.value} onInput={(e) => (token.value = e.currentTarget.value)} />
        </label>
        <button type="submit">Connect</button>
      </form>
    </section>
  );
}
