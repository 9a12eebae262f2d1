// Conversations (of a space, or global when space_id is null) and their messages. The assistant writes them;
// unified search reads them.
import { listPage } from '../../lib/list-page.ts';
import type { Db } from '../../plugins/db.ts';

export type MessageRole = 'user' | 'assistant' | 'system' | 'tool';

export interface ConversationRow {
  id: string;
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

const conversationColumns = ['id', 'space_id', 'title', 'created_at', 'updated_at'];
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
