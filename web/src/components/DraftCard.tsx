// One agent proposal (a pending change) as a card: what it would do, in words, approve or reject in place.
import { useSignal } from '@preact/signals';
import { api, ok } from '../client.ts';
import { ago } from '../lib.ts';
import { failed, toast } from '../state.ts';
import type { PendingChange } from '../types.ts';
import { Icon } from './Icon.tsx';
import { ProposalChanges } from './Proposal.tsx';

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
  async function decide(kind: 'approve' | 'reject') {
    busy.value = true;
    try {
      const options = { params: { path: { id: change.id } } };
      const decided =
        kind === 'approve'
          ? await ok(api.POST('/api/pending-changes/{id}/approve', { ...options, body: {} }))
          : await ok(api.POST('/api/pending-changes/{id}/reject', { ...options, body: {} }));
      status.value = (decided as PendingChange).status ?? (kind === 'approve' ? 'applied' : 'rejected');
      toast(kind === 'approve' ? 'Approved and applied' : 'Rejected', 'success');
      onDecided(decided as PendingChange);
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
      <ProposalChanges change={change} />
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
            <button type="button" class="primary" disabled={busy.value} onClick={() => decide('approve')}>
              <Icon name="check" size={15} /> Approve
            </button>
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
