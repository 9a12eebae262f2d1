// The follower reads the timeline in commit order. An event takes its id when it is inserted and is seen when its
// transaction commits, so a later id can commit first. Here the earlier event's insert has its id and then waits (its
// space's row is locked by a transaction deleting the space: the reference check waits for it) while a later event
// is recorded and committed and the follower runs. The follower must not pass the earlier event by: once it
// commits, the next runs open its incident, and the later event is read once.
//
// An event that waits for an older transaction (any writing one) is followed soon after that one ends, with the
// worker running and no minute run: the run that read nothing queued another.
//
// (Transactions that record followed events otherwise queue the follower's job under one key, which holds the
// second one back until the first commits: the race is the moment between an event's id and that key.)
import { randomUUID } from 'node:crypto';
import t from 'tap';
import { followTimeline } from '../../../domains/incidents/follow.ts';
import { recordEvent } from '../../../domains/timeline/record.ts';
import { createSpace, type TestApp, testApp } from '../../helpers/app.ts';
import { until } from '../../helpers/process.ts';

const ta = await testApp(t);

function down(service: string, id: string, space_id: string | null = null) {
  return {
    kind: 'service.down',
    title: `${service} is down`,
    severity: 'critical' as const,
    subject: { type: 'service', id },
    space_id,
    data: { service },
  };
}

const eventOf = async (serviceId: string) => {
  const [row] = await ta.sql<{ id: string }[]>`
    select id::text from events where kind = 'service.down' and subject_id = ${serviceId}`;
  return row?.id;
};

const incidentOf = async (app: TestApp, serviceId: string) => {
  const [row] = await app.sql<{ title: string; state: string; events: { id: string }[] }[]>`
    select title, state, events from incidents where root ->> 'id' = ${serviceId}`;
  return row;
};

t.test('an event committed after a later one is followed, and the later one once', async (t) => {
  const early = randomUUID();
  const late = randomUUID();
  const space = await createSpace(ta);

  // A transaction deleting the space holds its row (as deleteSpace does first).
  const { promise: spaceLocked, resolve: locked } = Promise.withResolvers<void>();
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const deleting = ta.sql.begin(async (tx) => {
    await tx`select id from spaces where id = ${space.id} for update`;
    locked();
    await released;
  });
  await spaceLocked;

  const earlyRecorded = recordEvent(ta.sql, down('Jellyfin', early, space.id));
  await until('the earlier event’s insert to wait for the space', async () => {
    const [row] = await ta.sql<{ waiting: boolean }[]>`
      select exists (select 1 from pg_stat_activity where datname = current_database()
        and wait_event_type = 'Lock' and query ~ '^\\s*insert into events') as waiting`;
    return row.waiting || undefined;
  });

  await recordEvent(ta.sql, down('Grafana', late));
  const lateId = await eventOf(late);
  t.ok(lateId, 'the later event is committed');
  t.equal(await eventOf(early), undefined, 'the earlier one is not committed yet');

  const whileWaiting = await followTimeline(ta.sql);
  t.equal(whileWaiting, 0, 'nothing read while an older transaction is still running');
  t.equal(await incidentOf(ta, late), undefined);

  release();
  await deleting;
  await earlyRecorded;
  const earlyId = await eventOf(early);
  t.ok(earlyId && BigInt(earlyId) < BigInt(lateId as string), 'the earlier event has the lower id');

  // Other databases of the cluster may hold a transaction open for a moment: the follower waits for them too.
  let read = whileWaiting;
  const earlyIncident = await until('the earlier event to be followed', async () => {
    read += await followTimeline(ta.sql);
    return incidentOf(ta, early);
  });
  const lateIncident = await until('the later event to be followed', async () => {
    read += await followTimeline(ta.sql);
    return incidentOf(ta, late);
  });
  t.match(earlyIncident, { title: 'Jellyfin is down', state: 'open' });
  t.same(
    earlyIncident.events.map((event) => event.id),
    [earlyId],
  );
  t.match(lateIncident, { title: 'Grafana is down', state: 'open' });
  t.same(
    lateIncident.events.map((event) => event.id),
    [lateId],
    'the later event is in its incident once',
  );
  t.equal(read, 2, 'each event read once');
  t.equal(await followTimeline(ta.sql), 0, 'nothing left to read');
});

t.test('an event held back is followed soon after the older transaction ends', async (t) => {
  const worked = await testApp(t, { worker: true });
  const service = randomUUID();
  const followRuns = async () => {
    const [row] = await worked.sql<{ n: number }[]>`
      select count(*)::int as n from job_records where task = 'incidents.follow' and state = 'completed'`;
    return row.n;
  };

  // A transaction that has written something (a space being made) is still running when the event is recorded.
  const { promise: released, resolve: release } = Promise.withResolvers<void>();
  const { promise: running, resolve: started } = Promise.withResolvers<void>();
  const older = worked.sql.begin(async (tx) => {
    await tx`insert into spaces (name) values ('Made slowly')`;
    started();
    await released;
  });
  await running;

  await recordEvent(worked.sql, down('Jellyfin', service));
  // The run the event queued has read nothing: the event waits for the older transaction.
  await until('the queued run', async () => ((await followRuns()) > 0 ? true : undefined));
  t.equal(await incidentOf(worked, service), undefined, 'not followed while the older transaction runs');

  release();
  await older;
  const incident = await until('the event to be followed', () => incidentOf(worked, service), 30_000);
  t.match(incident, { title: 'Jellyfin is down', state: 'open' });
});
