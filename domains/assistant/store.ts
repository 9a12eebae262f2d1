// Conversations (an agent's, in a space or global when space_id is null) and their messages. The assistant writes
// them; unified search reads them.
import { listPage } from '../../lib/list-page.ts';
import type { Db } from '../../plugins/db.ts';

export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';

export interface ConversationRow {
  id: string;
  agent_id: string | null;
  space_id: string | null;
  title: string;
  created_at: Date;
  updated_at: Date;
}

export interface MessageRow {
  id: string;
  conversation_id: string;
  role: MessageRole;
  content: string;
  metadata: Record<string, unknown>;
  created_at: Date;
}

const conversationColumns = ['id', 'agent_id', 'space_id', 'title', 'created_at', 'updated_at'];
const messageColumns = ['id', 'conversation_id', 'role', 'content', 'metadata', 'created_at'];

export async function insertConversation(
  sql: Db,
  conversation: { space_id: string | null; title?: string },
): Promise<ConversationRow> {
  const [row] = await sql<ConversationRow[]>`
    insert into conversations (space_id, title) values (${conversation.space_id}, ${conversation.title ?? ''})
    returning ${sql(conversationColumns)}`;
  return row;
}

export async function findConversation(sql: Db, id: string): Promise<ConversationRow | undefined> {
  const [row] = await sql<ConversationRow[]>`
    select ${sql(conversationColumns)} from conversations where id = ${id}`;
  return row;
}

export async function renameConversation(
  sql: Db,
  id: string,
  title: string,
): Promise<ConversationRow | undefined> {
  const [row] = await sql<ConversationRow[]>`
    update conversations set title = ${title}, updated_at = now() where id = ${id}
    returning ${sql(conversationColumns)}`;
  return row;
}

/** Conversations of one space, or the global ones (spaceId null), most recently active first. */
export async function listConversations(
  sql: Db,
  spaceId: string | null,
  page: { limit: number; offset: number },
) {
  const where = spaceId ? sql`where space_id = ${spaceId}` : sql`where space_id is null`;
  return listPage<ConversationRow>(
    sql,
    {
      select: sql`${sql(conversationColumns)}`,
      from: sql`from conversations ${where}`,
      orderBy: sql`updated_at desc, id`,
    },
    page,
  );
}

export async function deleteConversation(sql: Db, id: string): Promise<boolean> {
  const result = await sql`delete from conversations where id = ${id}`;
  return result.count > 0;
}

/** Appends a message and marks the conversation active. Clock time: messages of one transaction keep their order. */
export async function insertMessage(
  sql: Db,
  message: {
    conversation_id: string;
    role: MessageRole;
    content: string;
    metadata?: Record<string, unknown>;
  },
): Promise<MessageRow> {
  const [row] = await sql<MessageRow[]>`
    insert into messages (conversation_id, role, content, metadata, created_at)
    values (${message.conversation_id}, ${message.role}, ${message.content},
            ${sql.json((message.metadata ?? {}) as never)}, clock_timestamp())
    returning ${sql(messageColumns)}`;
  await sql`update conversations set updated_at = now() where id = ${message.conversation_id}`;
  return row;
}

/** Messages of a conversation, oldest first. */
export async function listMessages(sql: Db, conversationId: string, page: { limit: number; offset: number }) {
  return listPage<MessageRow>(
    sql,
    {
      select: sql`${sql(messageColumns)}`,
      from: sql`from messages where conversation_id = ${conversationId}`,
      orderBy: sql`created_at, id`,
    },
    page,
  );
}

/** The latest messages of a conversation, returned oldest first (what a turn's history needs). */
export async function recentMessages(sql: Db, conversationId: string, count: number): Promise<MessageRow[]> {
  const rows = await sql<MessageRow[]>`
    select ${sql(messageColumns)} from messages where conversation_id = ${conversationId}
    order by created_at desc, id desc limit ${count}`;
  return rows.reverse();
}

/** The conversation of an agent in a space (or its global one), made on first use. */
export async function conversationOf(
  sql: Db,
  agentId: string,
  spaceId: string | null,
): Promise<ConversationRow> {
  await sql`
    insert into conversations (agent_id, space_id) values (${agentId}, ${spaceId})
    on conflict (agent_id, space_id) where agent_id is not null do nothing`;
  const [row] = await sql<ConversationRow[]>`
    select ${sql(conversationColumns)} from conversations
    where agent_id = ${agentId} and space_id is not distinct from ${spaceId}`;
  return row;
}

/** The conversation, if it exists yet (reading history makes none). */
export async function findConversationOf(
  sql: Db,
  agentId: string,
  spaceId: string | null,
): Promise<ConversationRow | undefined> {
  const [row] = await sql<ConversationRow[]>`
    select ${sql(conversationColumns)} from conversations
    where agent_id = ${agentId} and space_id is not distinct from ${spaceId}`;
  return row;
}

/**
 * Claims the conversation for one turn: false while another turn holds it. A claim older than `staleAfterMs` (its
 * process died mid-turn) is taken over.
 */
export async function claimTurn(sql: Db, id: string, staleAfterMs: number): Promise<boolean> {
  const rows = await sql`
    update conversations set turn_started_at = now()
    where id = ${id}
      and (turn_started_at is null or turn_started_at < now() - make_interval(secs => ${staleAfterMs / 1000}))`;
  return rows.count > 0;
}

export async function releaseTurn(sql: Db, id: string): Promise<void> {
  await sql`update conversations set turn_started_at = null where id = ${id}`;
}

/** A page of messages older than `before` (a message id), oldest first, and whether older ones remain. */
export async function messagesBefore(
  sql: Db,
  conversationId: string,
  page: { limit: number; offset: number; before?: string },
): Promise<{ items: MessageRow[]; has_more: boolean }> {
  const { limit, offset, before } = page;
  const older = before
    ? sql`and (created_at, id) < (select created_at, id from messages where id = ${before})`
    : sql``;
  const rows = await sql<MessageRow[]>`
    select ${sql(messageColumns)} from messages where conversation_id = ${conversationId} ${older}
    order by created_at desc, id desc limit ${limit + 1} offset ${offset}`;
  return { items: rows.slice(0, limit).reverse(), has_more: rows.length > limit };
}

export async function findSpaceCompanion(
  sql: Db,
  spaceId: string,
): Promise<{ id: string; companion_agent_id: string | null } | undefined> {
  const [row] = await sql<{ id: string; companion_agent_id: string | null }[]>`
    select id, companion_agent_id from spaces where id = ${spaceId}`;
  return row;
}

export async function setSpaceCompanion(sql: Db, spaceId: string, agentId: string | null): Promise<boolean> {
  const rows = await sql`update spaces set companion_agent_id = ${agentId} where id = ${spaceId}`;
  return rows.count > 0;
}
