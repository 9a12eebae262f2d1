// The audit log: approvals, rejections and owner-tier agents' direct writes, read by the owner with filters.
import t from 'tap';
import { actorOf } from '../../domains/audit/store.ts';
import { createAgent, createSpace, testApp } from '../helpers/app.ts';

t.test('actors are named by who acted', async (t) => {
  t.equal(actorOf({ kind: 'owner', via: 'token' }), 'owner');
  t.equal(actorOf({ kind: 'owner', via: 'access', email: 'me@example.org' }), 'owner:access:me@example.org');
  t.equal(
    actorOf({
      kind: 'agent',
      agentId: '6f1c3c2e-8d0e-4c65-9d65-0a8a3f0f2b11',
      name: 'x',
      tier: 'owner',
      spaceId: null,
      tokenId: '0b9f7c43-5f57-4b0f-9c4f-5b8f1c7b2a10',
      conversationId: null,
    }),
    '6f1c3c2e-8d0e-4c65-9d65-0a8a3f0f2b11',
  );
});

t.test(
  'decisions and direct agent writes are recorded; the owner reads them filtered and paginated',
  async (t) => {
    const ta = await testApp(t);
    const home = await createSpace(ta, 'Home');
    const writer = await createAgent(ta, { tier: 'owner', space_id: home.id });
    const suggester = await createAgent(ta, { tier: 'suggest', space_id: home.id });

    // The owner's own writes are not audited; the owner-tier agent's are, failed ones aside.
    const ownPage = await ta.asOwner({
      method: 'POST',
      url: '/api/pages',
      payload: { space_id: home.id, title: 'o' },
    });
    t.equal(ownPage.statusCode, 201);
    const direct = await ta.asAgent(writer.token, {
      method: 'POST',
      url: '/api/pages',
      payload: { title: 'Direct' },
    });
    t.equal(direct.statusCode, 201);
    const pageId = direct.json().id;
    const edit = await ta.asAgent(writer.token, {
      method: 'PATCH',
      url: `/api/pages/${pageId}`,
      payload: { title: 'Direct, edited' },
    });
    t.equal(edit.statusCode, 200);
    const missing = await ta.asAgent(writer.token, {
      method: 'PATCH',
      url: '/api/pages/00000000-0000-4000-8000-000000000000',
      payload: { title: 'x' },
    });
    t.equal(missing.statusCode, 404);
    t.equal(
      (await ta.asAgent(writer.token, { method: 'DELETE', url: `/api/pages/${pageId}` })).statusCode,
      204,
    );

    const propose = async (title: string) => {
      const response = await ta.asAgent(suggester.token, {
        method: 'POST',
        url: '/api/projects',
        payload: { name: title },
      });
      return response.json().pending_change_id as string;
    };
    const approvedId = await propose('Approved');
    const approved = await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${approvedId}/approve` });
    const projectId = approved.json().result_entity_id;
    const rejectedId = await propose('Rejected');
    await ta.asOwner({
      method: 'POST',
      url: `/api/pending-changes/${rejectedId}/reject`,
      payload: { reason: 'not now' },
    });
    const failingId = await propose('Failing');
    await ta.sql`update pending_changes set payload = ${ta.sql.json({ name: 'Failing', space_id: 'nowhere' })} where id = ${failingId}`;
    const failed = await ta.asOwner({ method: 'POST', url: `/api/pending-changes/${failingId}/approve` });
    t.equal(failed.statusCode, 400, 'the stored payload lost its space');

    const audit = async (query = '') => {
      const response = await ta.asOwner({ method: 'GET', url: `/api/audit${query}` });
      t.equal(response.statusCode, 200, query || 'unfiltered');
      return response.json();
    };
    const all = await audit();
    t.equal(all.total, 6);
    t.same(
      all.items.map((entry: { action: string; outcome: string }) => `${entry.action}:${entry.outcome}`),
      [
        'approve:failed',
        'reject:rejected',
        'approve:applied',
        'apply_direct:applied',
        'apply_direct:applied',
        'apply_direct:applied',
      ],
      'newest first',
    );
    const [failure, rejection, approval, deletion, update, creation] = all.items;
    t.match(creation, {
      actor: writer.id,
      action: 'apply_direct',
      pending_change_id: null,
      entity_type: 'page',
      entity_id: pageId,
      outcome: 'applied',
      detail: { entity_action: 'create', space_id: home.id, created: true },
    });
    t.match(creation.created_at, /^\d{4}-\d\d-\d\dT/);
    t.match(update, { detail: { entity_action: 'update' }, entity_id: pageId });
    t.match(deletion, { detail: { entity_action: 'delete' }, entity_id: pageId });
    t.match(approval, {
      actor: 'owner',
      action: 'approve',
      pending_change_id: approvedId,
      entity_type: 'project',
      entity_id: projectId,
      outcome: 'applied',
      detail: { entity_action: 'create', agent_id: suggester.id, space_id: home.id, created: true },
    });
    t.match(rejection, {
      actor: 'owner',
      action: 'reject',
      pending_change_id: rejectedId,
      entity_type: 'project',
      entity_id: null,
      outcome: 'rejected',
      detail: { reason: 'not now', agent_id: suggester.id },
    });
    t.match(failure, {
      action: 'approve',
      pending_change_id: failingId,
      outcome: 'failed',
      detail: { status_code: 400, error: /space_id/ },
    });

    const ids = (page: { items: { id: string }[] }) => page.items.map((entry) => entry.id);
    t.same(ids(await audit('?action=apply_direct')), [deletion.id, update.id, creation.id]);
    t.same(ids(await audit(`?actor=${writer.id}`)), [deletion.id, update.id, creation.id]);
    t.same(ids(await audit('?actor=owner')), [failure.id, rejection.id, approval.id]);
    t.same(ids(await audit('?outcome=failed')), [failure.id]);
    t.same(ids(await audit('?outcome=rejected')), [rejection.id]);
    t.same(ids(await audit('?entity_type=project&outcome=applied')), [approval.id]);
    t.same(ids(await audit(`?entity_id=${pageId}&action=apply_direct`)), [
      deletion.id,
      update.id,
      creation.id,
    ]);
    t.same(ids(await audit(`?pending_change_id=${approvedId}`)), [approval.id]);
    const paged = await audit('?limit=2&offset=2');
    t.same(
      { ...paged, items: ids(paged) },
      { items: [approval.id, deletion.id], total: 6, limit: 2, offset: 2 },
    );
    t.equal((await ta.asOwner({ method: 'GET', url: '/api/audit?action=delete' })).statusCode, 400);
    t.equal((await ta.asOwner({ method: 'GET', url: '/api/audit?entity_id=nope' })).statusCode, 400);
  },
);
