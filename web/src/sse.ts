// Server-sent events over fetch: the assistant's turns are POSTs, which EventSource cannot send. The stream is
// parsed by eventsource-parser; what is ours is the default event name and the JSON in each event's data.
import { EventSourceParserStream } from 'eventsource-parser/stream';

export interface StreamEvent {
  event: string;
  data: unknown;
}

/** Reads `response`'s event stream, calling `onEvent` for each event as it arrives. */
export async function readEvents(response: Response, onEvent: (event: StreamEvent) => void): Promise<void> {
  if (!response.body) return;
  const reader = response.body
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(new EventSourceParserStream())
    .getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    let data: unknown = value.data;
    try {
      data = JSON.parse(value.data);
    } catch {
      // Not JSON: handed over as text.
    }
    onEvent({ event: value.event ?? 'message', data });
  }
}
