// Approvals: agents' proposals waiting for the owner, decided in place; the audit log of every decision.
import { useRef } from 'preact/hooks';
import type { components } from '../../api.d.ts';
import { api, ok } from '../../client.ts';
import { DraftCard } from '../../components/DraftCard.tsx';
import { Icon } from '../../components/Icon.tsx';
import { FieldList } from '../../components/Proposal.tsx';
import { Table } from '../../components/Table.tsx';
import { useData } from '../../data.ts';
import { dateTime } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Agent, PendingChange } from '../../types.ts';

type PendingAction = components['schemas']['PendingAction'];

const every = 5000;

/** Who an audit entry's actor is, in words: the owner (or the access-proxy email), else the agent's name. */
function actorName(actor: string, agents: Map<string, Agent>): string {
  if (actor === 'owner') return 'Owner';
  if (actor.startsWith('owner:access:')) return actor.slice('owner:access:'.length);
  return agents.get(actor)?.display_name ?? 'a deleted agent';
}

/** What an action would do: a downstream MCP call as its server, tool and arguments; a task as its name and params. */
function ActionSummary({ action }: { action: PendingAction }) {
  const params = action.params as Record<string, unknown>;
  if (action.action === 'mcp.call') {
    return (
      <>
        <strong>
          Call <code>{`${params.server}.${params.tool}`}</code>
        </strong>
        <FieldList fields={(params.arguments ?? {}) as Record<string, unknown>} />
      </>
    );
  }
  return (
    <>
      <strong>{action.action}</strong>
      <FieldList fields={params} />
    </>
  );
}

export default function Approvals() {
  const changes = useData(
    () => ok(api.GET('/api/pending-changes', { params: { query: { status: 'pending', limit: 100 } } })),
    [],
    { every },
  );
  const log = useData(() => ok(api.GET('/api/audit', { params: { query: { limit: 50 } } })), [], { every });
  const agentList = useData(() => ok(api.GET('/api/agents', { params: { query: { limit: 100 } } })), [], {
    every,
  });
  const proposed = useData(() => ok(api.GET('/api/actions/pending')), [], { every });
  const load = () => Promise.all([changes.reload(), log.reload(), agentList.reload(), proposed.reload()]);
  // Decided cards stay while the screen is shown, so the owner sees the outcome where they clicked.
  const kept = useRef<PendingChange[]>([]);
  const shown = new Set(kept.current.map((change) => change.id));
  kept.current = [...kept.current, ...(changes.data?.items ?? []).filter((c) => !shown.has(c.id))];
  const pending = kept.current;
  const audit = log.data?.items ?? [];
  const agents = new Map<string, Agent>((agentList.data?.items ?? []).map((agent) => [agent.id, agent]));
  const actions = proposed.data?.items ?? [];

  async function decideAction(action: PendingAction, kind: 'approve' | 'reject') {
    const options = { params: { path: { id: action.id } } };
    await ok(
      kind === 'approve'
        ? api.POST('/api/actions/{id}/approve', options)
        : api.POST('/api/actions/{id}/reject', { ...options, body: {} }),
    ).then(
      () => toast(kind === 'approve' ? 'Action approved: it runs now' : 'Action rejected', 'success'),
      failed,
    );
    await load();
  }

  return (
    <div>
      <div class="page-head">
        <h1>Approvals</h1>
        <button type="button" class="ghost" aria-label="Refresh" onClick={load}>
          <Icon name="refresh" size={15} />
        </button>
      </div>
      <section class="panel" aria-label="Waiting for approval">
        <div class="panel-head">
          <h2>Waiting for you</h2>
          <span class="badge">{pending.filter((c) => c.status === 'pending').length}</span>
        </div>
        {pending.length === 0 ? (
          <p class="muted empty">No proposals waiting. Agents at the suggest tier send theirs here.</p>
        ) : (
          <div class="drafts">
            {pending.map((change) => (
              <DraftCard
                key={change.id}
                change={change}
                agentName={change.agent_id ? agents.get(change.agent_id)?.display_name : undefined}
                onDecided={log.reload}
              />
            ))}
          </div>
        )}
      </section>
      {actions.length > 0 && (
        <section class="panel" aria-label="Actions waiting">
          <div class="panel-head">
            <h2>Actions waiting</h2>
            <span class="badge">{actions.length}</span>
          </div>
          <Table
            rows={actions}
            row={(action) => (
              <tr key={action.id}>
                <td>
                  <ActionSummary action={action} />
                </td>
                <td>{action.agent_id ? (agents.get(action.agent_id)?.display_name ?? 'agent') : 'agent'}</td>
                <td>
                  <div class="row">
                    <button
                      type="button"
                      class="primary small"
                      onClick={() => decideAction(action, 'approve')}
                    >
                      Approve
                    </button>
                    <button type="button" class="small" onClick={() => decideAction(action, 'reject')}>
                      Reject
                    </button>
                  </div>
                </td>
              </tr>
            )}
          />
        </section>
      )}
      <section class="panel" aria-label="Audit log">
        <div class="panel-head">
          <h2>Audit log</h2>
        </div>
        <Table
          rows={audit}
          empty="Nothing decided yet."
          head={['When', 'Actor', 'Action', 'Entity', 'Outcome']}
          row={(entry) => (
            <tr key={entry.id}>
              <td class="muted">{dateTime(entry.created_at)}</td>
              <td>
                {actorName(entry.actor, agents)}
                {typeof entry.detail.agent_id === 'string' && (
                  <div class="muted small">proposed by {actorName(entry.detail.agent_id, agents)}</div>
                )}
              </td>
              <td>{entry.action.replace('_', ' ')}</td>
              <td>{entry.entity_type ?? '—'}</td>
              <td>
                <span
                  class={`badge ${entry.outcome === 'applied' ? 'success' : entry.outcome === 'failed' ? 'danger' : 'warning'}`}
                >
                  {entry.outcome}
                </span>
              </td>
            </tr>
          )}
        />
      </section>
    </div>
  );
}
