// Settings → Routines: an agent's prompt run on a schedule. Each routine with its agent, schedule and space, enabled
// or not; one form adds a routine or edits the one picked; a routine run now or deleted; its last runs with their
// output, state and error.
import { useSignal } from '@preact/signals';
import { api, ok } from '../../client.ts';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { scheduleLabel } from '../../schedule.ts';
import { failed, toast } from '../../state.ts';
import type { Answer } from '../../types.ts';

type Routine = Answer<'/api/routines'>['items'][number];
const blank = { name: '', agent_id: '', schedule: '0 7 * * 1', prompt: '', space_id: '', enabled: true };

function Runs({ routine }: { routine: Routine }) {
  const runs = useData(() =>
    ok(api.GET('/api/routines/{id}/runs', { params: { path: { id: routine.id }, query: { limit: 5 } } })),
  );
  return (
    <section class="stack" aria-label={`Runs of ${routine.name}`}>
      <button type="button" class="ghost small" onClick={() => runs.reload()}>
        Refresh runs
      </button>
      {(runs.data?.items ?? []).map((run) => (
        <div key={run.id} class="routine-run">
          <span class="badge">{run.state}</span>{' '}
          <span class="muted small">
            {run.trigger}, {ago(run.started_at)}
          </span>
          {run.output && <pre class="small">{run.output}</pre>}
          {run.error && <div class="small">{run.error}</div>}
        </div>
      ))}
      {runs.data?.items.length === 0 && <span class="muted small">No runs yet.</span>}
    </section>
  );
}

export function Routines() {
  const routines = useData(() => ok(api.GET('/api/routines', { params: { query: { limit: 100 } } })));
  const agents = useData(() => ok(api.GET('/api/agents', { params: { query: { limit: 100 } } })));
  const spaces = useData(() => ok(api.GET('/api/spaces')));
  const form = useSignal({ ...blank });
  const editing = useSignal<string | null>(null);
  const shown = useSignal<string | null>(null);
  const set = (patch: Partial<typeof blank>) => (form.value = { ...form.value, ...patch });
  const agentName = (id: string) => agents.data?.items.find((agent) => agent.id === id)?.name ?? id;

  async function save(event: Event) {
    event.preventDefault();
    const body = { ...form.value, space_id: form.value.space_id || null };
    const saved = editing.value
      ? await ok(api.PATCH('/api/routines/{id}', { params: { path: { id: editing.value } }, body })).catch(
          failed,
        )
      : await ok(api.POST('/api/routines', { body })).catch(failed);
    if (!saved) return;
    toast(editing.value ? 'Routine saved' : 'Routine added', 'success');
    form.value = { ...blank };
    editing.value = null;
    await routines.reload();
  }
  function edit(routine: Routine) {
    editing.value = routine.id;
    const { name, agent_id, schedule, prompt, space_id, enabled } = routine;
    form.value = { name, agent_id, schedule, prompt, space_id: space_id ?? '', enabled };
  }
  async function run(routine: Routine) {
    const queued = await ok(
      api.POST('/api/routines/{id}/run', { params: { path: { id: routine.id } } }),
    ).catch(failed);
    if (queued) toast(`${routine.name} queued`, 'success');
    shown.value = routine.id;
  }
  async function remove(routine: Routine) {
    await ok(api.DELETE('/api/routines/{id}', { params: { path: { id: routine.id } } })).catch(failed);
    await routines.reload();
  }

  return (
    <section class="panel" aria-label="Routines">
      <div class="panel-head">
        <h2>Routines</h2>
      </div>
      <p class="muted small">
        A routine runs its agent’s prompt on a schedule, with the timeline since its last run as its view. Its
        writes follow the agent’s tier: a suggest-tier agent’s pages wait for approval.
      </p>
      {(routines.data?.items ?? []).map((routine) => (
        <fieldset key={routine.id} aria-label={routine.name}>
          <legend>
            <strong>{routine.name}</strong> <span class="muted small">{scheduleLabel(routine.schedule)}</span>{' '}
            <span class="badge">{routine.enabled ? 'enabled' : 'disabled'}</span>
          </legend>
          <div class="muted small">
            {agentName(routine.agent_id)}, last run {routine.last_run_at ? ago(routine.last_run_at) : 'never'}
          </div>
          <div class="row">
            <button type="button" class="small" onClick={() => run(routine)}>
              Run {routine.name} now
            </button>
            <button type="button" class="ghost small" onClick={() => edit(routine)}>
              Edit {routine.name}
            </button>
            <button
              type="button"
              class="ghost small"
              onClick={() => (shown.value = shown.value === routine.id ? null : routine.id)}
            >
              Runs of {routine.name}
            </button>
            <button type="button" class="ghost small" onClick={() => remove(routine)}>
              Delete {routine.name}
            </button>
          </div>
          {shown.value === routine.id && <Runs routine={routine} />}
        </fieldset>
      ))}
      <form class="stack section-gap" onSubmit={save} aria-label="Routine">
        <label>
          Name
          <input value={form.value.name} required onInput={(e) => set({ name: e.currentTarget.value })} />
        </label>
        <label>
          Agent
          <select
            value={form.value.agent_id}
            required
            onChange={(e) => set({ agent_id: e.currentTarget.value })}
          >
            <option value="">Choose an agent</option>
            {(agents.data?.items ?? []).map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name} ({agent.tier})
              </option>
            ))}
          </select>
        </label>
        <label>
          Schedule
          <input
            value={form.value.schedule}
            required
            onInput={(e) => set({ schedule: e.currentTarget.value })}
          />
        </label>
        <label>
          Prompt
          <textarea
            value={form.value.prompt}
            required
            onInput={(e) => set({ prompt: e.currentTarget.value })}
          />
        </label>
        <label>
          Space
          <select value={form.value.space_id} onChange={(e) => set({ space_id: e.currentTarget.value })}>
            <option value="">Every space</option>
            {(spaces.data?.items ?? []).map((space) => (
              <option key={space.id} value={space.id}>
                {space.name}
              </option>
            ))}
          </select>
        </label>
        <label class="row">
          <input
            type="checkbox"
            checked={form.value.enabled}
            onChange={(e) => set({ enabled: e.currentTarget.checked })}
          />
          Enabled
        </label>
        <button type="submit" class="primary">
          {editing.value ? 'Save routine' : 'Add routine'}
        </button>
      </form>
    </section>
  );
}
