// The assistant: a conversation per space (its companion, at /assistant/space/:id) and a global one (/assistant),
// streamed as the agent answers; each draft it makes appears as a card to approve or reject in place. A message
// found by search opens here with its conversation, brought into view (#message-<id>).
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok } from '../../client.ts';
import { DraftCard } from '../../components/DraftCard.tsx';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { markdown } from '../../lib.ts';
import { readEvents } from '../../sse.ts';
import { failed, toast } from '../../state.ts';
import type { PendingChange } from '../../types.ts';

interface Entry {
  id: string;
  role: 'user' | 'assistant' | 'tool' | 'system';
  text?: string;
  change?: PendingChange;
  /** A downstream tool call waiting for the owner: decided in Approvals, where its server, tool and arguments show. */
  action?: { id: string; summary: string };
}

/** The conversation an address names: a space's companion, or the global assistant. */
function conversationOf(current: string): string {
  const [, , kind, id] = current.split('/');
  return kind === 'space' && id ? id : 'global';
}

export default function Assistant() {
  const { path, route } = useLocation();
  const where = conversationOf(path);
  const focused = location.hash.startsWith('#message-') ? location.hash.slice('#message-'.length) : null;
  const entries = useSignal<Entry[]>([]);
  const draft = useSignal('');
  const busy = useSignal(false);
  const log = useRef<HTMLDivElement>(null);

  const spaces = useData(() => ok(api.GET('/api/spaces', { params: { query: { limit: 100 } } })));
  const history = useData(
    () =>
      where === 'global'
        ? ok(api.GET('/api/assistant/history', { params: { query: { limit: 50 } } }))
        : ok(
            api.GET('/api/spaces/{id}/companion/history', {
              params: { path: { id: where }, query: { limit: 50 } },
            }),
          ),
    [where],
  );
  const agentName = history.data?.agent.display_name ?? 'Assistant';
  useEffect(() => {
    entries.value = (history.data?.items ?? [])
      .filter((m) => m.role === 'user' || m.role === 'assistant')
      .map((m) => ({ id: m.id, role: m.role, text: m.content }));
  }, [history.data]);
  useEffect(() => {
    const message = focused ? document.getElementById(`message-${focused}`) : null;
    if (message) message.scrollIntoView({ block: 'center' });
    else log.current?.scrollTo({ top: log.current.scrollHeight });
  }, [entries.value]);

  async function send(event: Event) {
    event.preventDefault();
    const message = draft.value.trim();
    if (!message) return;
    draft.value = '';
    busy.value = true;
    entries.value = [...entries.value, { id: crypto.randomUUID(), role: 'user', text: message }];
    const url = where === 'global' ? '/api/assistant/turn' : `/api/spaces/${where}/companion/turn`;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ message, view: { screen: 'assistant' } }),
      });
      if (!response.ok) {
        const body = (await response.json().catch(() => ({}))) as { message?: string };
        throw new Error(body.message ?? `the assistant answered ${response.status}`);
      }
      await readEvents(response, ({ event: name, data }) => {
        const payload = data as Record<string, unknown>;
        if (name === 'message' && typeof payload.text === 'string') {
          entries.value = [
            ...entries.value,
            { id: crypto.randomUUID(), role: 'assistant', text: payload.text },
          ];
        } else if (name === 'draft' && typeof payload.pending_change_id === 'string') {
          ok(
            api.GET('/api/pending-changes/{id}', { params: { path: { id: payload.pending_change_id } } }),
          ).then((change) => {
            entries.value = [...entries.value, { id: change.id, role: 'tool', change }];
          }, failed);
        } else if (name === 'draft' && typeof payload.pending_action_id === 'string') {
          const action = { id: payload.pending_action_id, summary: String(payload.summary ?? '') };
          entries.value = [...entries.value, { id: action.id, role: 'tool', action }];
        } else if (name === 'error') {
          toast(String(payload.message ?? 'the assistant failed'), 'error');
        }
      });
    } catch (error) {
      failed(error);
    } finally {
      busy.value = false;
    }
  }

  return (
    <div class="assistant">
      <div class="page-head">
        <h1>Assistant</h1>
        <label class="inline">
          Conversation
          <select
            onChange={(e) => {
              const value = e.currentTarget.value;
              route(value === 'global' ? '/assistant' : `/assistant/space/${value}`);
            }}
          >
            {/* Selected per option: the spaces arrive after the select is drawn. */}
            <option value="global" selected={where === 'global'}>
              Global assistant
            </option>
            {(spaces.data?.items ?? []).map((space) => (
              <option key={space.id} value={space.id} selected={space.id === where}>
                {space.name} companion
              </option>
            ))}
          </select>
        </label>
      </div>
      <section class="panel chat" aria-label={`Conversation with ${agentName}`}>
        <div class="chat-log" ref={log}>
          {entries.value.length === 0 && <p class="muted empty">Ask {agentName} anything about your hub.</p>}
          {entries.value.map((entry) =>
            entry.action ? (
              <article
                key={entry.id}
                class="draft"
                aria-label={`Waiting for approval: ${entry.action.summary}`}
              >
                <strong>Waiting for your approval:</strong> {entry.action.summary}{' '}
                <a href="/approvals">Open Approvals</a>
              </article>
            ) : entry.change ? (
              <DraftCard
                key={entry.id}
                change={entry.change}
                agentName={agentName}
                onDecided={() => undefined}
              />
            ) : (
              <div
                key={entry.id}
                id={`message-${entry.id}`}
                class={`bubble ${entry.role}${entry.id === focused ? ' focused' : ''}`}
              >
                <div class="markdown" dangerouslySetInnerHTML={{ __html: markdown(entry.text ?? '') }} />
              </div>
            ),
          )}
          {busy.value && (
            <div class="bubble assistant typing" role="status" aria-label="The assistant is answering" />
          )}
        </div>
        <form class="chat-input" onSubmit={send}>
          <input
            aria-label="Message"
            placeholder={`Message ${agentName}…`}
            value={draft.value}
            onInput={(e) => (draft.value = e.currentTarget.value)}
            disabled={busy.value}
          />
          <button type="submit" class="primary" disabled={busy.value || draft.value.trim() === ''}>
            <Icon name="play" size={14} /> Send
          </button>
        </form>
      </section>
    </div>
  );
}
