// The runners a turn can use (ASSISTANT_RUNNER):
// - command: ASSISTANT_COMMAND (e.g. `claude -p --output-format stream-json --verbose --mcp-config hub.json`), no
//   shell, the prompt on standard input, an environment of PATH, HOME, LANG, TZ, HUB_MCP_URL and HUB_AGENT_TOKEN only;
//   its standard output is read as stream-json. Its process group is killed when the client goes or the turn times out.
// - openai: an OpenAI-compatible chat completions endpoint (Ollama, llama.cpp, vLLM, LM Studio, OpenAI), streamed,
//   with the hub's tools offered as functions and run as the turn's agent; rounds repeat until a reply without tool
//   calls (or the round limit).
import { createInterface } from 'node:readline';
import type { AssistantRunnerConfig } from '../../config/assistant.ts';
import { childEnvironment, outputTail, splitCommand, startCommand, startFailure } from '../../lib/command.ts';
import { onFirstUse } from '../../lib/lazy.ts';
import { upstreamFetchDispatcher } from '../../lib/safe-fetch.ts';
import type { RunnerEvent } from './events.ts';
import { StreamJsonReader } from './stream-json.ts';

export interface ToolDescription {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
}

export interface ToolOutcome {
  content: string;
  structured?: unknown;
  is_error: boolean;
}

export interface RunnerInput {
  prompt: string;
  /** For chat runners: the system text and the conversation so far, then the message. */
  system: string;
  history: { role: 'user' | 'assistant'; content: string }[];
  message: string;
  mcpUrl: string;
  token: string;
  signal: AbortSignal;
  /** The hub's tools as the turn's agent (the same layer as /api/mcp). */
  tools: { list(): Promise<ToolDescription[]>; call(name: string, args: unknown): Promise<ToolOutcome> };
}

export type Runner = (input: RunnerInput) => AsyncGenerator<RunnerEvent>;

/** Lines of a stream as they come, ending when it ends. */
async function* lines(stream: NodeJS.ReadableStream): AsyncGenerator<string> {
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  for await (const line of reader) yield line;
}

export function commandRunner(config: Extract<AssistantRunnerConfig, { runner: 'command' }>): Runner {
  return async function* run(input) {
    const argv = splitCommand(config.command);
    let started: ReturnType<typeof startCommand>;
    try {
      started = startCommand(argv, {
        stdin: input.prompt,
        env: childEnvironment({ HUB_MCP_URL: input.mcpUrl, HUB_AGENT_TOKEN: input.token }),
      });
    } catch (error) {
      yield { type: 'error', message: (error as Error).message };
      return;
    }
    const { child, kill } = started;
    let spawnError: Error | null = null;
    child.on('error', (error) => {
      spawnError = error;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 16_384) stderr += chunk.toString('utf8');
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, config.timeoutMs);
    const onAbort = () => kill();
    input.signal.addEventListener('abort', onAbort, { once: true });
    const reader = new StreamJsonReader();
    try {
      for await (const line of lines(child.stdout)) {
        for (const event of reader.line(line)) yield event;
      }
      const code = await exited;
      if (spawnError) {
        yield { type: 'error', message: startFailure(argv[0] ?? '', spawnError).message };
      } else if (timedOut) {
        yield {
          type: 'error',
          message: `the assistant took longer than ${config.timeoutMs} ms and was stopped`,
        };
      } else if (code !== 0 && !input.signal.aborted) {
        const said = outputTail(stderr);
        yield {
          type: 'error',
          message: `the assistant program exited with status ${code}${said ? `: ${said}` : ''}`,
        };
      }
    } finally {
      clearTimeout(timer);
      input.signal.removeEventListener('abort', onAbort);
      // Whatever ended the turn, nothing the program started outlives it.
      kill();
    }
  };
}

type Json = Record<string, unknown>;

// The model endpoint is the owner's (ASSISTANT_URL): a LAN server is fine, cloud metadata never.
const modelDispatcher = onFirstUse(() => upstreamFetchDispatcher());

interface AssembledCall {
  id: string;
  name: string;
  arguments: string;
}

/** Server-sent `data:` payloads of a streamed chat completion, up to `[DONE]`. */
async function* dataLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let buffer = '';
  for await (const chunk of body) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf('\n');
    while (newline >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      if (line.startsWith('data:')) {
        const data = line.slice(5).trim();
        if (data === '[DONE]') return;
        if (data) yield data;
      }
      newline = buffer.indexOf('\n');
    }
  }
}

function argumentsText(value: unknown): string {
  if (typeof value === 'string') return value;
  return value === undefined ? '' : JSON.stringify(value);
}

