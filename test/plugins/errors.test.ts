// What the error handler says of database conflicts, from real PostgreSQL errors: the row the client acted on, in
// words, with an article that fits; never SQL, an expression or a constraint.
import t from 'tap';
import { describeError } from '../../plugins/errors.ts';
import { createAgent, createSpace, testApp } from '../helpers/app.ts';

const internal = /lower\(|_key\b|_fkey|constraint|table|\bsql\b|violates/i;

t.test('conflicts name the subject in words', async (t) => {
  const ta = await testApp(t);
  const said = async (request: Parameters<typeof ta.asOwner>[0]) => {
    const response = await ta.asOwner(request);
    const { code, message } = response.json();
    t.notMatch(message, internal, `nothing internal: ${message}`);
    return { status: response.statusCode, code, message };
  };

  await createSpace(ta, 'Home');
  t.same(await said({ method: 'POST', url: '/api/spaces', payload: { name: 'HOME' } }), {
    status: 409,
    code: 'UNIQUE_VIOLATION',
    message: 'a space named "home" already exists (ignoring case)',
  });

  const host = { method: 'POST', url: '/api/network-hosts', payload: { hostname: 'NAS.lan' } } as const;
  t.equal((await ta.asOwner(host)).statusCode, 201);
  t.same(await said({ ...host, payload: { hostname: 'nas.LAN' } }), {
    status: 409,
    code: 'UNIQUE_VIOLATION',
    message: 'a network host with hostname "nas.lan" already exists (ignoring case)',
  });

  await createAgent(ta, { name: 'scout' });
  t.same(await said({ method: 'POST', url: '/api/agents', payload: { name: 'scout' } }), {
    status: 409,
    code: 'UNIQUE_VIOLATION',
    message: 'an agent named "scout" already exists',
  });

  // An empty space an agent is held to: the space is what is in use, not the agent.
  const held = await createSpace(ta, 'Held');
  await createAgent(ta, { space_id: held.id });
  t.same(await said({ method: 'DELETE', url: `/api/spaces/${held.id}` }), {
    status: 409,
    code: 'RESTRICT_VIOLATION',
    message: 'the space is still used by an agent',
  });
});

t.test('references that do not hold, said of the row acted on', async (t) => {
  const ta = await testApp(t);
  const failure = async (statement: Promise<unknown>) => {
    const error = await statement.then(
      () => null,
      (caught: unknown) => caught,
    );
    if (!error) throw new Error('the statement was expected to fail');
    return describeError(error);
  };

  const missingSpace = await failure(
    ta.sql`insert into agents (name, display_name, space_id) values ('lost', 'lost', gen_random_uuid())`,
  );
  t.same(missingSpace, {
    statusCode: 409,
    code: 'FOREIGN_KEY_VIOLATION',
    message: 'the agent refers to a space that does not exist',
  });

  // A plain (no action) reference: deleting what it points to.
  const space = await createSpace(ta, 'Referenced');
  await ta.sql`create table space_notes (space_id uuid references spaces (id))`;
  await ta.sql`insert into space_notes values (${space.id})`;
  const stillUsed = await failure(ta.sql`delete from spaces where id = ${space.id}`);
  t.same(stillUsed, {
    statusCode: 409,
    code: 'FOREIGN_KEY_VIOLATION',
    message: 'the space is still used by a space note',
  });
  for (const { message } of [missingSpace, stillUsed]) t.notMatch(message, internal);
});
