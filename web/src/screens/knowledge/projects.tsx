// A space's projects: the list, a new project, and the picked one's tasks (status changed in place, a new task)
// and linked references. A project or task opened by its address is picked, and the task brought into view.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ok } from '../../client.ts';
import { AddRow } from '../../components/AddRow.tsx';
import { Icon } from '../../components/Icon.tsx';
import { useData } from '../../data.ts';
import { ago } from '../../lib.ts';
import { failed } from '../../state.ts';
import type { Space, Task } from '../../types.ts';
import type { Focus } from './address.ts';

const taskStates: Task['status'][] = ['todo', 'doing', 'done', 'cancelled'];

export function Projects({ space, focus }: { space: Space; focus: Focus }) {
  const chosen = useSignal<string | null>(null);
  useEffect(() => {
    chosen.value = null;
  }, [space.id, focus.project]);
  const projects = useData(
    () => ok(api.GET('/api/projects', { params: { query: { space_id: space.id, limit: 100 } } })),
    [space.id],
  );
  const list = projects.data?.items ?? [];
  // The project picked here, else the one the address names, else the first.
  const selected = chosen.value ?? focus.project ?? list[0]?.id ?? null;
  const links = useData(
    () =>
      selected === null
        ? Promise.resolve(null)
        : ok(api.GET('/api/projects/{id}/links', { params: { path: { id: selected } } })),
    [selected],
  );
  useEffect(() => {
    // A task opened by its address is brought into view once its project's tasks are shown.
    if (focus.task) document.getElementById(`task-${focus.task}`)?.scrollIntoView({ block: 'center' });
  }, [focus.task, links.data]);
  async function create(name: string) {
    const project = await ok(api.POST('/api/projects', { body: { name, space_id: space.id } })).catch(failed);
    if (!project || !('id' in project)) return false;
    chosen.value = project.id;
    await projects.reload();
    return true;
  }
  async function addTask(title: string) {
    if (!selected) return false;
    await ok(api.POST('/api/tasks', { body: { project_id: selected, title } })).catch(failed);
    await links.reload();
    return true;
  }
  async function setStatus(task: Task, status: Task['status']) {
    await ok(api.PATCH('/api/tasks/{id}', { params: { path: { id: task.id } }, body: { status } })).catch(
      failed,
    );
    await links.reload();
  }
  const project = list.find((p) => p.id === selected);
  return (
    <div class="projects">
      <div class="panel">
        <div class="panel-head">
          <h2>Projects</h2>
        </div>
        <ul class="list">
          {list.map((p) => (
            <li key={p.id}>
              <button type="button" aria-pressed={p.id === selected} onClick={() => (chosen.value = p.id)}>
                {p.name}
                <span
                  class={`badge ${p.status === 'active' ? 'success' : p.status === 'done' ? 'info' : ''}`}
                >
                  {p.status}
                </span>
              </button>
            </li>
          ))}
        </ul>
        <AddRow label="New project" onAdd={create} />
      </div>
      {project && (
        <div class="panel">
          <div class="panel-head">
            <h2>{project.name}</h2>
            <span class="muted">research: {project.research_status}</span>
          </div>
          <h3>Tasks</h3>
          <table>
            <tbody>
              {links.data?.tasks.map((task) => (
                <tr
                  key={task.id}
                  id={`task-${task.id}`}
                  class={task.id === focus.task ? 'focused' : ''}
                  aria-current={task.id === focus.task ? 'true' : undefined}
                >
                  <td class={task.status === 'done' ? 'done' : ''}>{task.title}</td>
                  <td>{task.due_at ? `due ${ago(task.due_at)}` : ''}</td>
                  <td>
                    <select
                      aria-label={`Status of ${task.title}`}
                      value={task.status}
                      onChange={(e) => setStatus(task, e.currentTarget.value as Task['status'])}
                    >
                      {taskStates.map((s) => (
                        <option key={s}>{s}</option>
                      ))}
                    </select>
                  </td>
                </tr>
              ))}
              {links.data?.tasks.length === 0 && (
                <tr>
                  <td class="muted">No tasks yet.</td>
                </tr>
              )}
            </tbody>
          </table>
          <AddRow label="New task" onAdd={addTask} />
          <h3 class="section">Linked references</h3>
          <ul class="list refs">
            {links.data?.refs.map((ref) => (
              <li key={ref.id}>
                <Icon name="link" size={14} />
                {ref.url ? (
                  <a href={ref.url} rel="noreferrer noopener" target="_blank">
                    {ref.title || ref.url}
                  </a>
                ) : (
                  ref.title
                )}
                <span class="muted">{ref.source}</span>
              </li>
            ))}
            {links.data?.refs.length === 0 && <li class="muted">No linked references.</li>}
          </ul>
        </div>
      )}
    </div>
  );
}