export function openaiRunner(config: Extract<AssistantRunnerConfig, { runner: 'openai' }>): Runner {
  return async function* run(input) {
    const tools = (await input.tools.list()).map((tool) => ({
      type: 'function' as const,
      function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
    }));
    const messages: Json[] = [
      { role: 'system', content: input.system },
      ...input.history,
      { role: 'user', content: input.message },
    ];
    let model: string | null = config.model;
    let inputTokens = 0;
    let outputTokens = 0;
    const deadline = AbortSignal.any([input.signal, AbortSignal.timeout(config.timeoutMs)]);
    for (let round = 1; round <= config.maxRounds; round++) {
      let response: Response;
      try {
        response = await fetch(`${config.url}/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'text/event-stream',
            ...(config.apiKey ? { authorization: `Bearer ${config.apiKey}` } : {}),
          },
          dispatcher: modelDispatcher(),
          body: JSON.stringify({
            model: config.model,
            messages,
            stream: true,
            stream_options: { include_usage: true },
            ...(tools.length > 0 ? { tools } : {}),
          }),
          signal: deadline,
        });
      } catch (error) {
        if (input.signal.aborted) return;
        const name = (error as Error).name;
        yield {
          type: 'error',
          message:
            name === 'TimeoutError'
              ? `the model took longer than ${config.timeoutMs} ms`
              : `the model endpoint could not be reached: ${(error as { cause?: Error }).cause?.message ?? (error as Error).message}`,
        };
        return;
      }
      if (!response.ok || !response.body) {
        const text = await response.text().catch(() => '');
        yield {
          type: 'error',
          message: `the model endpoint answered ${response.status}: ${text.slice(0, 300)}`,
        };
        return;
      }
      const calls = new Map<number, AssembledCall>();
      let text = '';
      // The usage chunk comes last in a round (choices: []); a server that repeats it is counted once.
      let roundUsage = { input: 0, output: 0 };
      try {
        for await (const data of dataLines(response.body)) {
          let chunk: Json;
          try {
            chunk = JSON.parse(data) as Json;
          } catch {
            continue;
          }
          if (typeof chunk.model === 'string') model = chunk.model;
          const usage = chunk.usage as Json | null | undefined;
          if (usage && typeof usage === 'object') {
            roundUsage = {
              input: Number(usage.prompt_tokens) || 0,
              output: Number(usage.completion_tokens) || 0,
            };
          }
          const choice = (Array.isArray(chunk.choices) ? chunk.choices[0] : undefined) as Json | undefined;
          const delta = (choice?.delta ?? {}) as Json;
          if (typeof delta.content === 'string' && delta.content !== '') {
            text += delta.content;
            yield { type: 'message', text: delta.content };
          }
          for (const [position, raw] of (Array.isArray(delta.tool_calls) ? delta.tool_calls : []).entries()) {
            const part = raw as Json;
            const fn = (part.function ?? {}) as Json;
            // Streamed calls name their index (id and name once, arguments in pieces); whole calls may not.
            const index = typeof part.index === 'number' ? part.index : position;
            const call = calls.get(index) ?? { id: '', name: '', arguments: '' };
            if (typeof part.id === 'string' && part.id) call.id = part.id;
            if (typeof fn.name === 'string' && fn.name) call.name = fn.name;
            call.arguments += argumentsText(fn.arguments);
            calls.set(index, call);
          }
        }
      } catch (error) {
        if (input.signal.aborted) return;
        yield { type: 'error', message: `the model stream broke: ${(error as Error).message}` };
        return;
      }
      inputTokens += roundUsage.input;
      outputTokens += roundUsage.output;
      if (calls.size === 0) {
        yield { type: 'usage', model, input_tokens: inputTokens, output_tokens: outputTokens };
        return;
      }
      const ordered = [...calls.entries()]
        .sort(([a], [b]) => a - b)
        .map(([, call], i) => ({
          ...call,
          id: call.id || `call_${round}_${i}`,
        }));
      messages.push({
        role: 'assistant',
        content: text || null,
        tool_calls: ordered.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments || '{}' },
        })),
      });
      for (const call of ordered) {
        let args: unknown = {};
        let outcome: ToolOutcome;
        try {
          args = call.arguments ? JSON.parse(call.arguments) : {};
          yield { type: 'tool_call', id: call.id, name: call.name, arguments: args };
          outcome = await input.tools.call(call.name, args);
        } catch (error) {
          yield { type: 'tool_call', id: call.id, name: call.name, arguments: call.arguments };
          outcome = { content: `the arguments are not JSON: ${(error as Error).message}`, is_error: true };
        }
        yield { type: 'tool_result', id: call.id, ...outcome };
        messages.push({ role: 'tool', tool_call_id: call.id, content: outcome.content });
      }
    }
    yield { type: 'usage', model, input_tokens: inputTokens, output_tokens: outputTokens };
    yield {
      type: 'error',
      message: `the assistant used its ${config.maxRounds} rounds of tool calls without answering`,
    };
  };
}

export function runnerFor(config: AssistantRunnerConfig | null): Runner | null {
  if (!config) return null;
  return config.runner === 'command' ? commandRunner(config) : openaiRunner(config);
}
