// What the assistant needs of agents: finding the agent a conversation runs as, and a token for one turn. A turn
// token carries the agent's tier, its scope narrowed to the conversation's space, the conversation itself (the only
// messages the agent may find), and is revoked when the turn ends.
import { hashToken, newToken } from '../../lib/secrets.ts';
import { agentTokenPrefix } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import {
  type AgentRow,
  ensureAgent,
  findAgent,
  findAgentByName,
  findAgentWithCapability,
  insertToken,
  revokeToken,
} from './store.ts';

export type { AgentRow };
export { ensureAgent, findAgent, findAgentByName, findAgentWithCapability };

export async function mintTurnToken(
  sql: Db,
  turn: { agentId: string; spaceId: string | null; conversationId: string | null },
  ttlMs: number,
): Promise<{ id: string; token: string }> {
  const token = newToken(agentTokenPrefix);
  const row = await insertToken(sql, {
    agent_id: turn.agentId,
    label: 'assistant turn',
    hash: hashToken(token),
    prefix: token.slice(0, agentTokenPrefix.length + 7),
    // A turn that never ends (a crash) leaves no token usable for long.
    expires_at: new Date(Date.now() + ttlMs),
    space_id: turn.spaceId,
    conversation_id: turn.conversationId,
  });
  return { id: row.id, token };
}

export async function revokeTurnToken(sql: Db, id: string): Promise<void> {
  await revokeToken(sql, id);
}
