// Who made a change (a page's version, a delete in the trash), in words: the owner, an agent writing directly, or the
// owner's approval of an agent's proposal; agents named by their display name.
import { api, ok } from '../client.ts';
import { useData } from '../data.ts';
import type { Agent } from '../types.ts';

/** Who made a version (or deleted an item), in words. */
export function authorName(
  author: { kind: string; agent_id?: string | null },
  agents: Map<string, Agent> | undefined,
): string {
  const agent = author.agent_id
    ? (agents?.get(author.agent_id)?.display_name ?? 'a deleted agent')
    : 'an agent';
  switch (author.kind) {
    case 'owner':
      return 'Owner';
    case 'agent':
      return agent;
    case 'approval':
      return `Owner, approving ${agent}`;
    default:
      return 'Before history began';
  }
}

/** The agents by id, to name who made a change. */
export function useAgents() {
  const list = useData(() => ok(api.GET('/api/agents', { params: { query: { limit: 100 } } })));
  return new Map<string, Agent>((list.data?.items ?? []).map((agent) => [agent.id, agent]));
}
