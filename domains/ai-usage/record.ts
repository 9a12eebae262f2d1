// Recording what an assistant turn used (the assistant's runners call it after each turn).
import type { Db } from '../../plugins/db.ts';
import type { UsageRecordInput } from './schema.ts';
import { insertUsage } from './store.ts';

/** Records one use: the assistant's turns call this, reports from other tools come through the route. */
export function recordUsage(sql: Db, record: UsageRecordInput & { agent_id: string | null }) {
  return insertUsage(sql, record);
}
