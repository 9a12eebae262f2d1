// What other domains ask of an agent's grants: the capabilities the owner gave it (such as mcp:<server>, the
// downstream MCP servers it may use through the gateway).
import type { Db } from '../../plugins/db.ts';
import { findAgent } from './store.ts';

export async function agentCapabilities(sql: Db, agentId: string): Promise<string[]> {
  return (await findAgent(sql, agentId))?.capabilities ?? [];
}
