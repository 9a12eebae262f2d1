// Approvals: agents' proposals waiting for the owner, decided in place; the audit log of every decision.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { components } from '../../api.d.ts';
import { api, ok } from '../../client.ts';
import { DraftCard } from '../../components/DraftCard.tsx';
import { Icon } from '../../components/Icon.tsx';
import { FieldList } from '../../components/Proposal.tsx';
import { dateTime } from '../../lib.ts';
import { failed, toast } from '../../state.ts';
import type { Agent, AuditEntry, PendingChange } from '../../types.ts';

type PendingAction = components['schemas']['PendingAction'];

/** Who an audit entry's actor is, in words: the owner (or the access-proxy email), else the agent's name. */
function actorName(actor: string, agents: Map<string, Agent>): string {
  if (actor === 'owner') return 'Owner';
  if (actor.startsWith('owner:access:')) return actor.slice('owner:access:'.length);
  return agents.get(actor)?.display_name ?? 'a deleted agent';
}

export default function Approvals() {
  const pending = useSignal<PendingChange[]>([]);
  const audit = useSignal<AuditEntry[]>([]);
  const agents = useSignal<Map<string, Agent>>(new Map());
  const actions = useSignal<PendingAction[]>([]);

  async function load() {
    const [changes, log, agentList, proposed] = await Promise.all([
      ok(api.GET('/api/pending-changes', { params: { query: { status: 'pending', limit: 100 } } })),
      ok(api.GET('/api/audit', { params: { query: { limit: 50 } } })),
      ok(api.GET('/api/agents', { params: { query: { limit: 100 } } })),
      ok(api.GET('/api/actions/pending')),
    ]);
    actions.value = proposed.items;
    // Decided cards stay until the next load, so the owner sees the outcome where they clicked.
    const shown = new Set(pending.value.map((change) => change.id));
    pending.value = [
      ...pending.value.filter((c) => shown.has(c.id)),
      ...changes.items.filter((c) => !shown.has(c.id)),
    ];
    audit.value = log.items;
    agents.value = new Map(agentList.items.map((agent) => [agent.id, agent]));
  }
  useEffect(() => {
    load().catch(failed);
    const timer = setInterval(() => load().catch(() => undefined), 5000);
    return () => clearInterval(timer);
  }, []);

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
    await load().catch(failed);
  }

  return (
    <div>
      <div class="page-head">
        <h1>Approvals</h1>
        <button type="button" class="ghost" aria-label="Refresh" onClick={() => load().catch(failed)}>
          <Icon name="refresh" size={15} />
        </button>
      </div>
      <section class="panel" aria-label="Waiting for approval">
        <div class="panel-head">
          <h2>Waiting for you</h2>
          <span class="badge">{pending.value.filter((c) => c.status === 'pending').length}</span>
        </div>
        {pending.value.length === 0 ? (
          <p class="muted empty">No proposals waiting. Agents at the suggest tier send theirs here.</p>
        ) : (
          <div class="drafts">
            {pending.value.map((change) => (
              <DraftCard
                key={change.id}
                change={change}
                agentName={change.agent_id ? agents.value.get(change.agent_id)?.display_name : undefined}
                onDecided={() =>
                  ok(api.GET('/api/audit', { params: { query: { limit: 50 } } })).then((log) => {
                    audit.value = log.items;
                  }, failed)
                }
              />
            ))}
          </div>
        )}
      </section>
      {actions.value.length > 0 && (
        <section class="panel" aria-label="Actions waiting">
          <div class="panel-head">
            <h2>Actions waiting</h2>
            <span class="badge">{actions.value.length}</span>
          </div>
          <table>
            <tbody>
              {actions.value.map((action) => (
                <tr key={action.id}>
                  <td>
                    <strong>{action.action}</strong>
                    <FieldList fields={action.params as Record<string, unknown>} />
                  </td>
                  <td>
                    {action.agent_id ? (agents.value.get(action.agent_id)?.display_name ?? 'agent') : 'agent'}
                  </td>
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
              ))}
            </tbody>
          </table>
        </section>
      )}
      <section class="panel" aria-label="Audit log">
        <div class="panel-head">
          <h2>Audit log</h2>
        </div>
        {audit.value.length === 0 ? (
          <p class="muted empty">Nothing decided yet.</p>
        ) : (
          <table>
            <thead>
              <tr>
                <th>When</th>
                <th>Actor</th>
                <th>Action</th>
                <th>Entity</th>
                <th>Outcome</th>
              </tr>
            </thead>
            <tbody>
              {audit.value.map((entry) => (
                <tr key={entry.id}>
                  <td class="muted">{dateTime(entry.created_at)}</td>
                  <td>
                    {actorName(entry.actor, agents.value)}
                    {typeof entry.detail.agent_id === 'string' && (
                      <div class="muted small">
                        proposed by {actorName(entry.detail.agent_id, agents.value)}
                      </div>
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
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}
