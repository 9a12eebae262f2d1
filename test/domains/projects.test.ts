import t from 'tap';
import { createAgent, createSpace, testApp } from '../helpers/app.ts';
import { owned as post } from '../helpers/entities.ts';

t.test('owner manages projects', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const created = await ta.asOwner({
    method: 'POST',
    url: '/api/projects',
    payload: { space_id: home.id, name: ' NAS upgrade ' },
  });
  t.equal(created.statusCode, 201);
  const project = created.json();
  t.match(project, {
    space_id: home.id,
    name: 'NAS upgrade',
    status: 'active',
    research_status: 'idle',
    research_notes: '',
    research_started_at: null,
  });
  await post(ta, '/api/projects', { space_id: home.id, name: 'Backups', status: 'planned' });
  await post(ta, '/api/projects', { space_id: work.id, name: 'Audit' });

  const patched = await ta.asOwner({
    method: 'PATCH',
    url: `/api/projects/${project.id}`,
    payload: { status: 'paused', research_notes: 'check ZFS' },
  });
  t.match(patched.json(), { status: 'paused', research_notes: 'check ZFS' });
  const badStatus = await ta.asOwner({
    method: 'PATCH',
    url: `/api/projects/${project.id}`,
    payload: { status: 'sleeping' },
  });
  t.equal(badStatus.statusCode, 400);
  const moveSpace = await ta.asOwner({
    method: 'PATCH',
    url: `/api/projects/${project.id}`,
    payload: { space_id: work.id },
  });
  t.equal(moveSpace.statusCode, 400, 'a project stays in its space');

  const list = await ta.asOwner({ method: 'GET', url: `/api/projects?space_id=${home.id}` });
  t.same(
    list.json().items.map((p: { name: string }) => p.name),
    ['Backups', 'NAS upgrade'],
  );
  t.equal(list.json().total, 2);
  const planned = await ta.asOwner({ method: 'GET', url: '/api/projects?status=planned&limit=1' });
  t.same(
    { ...planned.json(), items: planned.json().items.map((p: { name: string }) => p.name) },
    { items: ['Backups'], total: 1, limit: 1, offset: 0 },
  );
  t.equal(
    (await ta.asOwner({ method: 'GET', url: `/api/projects/${project.id}` })).json().name,
    'NAS upgrade',
  );

  const research = await ta.asOwner({ method: 'POST', url: `/api/projects/${project.id}/research` });
  t.equal(research.statusCode, 200);
  t.equal(research.json().research_status, 'queued');
  t.ok(Date.parse(research.json().research_started_at) > 0, 'the start is stamped');
  t.equal(research.json().research_finished_at, null);

  t.equal((await ta.asOwner({ method: 'DELETE', url: `/api/projects/${project.id}` })).statusCode, 204);
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/projects/${project.id}` })).statusCode, 404);
  t.equal(
    (await ta.asOwner({ method: 'POST', url: `/api/projects/${project.id}/research` })).statusCode,
    404,
  );
});

t.test('project links: tasks and linked refs', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const project = await post(ta, '/api/projects', { space_id: home.id, name: 'NAS' });
  const task = await post(ta, '/api/tasks', { project_id: project.id, title: 'Buy disks' });
  const ref = await post(ta, '/api/refs', {
    space_id: home.id,
    source: 'web',
    external_id: 'zfs-guide',
    title: 'ZFS',
  });
  const other = await post(ta, '/api/refs', { space_id: work.id, source: 'web', external_id: 'elsewhere' });

  const linked = await ta.asOwner({
    method: 'POST',
    url: `/api/projects/${project.id}/refs`,
    payload: { ref_id: ref.id },
  });
  t.equal(linked.statusCode, 201);
  t.match(linked.json(), { project_id: project.id, ref_id: ref.id });
  const again = await ta.asOwner({
    method: 'POST',
    url: `/api/projects/${project.id}/refs`,
    payload: { ref_id: ref.id },
  });
  t.equal(again.statusCode, 409);
  const cross = await ta.asOwner({
    method: 'POST',
    url: `/api/projects/${project.id}/refs`,
    payload: { ref_id: other.id },
  });
  t.equal(cross.statusCode, 409);
  t.match(cross.json().message, /another space/);
  const missing = await ta.asOwner({
    method: 'POST',
    url: `/api/projects/${project.id}/refs`,
    payload: { ref_id: '00000000-0000-4000-8000-000000000000' },
  });
  t.equal(missing.statusCode, 404);

  const links = await ta.asOwner({ method: 'GET', url: `/api/projects/${project.id}/links` });
  t.equal(links.statusCode, 200);
  t.equal(links.json().project_id, project.id);
  t.same(
    links.json().tasks.map((x: { id: string }) => x.id),
    [task.id],
  );
  t.same(
    links.json().refs.map((x: { id: string; title: string }) => [x.id, x.title]),
    [[ref.id, 'ZFS']],
  );
  const refs = await ta.asOwner({ method: 'GET', url: `/api/projects/${project.id}/refs` });
  t.same(
    { ...refs.json(), items: refs.json().items.map((x: { id: string }) => x.id) },
    { items: [ref.id], total: 1, limit: 50, offset: 0 },
  );

  t.equal(
    (await ta.asOwner({ method: 'DELETE', url: `/api/projects/${project.id}/refs/${ref.id}` })).statusCode,
    204,
  );
  t.equal(
    (await ta.asOwner({ method: 'DELETE', url: `/api/projects/${project.id}/refs/${ref.id}` })).statusCode,
    404,
  );
  t.equal((await ta.asOwner({ method: 'GET', url: `/api/refs/${ref.id}` })).statusCode, 200, 'the ref stays');
  t.same((await ta.asOwner({ method: 'GET', url: `/api/projects/${project.id}/links` })).json().refs, []);
  t.equal(
    (await ta.asOwner({ method: 'GET', url: '/api/projects/00000000-0000-4000-8000-000000000000/links' }))
      .statusCode,
    404,
  );
});

t.test('agents and projects: scope on reads, tier on writes and links', async (t) => {
  const ta = await testApp(t);
  const home = await createSpace(ta, 'Home');
  const work = await createSpace(ta, 'Work');
  const homeProject = await post(ta, '/api/projects', { space_id: home.id, name: 'Home project' });
  const workProject = await post(ta, '/api/projects', { space_id: work.id, name: 'Work project' });
  const ref = await post(ta, '/api/refs', { space_id: home.id, source: 'web', external_id: 'r1' });
  const scopedOwner = await createAgent(ta, { tier: 'owner', space_id: home.id });
  const suggester = await createAgent(ta, { tier: 'suggest', space_id: home.id });
  const reader = await createAgent(ta, { tier: 'read' });

  const list = await ta.asAgent(scopedOwner.token, { method: 'GET', url: '/api/projects' });
  t.same(
    list.json().items.map((p: { name: string }) => p.name),
    ['Home project'],
  );
  t.equal(
    (await ta.asAgent(scopedOwner.token, { method: 'GET', url: `/api/projects/${workProject.id}/links` }))
      .statusCode,
    404,
  );
  t.equal(
    (await ta.asAgent(reader.token, { method: 'GET', url: '/api/projects' })).json().total,
    2,
    'an unscoped agent reads every space',
  );

  const task = await ta.asAgent(scopedOwner.token, {
    method: 'POST',
    url: '/api/tasks',
    payload: { project_id: homeProject.id, title: 'agent task' },
  });
  t.equal(task.statusCode, 201, 'the injected space agrees with the project');
  const foreignTask = await ta.asAgent(scopedOwner.token, {
    method: 'POST',
    url: '/api/tasks',
    payload: { project_id: workProject.id, title: 'x' },
  });
  t.equal(foreignTask.statusCode, 404, 'a project outside the scope is as missing as none');

  const research = await ta.asAgent(suggester.token, {
    method: 'POST',
    url: `/api/projects/${homeProject.id}/research`,
  });
  t.equal(research.statusCode, 202, 'a suggest-tier write becomes a pending change');
  t.equal(research.json().status, 'pending');
  t.equal(
    (await ta.asAgent(scopedOwner.token, { method: 'POST', url: `/api/projects/${workProject.id}/research` }))
      .statusCode,
    404,
  );

  const suggestLink = await ta.asAgent(suggester.token, {
    method: 'POST',
    url: `/api/projects/${homeProject.id}/refs`,
    payload: { ref_id: ref.id },
  });
  t.equal(suggestLink.statusCode, 403);
  const ownerLink = await ta.asAgent(scopedOwner.token, {
    method: 'POST',
    url: `/api/projects/${homeProject.id}/refs`,
    payload: { ref_id: ref.id },
  });
  t.equal(ownerLink.statusCode, 201);
  const readerUnlink = await ta.asAgent(reader.token, {
    method: 'DELETE',
    url: `/api/projects/${homeProject.id}/refs/${ref.id}`,
  });
  t.equal(readerUnlink.statusCode, 403);
});
