// Claude Code's `--output-format stream-json` (one JSON object a line), read into runner events:
//   {"type":"system","subtype":"init","model":...}               the model in use
//   {"type":"assistant","message":{"content":[{"type":"text","text":...},
//       {"type":"tool_use","id":...,"name":...,"input":{...}}]}}  text and tool calls
//   {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":...,
//       "content":"..." | [{"type":"text","text":...}],"is_error":false}]}}  tool results
//   {"type":"result","subtype":"success"|"error_...","is_error":bool,"result":...,
//       "usage":{"input_tokens":..,"output_tokens":..},"total_cost_usd":..}   the end (success can still be is_error)
// A line that is not JSON is message text, so a plain program works as a runner too.
import type { RunnerEvent } from './events.ts';

type Json = Record<string, unknown>;

function object(value: unknown): Json | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : null;
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.round(value) : 0;
}

/** A tool result's content as text: a string, or the text of its text blocks. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((block) => (object(block)?.type === 'text' ? String(object(block)?.text ?? '') : ''))
      .join('');
  }
  return content === undefined ? '' : JSON.stringify(content);
}

export class StreamJsonReader {
  model: string | null = null;
  private sawResult = false;

  /** Events of one output line. */
  line(raw: string): RunnerEvent[] {
    const text = raw.trim();
    if (text === '') return [];
    let doc: Json | null = null;
    try {
      doc = object(JSON.parse(text));
    } catch {
      return [{ type: 'message', text: `${raw}\n` }];
    }
    if (!doc) return [{ type: 'message', text: `${raw}\n` }];
    const message = object(doc.message);
    switch (doc.type) {
      case 'system':
        if (typeof doc.model === 'string') this.model = doc.model;
        return [];
      case 'assistant': {
        if (typeof message?.model === 'string') this.model = message.model;
        const events: RunnerEvent[] = [];
        for (const block of Array.isArray(message?.content) ? message.content : []) {
          const part = object(block);
          if (part?.type === 'text' && typeof part.text === 'string' && part.text !== '') {
            events.push({ type: 'message', text: part.text });
          } else if (part?.type === 'tool_use') {
            events.push({
              type: 'tool_call',
              id: String(part.id ?? ''),
              name: String(part.name ?? ''),
              arguments: part.input ?? {},
            });
          }
        }
        return events;
      }
      case 'user': {
        const events: RunnerEvent[] = [];
        for (const block of Array.isArray(message?.content) ? message.content : []) {
          const part = object(block);
          if (part?.type !== 'tool_result') continue;
          events.push({
            type: 'tool_result',
            id: String(part.tool_use_id ?? ''),
            content: resultText(part.content),
            is_error: part.is_error === true,
          });
        }
        return events;
      }
      case 'result': {
        this.sawResult = true;
        const usage = object(doc.usage) ?? {};
        const events: RunnerEvent[] = [
          {
            type: 'usage',
            model: this.model,
            input_tokens:
              count(usage.input_tokens) +
              count(usage.cache_read_input_tokens) +
              count(usage.cache_creation_input_tokens),
            output_tokens: count(usage.output_tokens),
          },
        ];
        if (doc.is_error === true || (typeof doc.subtype === 'string' && doc.subtype.startsWith('error'))) {
          const said =
            typeof doc.result === 'string' && doc.result ? doc.result : String(doc.subtype ?? 'error');
          events.push({ type: 'error', message: `the assistant program reported an error: ${said}` });
        }
        return events;
      }
      default:
        return [];
    }
  }

  get finished(): boolean {
    return this.sawResult;
  }
}
