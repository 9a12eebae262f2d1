// The web app's reader of server-sent events over fetch (web/src/sse.ts), fed a stream cut at awkward places: events
// arrive whole, in order, with their names and their JSON data.
import t from 'tap';
import { readEvents, type StreamEvent } from '../../web/src/sse.ts';

/** A response whose body arrives in these chunks, each a separate read. */
function streamed(chunks: string[]): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream' } });
}

async function eventsOf(chunks: string[]): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  await readEvents(streamed(chunks), (event) => events.push(event));
  return events;
}

t.test('events cut across reads arrive whole, named, with their data parsed', async (t) => {
  const text = 'event: delta\ndata: {"text":"Hel';
  t.same(
    await eventsOf([
      ': a comment, ignored\n\n',
      text,
      'lo ✓"}\n\nevent: done\n',
      'data: {"page_id":"p1"}\n\n',
      'data: plain words\ndata: on two lines\n\n',
      'event: ping\n\n',
    ]),
    [
      { event: 'delta', data: { text: 'Hello ✓' } },
      { event: 'done', data: { page_id: 'p1' } },
      { event: 'message', data: 'plain words\non two lines' },
    ],
    'a comment and an event without data are skipped; unnamed events are messages; text that is not JSON stays text',
  );
});

t.test('a character cut between two reads is decoded whole', async (t) => {
  const bytes = new TextEncoder().encode('data: "ünïcode"\n\n');
  const cut = 8; // inside the two bytes of "ü"
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes.subarray(0, cut));
      controller.enqueue(bytes.subarray(cut));
      controller.close();
    },
  });
  const events: StreamEvent[] = [];
  await readEvents(new Response(body), (event) => events.push(event));
  t.same(events, [{ event: 'message', data: 'ünïcode' }]);
});

t.test('lines ended by CRLF, as some proxies send them', async (t) => {
  t.same(await eventsOf(['event: delta\r\ndata: {"n":1}\r\n\r\n']), [{ event: 'delta', data: { n: 1 } }]);
});

t.test('no body: no events', async (t) => {
  t.same(await eventsOf([]), []);
  const events: StreamEvent[] = [];
  await readEvents(new Response(null), (event) => events.push(event));
  t.same(events, []);
});
