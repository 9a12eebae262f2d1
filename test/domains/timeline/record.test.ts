// Recording an event: it commits with the caller's work and rolls back with it, and a bad event never breaks the
// caller's transaction (it is left out, and the work goes on).
import t from 'tap';
import { recordEvent } from '../../../domains/timeline/record.ts';
import { eventsAfter } from '../../../domains/timeline/store.ts';
import { testApp } from '../../helpers/app.ts';

const ta = await testApp(t);
const sql = ta.app.sql;
const [{ last }] = await sql<{ last: string }[]>`select coalesce(max(id), 0)::text as last from events`;

await recordEvent(sql, {
  kind: 'test.outside',
  title: 'Without a transaction',
  subject: { type: 'service', id: 'abc' },
  actor: { agent: '00000000-0000-4000-8000-000000000001' },
  data: { n: 1 },
});

await sql.begin(async (tx) => {
  await recordEvent(tx, { kind: 'test.committed', title: 'Committed with its work', severity: 'warning' });
  // An event that breaks the table's rules is left out; the transaction goes on.
  await recordEvent(tx, { kind: 'Not A Kind', title: 'refused' });
  await tx`select 1`;
});

await sql
  .begin(async (tx) => {
    await recordEvent(tx, { kind: 'test.rolled_back', title: 'Rolled back with its work' });
    throw new Error('the work failed');
  })
  .catch(() => undefined);

const events = await eventsAfter(sql, last);
const committedOnly = await eventsAfter(sql, last, { kinds: ['test.committed'] });
t.same(
  events.map((event) => event.kind),
  ['test.outside', 'test.committed'],
);
t.match(events[0], {
  title: 'Without a transaction',
  subject_type: 'service',
  subject_id: 'abc',
  actor: '00000000-0000-4000-8000-000000000001',
  severity: 'info',
  data: { n: 1 },
});
t.equal(events[1].severity, 'warning');
t.same(
  committedOnly.map((event) => event.kind),
  ['test.committed'],
);
