// Tasks: they live in their project and its space.
import t from 'tap';
import { createSpace, testApp } from '../helpers/app.ts';
import { owned as post } from '../helpers/entities.ts';

t.test('tasks live in their project and its space', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const nas = await post(ta, '/api/projects', { space_id: home.id, name: 'NAS' });
  const net = await post(ta, '/api/projects', { space_id: home.id, name: 'Network' });
  const audit = await post(ta, '/api/projects', { space_id: work.id, name: 'Audit' });

  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/tasks',
    payload: { project_id: nas.id, title: 'Buy disks', due_at: '2030-01-02T03:04:05.000Z' },
  });
  t.equal(created.statusCode, 201);
  const task = created.json();
  t.match(task, {
    project_id: nas.id,
    space_id: home.id,
    status: 'todo',
    due_at: '2030-01-02T03:04:05.000Z',
  });
  await post(ta, '/api/tasks', { project_id: nas.id, title: 'Undated', space_id: home.id });
  await post(ta, '/api/tasks', {
    project_id: nas.id,
    title: 'Soon',
    due_at: '2029-01-01T00:00:00Z',
    status: 'doing',
  });
  await post(ta, '/api/tasks', { project_id: audit.id, title: 'Audit firewall' });

  const mismatch = await ta.asOwner({
    method: 'POST',
    url: '/api/tasks',
    payload: { project_id: nas.id, space_id: work.id, title: 'x' },
  });
  t.equal(mismatch.statusCode, 409, "a task's space must be its project's");
  const noProject = await ta.asOwner({
    method: 'POST',
    url: '/api/tasks',
    payload: { project_id: '00000000-0000-4000-8000-000000000000', title: 'x' },
  });
  t.equal(noProject.statusCode, 404);

  const byProject = await ta.asOwner({ method: 'GET', url: `/api/tasks?project_id=${nas.id}` });
  t.same(
    byProject.json().items.map((x: { title: string }) => x.title),
    ['Soon', 'Buy disks', 'Undated'],
    'due first, undated last',
  );
  const bySpace = await ta.asOwner({ method: 'GET', url: `/api/tasks?space_id=${work.id}` });
  t.equal(bySpace.json().total, 1);
  const doing = await ta.asOwner({ method: 'GET', url: '/api/tasks?status=doing' });
  t.same(
    doing.json().items.map((x: { title: string }) => x.title),
    ['Soon'],
  );

  const moved = await ta.asOwner({
    method: 'PATCH',
    url: `/api/tasks/${task.id}`,
    payload: { project_id: net.id, status: 'done', due_at: null },
  });
  t.equal(moved.statusCode, 200);
  t.match(moved.json(), { project_id: net.id, status: 'done', due_at: null });
  const crossMove = await ta.asOwner({
    method: 'PATCH',
    url: `/api/tasks/${task.id}`,
    payload: { project_id: audit.id },
  });
  t.equal(crossMove.statusCode, 409);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/tasks/${task.id}` })).json().project_id, net.id);

  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/tasks/${task.id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/tasks/${task.id}` })).statusCode, 404);

  // Deleting a project takes its tasks along.
  await ta.asOwner({ method: 'DELETE', url: `/api/projects/${nas.id}` });
  const [left] = await ta.sql`select count(*)::int as n from tasks where project_id = ${nas.id}`;
  t.equal(left.n, 0);
});
