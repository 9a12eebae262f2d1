// One agent proposal (a pending change) as a card: what it would do, in words, approve or reject in place. When
// its target changed since it was proposed, approving it shows what is there now beside what it would set, with the
// difference, and the owner approves it anyway or rejects it.
import { useSignal } from '@preact/signals';
import type { paths } from '../api.d.ts';
import { api, ok } from '../client.ts';
import { ago } from '../lib.ts';
import { failed, toast } from '../state.ts';
import type { PendingChange } from '../types.ts';
import { Diff } from './Diff.tsx';
import { Icon } from './Icon.tsx';
import { fieldName, ProposalChanges } from './Proposal.tsx';

/** The 409 answer to approving a change whose target moved on: the versions and what changed since. */
type Stale =
  paths['/api/pending-changes/{id}/approve']['post']['responses'][409]['content']['application/json'];

function asText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** What changed since the proposal: each field now beside what the change would set, and the difference. */
function StaleView({ change, stale }: { change: PendingChange; stale: Stale }) {
  const what = change.entity_type.replace('_', ' ');
  return (
    <section class="stale" aria-label="Changed since proposed">
      <p>
        <strong>
          The {what} changed since this was proposed (version {stale.proposed_against_version}, now{' '}
          {stale.current_version}).
        </strong>{' '}
        {change.action === 'delete'
          ? 'Approving anyway deletes it as it is now.'
          : 'Approving anyway replaces what is there now.'}
      </p>
      {(stale.changes ?? []).map((field) => {
        const name = fieldName(field.field);
        return (
          <div key={field.field}>
            <h4>{name}</h4>
            <div class="conflict-sides">
              <section aria-label={`${name} now`}>
                <h5>Now</h5>
                <pre>{asText(field.current)}</pre>
              </section>
              <section aria-label={`${name} proposed`}>
                <h5>Proposed</h5>
                <pre>{asText(field.proposed)}</pre>
              </section>
            </div>
            <Diff
              before={asText(field.current)}
              after={asText(field.proposed)}
              label={`${name}: now → proposed`}
            />
          </div>
        );
      })}
    </section>
  );
}

function summary(change: PendingChange): string {
  const payload = (change.payload ?? {}) as Record<string, unknown>;
  const name = payload.title ?? payload.name ?? payload.url ?? change.file?.name ?? change.entity_id ?? '';
  return `${change.action} ${change.entity_type}${name ? `: ${String(name)}` : ''}`;
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function DraftCard({
  change,
  agentName,
  onDecided,
}: {
  change: PendingChange;
  agentName?: string;
  onDecided: (change: PendingChange) => void;
}) {
  const busy = useSignal(false);
  const status = useSignal(change.status);
  const stale = useSignal<Stale | null>(null);
  async function decide(kind: 'approve' | 'force' | 'reject') {
    busy.value = true;
    try {
      const options = { params: { path: { id: change.id } } };
      let decided: PendingChange;
      if (kind === 'reject') {
        decided = await ok(api.POST('/api/pending-changes/{id}/reject', { ...options, body: {} }));
      } else {
        const answer = await api.POST('/api/pending-changes/{id}/approve', {
          ...options,
          body: kind === 'force' ? { force: true } : {},
        });
        const refused = answer.response.status === 409 ? (answer.error as Stale) : null;
        if (refused?.code === 'PENDING_CHANGE_STALE') {
          stale.value = refused;
          return;
        }
        decided = await ok(Promise.resolve(answer));
      }
      stale.value = null;
      status.value = decided.status ?? (kind === 'reject' ? 'rejected' : 'applied');
      toast(kind === 'reject' ? 'Rejected' : 'Approved and applied', 'success');
      onDecided(decided);
    } catch (error) {
      failed(error);
    } finally {
      busy.value = false;
    }
  }
  return (
    <article class="draft" data-change-id={change.id} aria-label={summary(change)}>
      <header>
        <span class="badge info">{change.entity_type}</span>
        <strong>{summary(change)}</strong>
        <span class="muted small">
          {agentName ?? 'agent'} · {ago(change.created_at)}
        </span>
      </header>
      {stale.value && status.value === 'pending' ? (
        <StaleView change={change} stale={stale.value} />
      ) : (
        <ProposalChanges change={change} />
      )}
      {change.file && (
        <p class="small">
          {/* A plain download: the hub sends it as an attachment, never as a page. */}
          <a href={`/api/pending-changes/${change.id}/file`} download={change.file.name}>
            {change.file.name}
          </a>{' '}
          <span class="muted">
            {change.file.type} · {size(change.file.size)}
          </span>
        </p>
      )}
      <footer>
        {status.value === 'pending' ? (
          <>
            {stale.value ? (
              <button type="button" class="primary" disabled={busy.value} onClick={() => decide('force')}>
                <Icon name="check" size={15} /> Approve anyway
              </button>
            ) : (
              <button type="button" class="primary" disabled={busy.value} onClick={() => decide('approve')}>
                <Icon name="check" size={15} /> Approve
              </button>
            )}
            <button type="button" disabled={busy.value} onClick={() => decide('reject')}>
              <Icon name="x" size={15} /> Reject
            </button>
          </>
        ) : (
          <span class={`badge ${status.value === 'applied' ? 'success' : 'danger'}`}>{status.value}</span>
        )}
      </footer>
    </article>
  );
}
