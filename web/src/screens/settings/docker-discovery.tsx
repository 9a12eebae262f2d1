// Settings › Apps from Docker: the candidates the docker.sync task found in containers' labels (homepage.* or a
// Traefik Host rule), each with its link, group and container state; Promote makes an app of one, Dismiss hides it
// for good, Sync now reads the containers again.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { components } from '../../api.d.ts';
import { api, ok } from '../../client.ts';
import { failed, toast } from '../../state.ts';

type Candidate = components['schemas']['DiscoveredApp'];

const stateWords = (candidate: Candidate) =>
  candidate.health ? `${candidate.state}, ${candidate.health}` : candidate.state;

export function DockerDiscovery() {
  const items = useSignal<Candidate[] | null>(null);
  const busy = useSignal(false);
  const load = () =>
    ok(api.GET('/api/apps/discovered', { params: { query: { limit: 100, offset: 0 } } })).then((page) => {
      items.value = page.items;
    }, failed);
  useEffect(() => {
    load();
  }, []);

  async function act(work: () => Promise<unknown>, done: string) {
    busy.value = true;
    try {
      await work();
      toast(done, 'success');
      await load();
    } catch (error) {
      failed(error);
    } finally {
      busy.value = false;
    }
  }

  const promote = (candidate: Candidate) =>
    act(
      () => ok(api.POST('/api/apps/discovered/{id}/promote', { params: { path: { id: candidate.id } } })),
      `${candidate.name} added to the apps`,
    );
  const dismiss = (candidate: Candidate) =>
    act(
      () => ok(api.DELETE('/api/apps/discovered/{id}', { params: { path: { id: candidate.id } } })),
      `${candidate.name} dismissed`,
    );
  const sync = () =>
    act(
      () => ok(api.POST('/api/actions/run', { body: { action: 'docker.sync' } })),
      'Reading the containers: the list updates when the sync has run',
    );

  return (
    <section class="panel" aria-label="Apps from Docker">
      <div class="panel-head">
        <h2>Apps from Docker</h2>
        <button type="button" disabled={busy.value} onClick={sync}>
          Sync now
        </button>
      </div>
      {items.value === null ? (
        <p class="muted">Loading…</p>
      ) : items.value.length === 0 ? (
        <p class="muted">
          No candidates: set up Docker under Integrations, and label containers with homepage.* or a Traefik
          Host rule.
        </p>
      ) : (
        <ul class="list" aria-label="Discovered apps">
          {items.value.map((candidate) => (
            <li key={candidate.id} data-candidate={candidate.name}>
              <span>
                <strong>{candidate.name}</strong> {candidate.group ? `(${candidate.group}) ` : ''}
                <a href={candidate.href} target="_blank" rel="noopener noreferrer">
                  {candidate.href}
                </a>
                <span class="muted small">
                  {' '}
                  · {candidate.container_name}: {stateWords(candidate)} · from {candidate.source} labels
                </span>
              </span>
              {candidate.app_id ? (
                <span class="badge success">promoted</span>
              ) : (
                <span class="row">
                  <button
                    type="button"
                    disabled={busy.value}
                    aria-label={`Promote ${candidate.name}`}
                    onClick={() => promote(candidate)}
                  >
                    Promote
                  </button>
                  <button
                    type="button"
                    class="ghost"
                    disabled={busy.value}
                    aria-label={`Dismiss ${candidate.name}`}
                    onClick={() => dismiss(candidate)}
                  >
                    Dismiss
                  </button>
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
