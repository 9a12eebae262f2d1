// What a runner reports during a turn, whichever runner it is; the turn turns these into SSE events (README,
// "Assistant").

export type RunnerEvent =
  | { type: 'message'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: unknown }
  | { type: 'tool_result'; id: string; content: string; is_error: boolean; structured?: unknown }
  | { type: 'usage'; model: string | null; input_tokens: number; output_tokens: number }
  | { type: 'error'; message: string };

/** An id named `field` carried by a tool result: the structured content first, then JSON in the text. */
function pendingIdOf(
  result: { content: string; structured?: unknown },
  field: 'pending_change_id' | 'pending_action_id',
): string | null {
  const fromObject = (value: unknown): string | null => {
    if (value === null || typeof value !== 'object') return null;
    const id = (value as Record<string, unknown>)[field];
    return typeof id === 'string' && /^[0-9a-f-]{36}$/i.test(id) ? id : null;
  };
  const structured = fromObject(result.structured);
  if (structured) return structured;
  try {
    return fromObject(JSON.parse(result.content));
  } catch {
    return null;
  }
}

/** A pending change id carried by a tool result (a hub tool's write waiting for approval). */
export function pendingChangeIdOf(result: { content: string; structured?: unknown }): string | null {
  return pendingIdOf(result, 'pending_change_id');
}

/** A pending action id carried by a tool result (a downstream MCP call waiting for approval). */
export function pendingActionIdOf(result: { content: string; structured?: unknown }): string | null {
  return pendingIdOf(result, 'pending_action_id');
}
