import type { Static } from 'typebox';
import { defined } from '../../lib/defined.ts';
import { listPage } from '../../lib/list-page.ts';
import type { Tier, TokenOwner } from '../../plugins/auth.ts';
import type { Db } from '../../plugins/db.ts';
import type { Agent, AgentInput, AgentPatch } from './schema.ts';

export type { Tier };

/** A row as the API shows it: the Agent schema's type. */
export type AgentRow = Static<typeof Agent>;

export interface TokenRow {
  id: string;
  agent_id: string;
  label: string;
  token_prefix: string;
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

const agentColumns = [
  'id',
  'name',
  'display_name',
  'persona',
  'capabilities',
  'tier',
  'space_id',
  'status',
  'created_at',
  'updated_at',
];
const tokenColumns = [
  'id',
  'agent_id',
  'label',
  'token_prefix',
  'created_at',
  'expires_at',
  'revoked_at',
  'last_used_at',
];

export async function listAgents(sql: Db, limit: number, offset: number) {
  return listPage<AgentRow>(
    sql,
    { select: sql`${sql(agentColumns)}`, from: sql`from agents`, orderBy: sql`name, id` },
    { limit, offset },
  );
}

export async function findAgent(sql: Db, id: string): Promise<AgentRow | undefined> {
  const [row] = await sql<AgentRow[]>`select ${sql(agentColumns)} from agents where id = ${id}`;
  return row;
}

export async function insertAgent(sql: Db, input: AgentInput): Promise<AgentRow> {
  const [row] = await sql<AgentRow[]>`
    insert into agents (name, display_name, persona, capabilities, tier, space_id, status)
    values (${input.name}, ${input.display_name ?? input.name}, ${input.persona ?? ''}, ${input.capabilities ?? []},
            ${input.tier ?? 'suggest'}, ${input.space_id ?? null}, ${input.status ?? 'active'})
    returning ${sql(agentColumns)}`;
  return row;
}

/**
 * Changes an agent. Disabling it revokes every token it has, in the same statement: re-enabling it later brings none
 * of them back (the owner mints new ones).
 */
export async function updateAgent(sql: Db, id: string, patch: AgentPatch): Promise<AgentRow | undefined> {
  const fields = defined(patch);
  if (Object.keys(fields).length === 0) return findAgent(sql, id);
  const [row] = await sql<AgentRow[]>`
    with updated as (
      update agents set ${sql(fields)}, updated_at = now() where id = ${id} returning ${sql(agentColumns)}
    ), revoked as (
      update agent_tokens set revoked_at = now()
      where agent_id = ${id} and revoked_at is null and (select status from updated) = 'disabled'
    )
    select ${sql(agentColumns)} from updated`;
  return row;
}

export async function deleteAgent(sql: Db, id: string): Promise<boolean> {
  const rows = await sql`delete from agents where id = ${id}`;
  return rows.count > 0;
}

export async function listTokens(sql: Db, agentId: string | undefined, limit: number, offset: number) {
  const where = agentId ? sql`where agent_id = ${agentId}` : sql``;
  return listPage<TokenRow>(
    sql,
    {
      select: sql`${sql(tokenColumns)}`,
      from: sql`from agent_tokens ${where}`,
      orderBy: sql`created_at desc, id`,
    },
    { limit, offset },
  );
}

export async function insertToken(
  sql: Db,
  token: {
    agent_id: string;
    label: string;
    hash: Buffer;
    prefix: string;
    expires_at: Date | null;
    /** Narrows the agent's scope to one space (a turn token). */
    space_id?: string | null;
    /** The conversation a turn token belongs to: the only messages its agent may find. */
    conversation_id?: string | null;
  },
): Promise<TokenRow> {
  const [row] = await sql<TokenRow[]>`
    insert into agent_tokens (agent_id, label, token_hash, token_prefix, expires_at, space_id, conversation_id)
    values (${token.agent_id}, ${token.label}, ${token.hash}, ${token.prefix}, ${token.expires_at},
      ${token.space_id ?? null}, ${token.conversation_id ?? null})
    returning ${sql(tokenColumns)}`;
  return row;
}

export async function findAgentByName(sql: Db, name: string): Promise<AgentRow | undefined> {
  const [row] = await sql<AgentRow[]>`select ${sql(agentColumns)} from agents where name = ${name}`;
  return row;
}

/** The first active agent holding a capability, oldest first. */
export async function findAgentWithCapability(sql: Db, capability: string): Promise<AgentRow | undefined> {
  const [row] = await sql<AgentRow[]>`
    select ${sql(agentColumns)} from agents
    where ${capability} = any(capabilities) and status = 'active' order by created_at, id limit 1`;
  return row;
}

/** The agent of that name, created with `input` when there is none (concurrent first uses agree on one). */
export async function ensureAgent(sql: Db, input: AgentInput): Promise<AgentRow> {
  await sql`
    insert into agents (name, display_name, persona, capabilities, tier, space_id, status)
    values (${input.name}, ${input.display_name ?? input.name}, ${input.persona ?? ''}, ${input.capabilities ?? []},
            ${input.tier ?? 'suggest'}, ${input.space_id ?? null}, ${input.status ?? 'active'})
    on conflict (name) do nothing`;
  const found = await findAgentByName(sql, input.name);
  if (!found) throw new Error(`agent ${input.name} vanished`);
  return found;
}

export async function revokeToken(sql: Db, id: string): Promise<TokenRow | undefined> {
  const [row] = await sql<TokenRow[]>`
    update agent_tokens set revoked_at = coalesce(revoked_at, now()) where id = ${id} returning ${sql(tokenColumns)}`;
  return row;
}

/** The active agent behind a token hash: token neither revoked nor expired, agent not disabled. */
export async function findTokenOwner(sql: Db, hash: Buffer): Promise<TokenOwner | undefined> {
  const [row] = await sql<TokenOwner[]>`
    select t.id as token_id, t.token_hash, a.id as agent_id, a.name, a.tier,
      coalesce(t.space_id, a.space_id) as space_id, t.conversation_id
    from agent_tokens t join agents a on a.id = t.agent_id
    where t.token_hash = ${hash} and t.revoked_at is null
      and (t.expires_at is null or t.expires_at > now()) and a.status = 'active'`;
  if (row) {
    // Touch at most once a minute so a busy agent does not turn every read into a write.
    await sql`update agent_tokens set last_used_at = now()
      where id = ${row.token_id} and (last_used_at is null or last_used_at < now() - interval '1 minute')`;
  }
  return row;
}
