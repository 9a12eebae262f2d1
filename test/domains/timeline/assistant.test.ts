// An assistant turn on the timeline: run by the fake runner program through the real turn route, recorded as the
// assistant agent's with its conversation as subject, its tool calls and drafts counted, and none of the owner's
// words (they stay in the conversation, which agents do not read).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { createSpace, testApp } from '../../helpers/app.ts';
import { repoRoot } from '../../helpers/process.ts';
import { listening, turn } from '../assistant/helpers.ts';

const fixture = path.join(repoRoot, 'test', 'fixtures', 'assistant-program.ts');

t.test('a turn is recorded with its agent, its conversation and its counts', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'timeline-assistant-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const ta = await testApp(t, {
    env: {
      ASSISTANT_RUNNER: 'command',
      ASSISTANT_COMMAND: `"${process.execPath}" "${fixture}" normal "${dir}"`,
    },
  });
  const base = await listening(ta);
  const space = await createSpace(ta, 'Home');
  await ta.asOwner({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: 'Zigbee coordinator', body: 'The stick sits on USB 2.' },
  });
  const result = await turn(base, '/api/assistant/turn', { message: 'Note how I pair Zigbee', view: null });
  t.equal(result.status, 200, result.text);
  const done = result.events.find((event) => event.event === 'done');
  const events = (await ta.asOwner({ method: 'GET', url: '/api/timeline?kinds=assistant.turn' })).json()
    .items;
  t.equal(events.length, 1);
  const [recorded] = events;
  const [conversation] = await ta.sql<{ agent_id: string }[]>`
    select agent_id::text from conversations where id = ${String(done?.data.conversation_id)}`;
  t.match(recorded, {
    kind: 'assistant.turn',
    severity: 'info',
    title: /answered \(2 tool calls\), 1 draft to review$/,
    subject: { type: 'conversation', id: done?.data.conversation_id },
    actor: conversation.agent_id,
    data: { ok: true },
  });
  t.notMatch(JSON.stringify(recorded), /pair Zigbee/, 'the owner’s words stay in the conversation');
});
