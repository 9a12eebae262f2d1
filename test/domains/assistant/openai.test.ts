// Turns through an OpenAI-compatible endpoint: a fake server on loopback replays real streaming shapes (llama.cpp and
// vLLM's tool-call deltas by index, Ollama's whole calls, the usage chunk, [DONE]) and drives a tool loop to a draft.
import t from 'tap';
import { createSpace, testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';
import { listening, turn } from './helpers.ts';

const chunk = (model: string, choices: unknown[], extra: Record<string, unknown> = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-7', object: 'chat.completion.chunk', created: 1763800000, model, choices, ...extra })}\n\n`;
const delta = (model: string, value: Record<string, unknown>, finish: string | null = null) =>
  chunk(model, [{ index: 0, delta: value, finish_reason: finish }]);

t.test(
  'a tool loop over a streamed chat completion ends in a draft; usage is summed over the rounds',
  async (t) => {
    const bodies: Record<string, unknown>[] = [];
    let spaceId = '';
    const model = 'qwen2.5-7b-instruct';
    const upstream = await startUpstream(t, (request, response) => {
      if (request.url !== '/v1/chat/completions' || request.method !== 'POST') {
        response.writeHead(404).end();
        return;
      }
      const body = JSON.parse(request.body) as { messages: { role: string; content: string | null }[] };
      bodies.push(body);
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const tools = body.messages.filter((message) => message.role === 'tool').length;
      if (tools === 0) {
        // llama.cpp / vLLM: id and name once, the arguments in pieces, by index; vLLM's usage: null on each chunk.
        response.write(delta(model, { role: 'assistant', content: null }));
        response.write(
          delta(model, {
            tool_calls: [
              { index: 0, id: 'call_a1', type: 'function', function: { name: 'search', arguments: '' } },
            ],
          }),
        );
        response.write(delta(model, { tool_calls: [{ index: 0, function: { arguments: '{"q":' } }] }));
        response.write(delta(model, { tool_calls: [{ index: 0, function: { arguments: ' "zigbee"}' } }] }));
        response.write(chunk(model, [{ index: 0, delta: {}, finish_reason: 'tool_calls' }], { usage: null }));
        response.write(
          chunk(model, [], { usage: { prompt_tokens: 300, completion_tokens: 20, total_tokens: 320 } }),
        );
      } else if (tools === 1) {
        // Ollama: the whole call in one chunk, without an index.
        response.write(
          delta('llama3.1:8b', {
            role: 'assistant',
            content: '',
            tool_calls: [
              {
                id: 'call_b2',
                type: 'function',
                function: {
                  name: 'create_page',
                  arguments: JSON.stringify({ title: 'Zigbee pairing notes', space_id: spaceId }),
                },
              },
            ],
          }),
        );
        response.write(delta('llama3.1:8b', {}, 'tool_calls'));
        response.write(
          chunk('llama3.1:8b', [], {
            usage: { prompt_tokens: 400, completion_tokens: 30, total_tokens: 430 },
          }),
        );
      } else {
        response.write(delta(model, { role: 'assistant', content: 'I drafted ' }));
        response.write(delta(model, { content: 'a page.' }));
        response.write(delta(model, {}, 'stop'));
        response.write(
          chunk(model, [], { usage: { prompt_tokens: 500, completion_tokens: 10, total_tokens: 510 } }),
        );
      }
      response.end('data: [DONE]\n\n');
    });
    const ta = await testApp(t, {
      env: {
        ASSISTANT_RUNNER: 'openai',
        ASSISTANT_OPENAI_URL: `${upstream.url}/v1`,
        ASSISTANT_MODEL: model,
        ASSISTANT_API_KEY: 'sk-local-test',
      },
    });
    const space = await createSpace(ta, 'Home');
    spaceId = space.id;
    await ta.asOwner({
      method: 'POST',
      url: '/api/pages',
      payload: { space_id: space.id, title: 'Zigbee stick' },
    });
    const base = await listening(ta);

    const result = await turn(base, '/api/assistant/turn', {
      message: 'write down how I pair Zigbee',
      view: null,
    });
    t.equal(result.status, 200);
    t.same(
      result.events.map((event) => event.event),
      [
        'tool_call',
        'tool_result',
        'tool_call',
        'tool_result',
        'draft',
        'message',
        'message',
        'usage',
        'done',
      ],
    );
    const [search, searched, write, written, draft] = result.events.map((event) => event.data);
    t.same(
      search,
      { id: 'call_a1', name: 'search', arguments: { q: 'zigbee' } },
      'the pieces were assembled',
    );
    t.match(searched, { id: 'call_a1', is_error: false, content: /Zigbee stick/ });
    t.match(write, { id: 'call_b2', name: 'create_page', arguments: { title: 'Zigbee pairing notes' } });
    t.match(written, { is_error: false, content: /pending_change_id/ });
    const [change] = await ta.sql<{ id: string }[]>`select id from pending_changes`;
    t.match(draft, { pending_change_id: change.id, action: 'create', entity_type: 'page' });
    t.match(result.events.at(-2)?.data, { model, input_tokens: 1200, output_tokens: 60 });

    // What the endpoint was sent: streaming with usage, the hub's tools as functions, the tool results fed back.
    t.equal(bodies.length, 3);
    t.match(bodies[0], { model, stream: true, stream_options: { include_usage: true } });
    const offered = (bodies[0].tools as { type: string; function: { name: string } }[]).map(
      (tool) => tool.function.name,
    );
    t.ok(offered.includes('search') && offered.includes('create_page'), 'the hub’s tools are offered');
    t.equal(upstream.requests[0].headers.authorization, 'Bearer sk-local-test');
    const third = bodies[2].messages as { role: string; tool_call_id?: string; tool_calls?: unknown[] }[];
    t.match(third.at(-1), { role: 'tool', tool_call_id: 'call_b2' });
    t.match(third.at(-2), {
      role: 'assistant',
      tool_calls: [{ id: 'call_b2', function: { name: 'create_page' } }],
    });

    const [usage] = await ta.sql<{ local: boolean; model: string; input_tokens: number }[]>`
    select local, model, input_tokens from ai_usage_records`;
    t.same(usage, { local: true, model, input_tokens: 1200 }, 'a model on loopback counts as local');
  },
);

t.test('an endpoint that fails or hangs ends the turn with an error event', async (t) => {
  let hang = false;
  const upstream = await startUpstream(t, (_request, response) => {
    if (hang) return;
    response
      .writeHead(500, { 'content-type': 'application/json' })
      .end('{"error":{"message":"model not loaded"}}');
  });
  const ta = await testApp(t, {
    env: {
      ASSISTANT_RUNNER: 'openai',
      ASSISTANT_OPENAI_URL: `${upstream.url}/v1`,
      ASSISTANT_MODEL: 'm',
      ASSISTANT_TIMEOUT_MS: '1000',
    },
  });
  const base = await listening(ta);
  const failed = await turn(base, '/api/assistant/turn', { message: 'hi', view: null });
  t.match(failed.events.find((event) => event.event === 'error')?.data, { message: /500.*model not loaded/ });
  hang = true;
  const slow = await turn(base, '/api/assistant/turn', { message: 'hi', view: null });
  t.match(slow.events.find((event) => event.event === 'error')?.data, { message: /longer than 1000 ms/ });
  t.equal(slow.events.at(-1)?.event, 'done');
});
