// docker.sync: reads the daemon's containers (DOCKER_HOST, else the integration stored in the browser, read at each
// run so a change applies without a restart) and keeps one candidate per labelled container, with its state. The
// candidates are written in one transaction; an unreachable daemon throws (the job retries) and changes nothing.
import type { Sql } from '../../plugins/db.ts';
import { mapIcon } from '../apps/import.ts';
import { type IntegrationDeps, integrationSettings } from '../integrations/resolve.ts';
import { type Candidate, candidateOf } from './candidates.ts';
import { dockerClient } from './client.ts';
import { saveCandidate, settleMissing } from './store.ts';

export interface SyncReport {
  containers: number;
  candidates: number;
  /** Candidates whose container is gone, neither promoted nor dismissed. */
  forgotten: number;
}

/** Whether Docker is configured (the environment or the browser). */
export async function dockerConfigured(deps: IntegrationDeps): Promise<boolean> {
  return (await integrationSettings(deps, 'docker')) !== null;
}

/** One candidate per key: of a scaled service's containers, a running one speaks for it. */
function oneEach(candidates: Candidate[]): Candidate[] {
  const byKey = new Map<string, Candidate>();
  for (const candidate of candidates) {
    const kept = byKey.get(candidate.key);
    if (!kept || (kept.state !== 'running' && candidate.state === 'running'))
      byKey.set(candidate.key, candidate);
  }
  return [...byKey.values()];
}

/** Syncs the candidates; null when Docker is not configured. */
export async function syncDocker(deps: IntegrationDeps & { sql: Sql }): Promise<SyncReport | null> {
  const resolved = await integrationSettings(deps, 'docker');
  if (!resolved) return null;
  const client = dockerClient(resolved.settings, deps.config.dashboard.upstreamTimeoutMs);
  let containers: Awaited<ReturnType<typeof client.containers>>;
  try {
    containers = await client.containers();
  } finally {
    await client.close();
  }
  const candidates = oneEach(
    containers.flatMap((container) => {
      const candidate = candidateOf(container);
      return candidate ? [candidate] : [];
    }),
  );
  const mapped = await Promise.all(
    candidates.map(async ({ icon_label, ...candidate }) => ({
      ...candidate,
      icon: await mapIcon(icon_label),
    })),
  );
  const forgotten = (await deps.sql.begin(async (tx) => {
    for (const candidate of mapped) await saveCandidate(tx, candidate);
    return settleMissing(
      tx,
      mapped.map((candidate) => candidate.key),
    );
  })) as number;
  return { containers: containers.length, candidates: mapped.length, forgotten };
}
