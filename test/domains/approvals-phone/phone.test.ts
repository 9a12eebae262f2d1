// Approve from the phone: an agent's proposal raises approval.waiting (caught by a real receiver on ALERT_URL) with
// Approve and Reject buttons in ntfy's http action shape; the button's request decides once, through the owner's
// approve, audited as owner:phone. Replayed, spent, expired, altered and unknown tokens are 401, and a token decides
// only the change it was minted for. A pending action is approved the same way.
import t from 'tap';
import { alertsDelivered, startAlertReceiver } from '../../helpers/alert-receiver.ts';
import { createAgent, testApp } from '../../helpers/app.ts';

const receiver = await startAlertReceiver(t);
const ta = await testApp(t, { worker: true, env: { ALERT_URL: receiver.url } });
const base = 'http://127.0.0.1:8080';
const setBase = await ta.asOwner({
  method: 'PUT',
  url: '/api/settings/approvals.base_url',
  payload: { value: base },
});
if (setBase.statusCode !== 200) throw new Error(setBase.body);
const agent = await createAgent(ta, { tier: 'suggest' });

interface Button {
  action: string;
  label: string;
  url: string;
  method: string;
}

/** An agent proposes a resource; the approval.waiting alert it raised, with its buttons by label. */
async function propose(name: string) {
  receiver.clear();
  const proposed = await ta.asAgent(agent.token, {
    method: 'POST',
    url: '/api/resources',
    payload: { name, kind: 'vm' },
  });
  if (proposed.statusCode !== 202) throw new Error(proposed.body);
  await alertsDelivered(ta.sql);
  const [alert] = receiver.alerts();
  const buttons = Object.fromEntries(
    ((alert.actions ?? []) as Button[]).map((button) => [button.label, button]),
  );
  return { id: proposed.json().pending_change_id as string, alert, buttons };
}

/** The button's request, as ntfy would send it (no credentials). */
const press = (button: Button) =>
  ta.anon({ method: button.method as 'POST', url: button.url.slice(base.length) });
const change = async (id: string) =>
  (await ta.asOwner({ method: 'GET', url: `/api/pending-changes/${id}` })).json();

t.test('the Approve button approves once; replays and the spent Reject are refused', async (t) => {
  const first = await propose('phone-approved');
  t.match(first.alert, {
    event: 'approval.waiting',
    pending_change_id: first.id,
    agent_id: agent.id,
    link: `${base}/approvals`,
  });
  t.match(first.buttons.Approve, {
    action: 'http',
    method: 'POST',
    url: /^http:\/\/127\.0\.0\.1:8080\/api\/approvals\//,
  });
  t.match(first.buttons.Reject, { action: 'http', method: 'POST' });
  t.not(first.buttons.Approve.url, first.buttons.Reject.url);

  const approved = await press(first.buttons.Approve);
  t.equal(approved.statusCode, 200, approved.body);
  t.match(approved.json(), { decision: 'approve', pending_change_id: first.id, status: 'applied' });
  t.equal((await change(first.id)).status, 'applied');

  const replay = await press(first.buttons.Approve);
  t.equal(replay.statusCode, 401);
  t.equal(replay.json().code, 'APPROVAL_TOKEN_INVALID');
  t.equal((await press(first.buttons.Reject)).statusCode, 401, 'one decision spends both buttons');

  const audit = (await ta.asOwner({ method: 'GET', url: `/api/audit?entity_type=resource` })).json().items;
  t.ok(
    audit.some(
      (entry: { actor: string; action: string }) =>
        entry.actor === 'owner:phone' && entry.action === 'approve',
    ),
    'audited naming the phone',
  );
  const [token] = await ta.sql<{ digest: Buffer }[]>`select digest from approval_tokens limit 1`;
  t.equal(token.digest.length, 32, 'tokens are kept as their SHA-256 digest');
  const raw = first.buttons.Approve.url.split('/').at(-1) as string;
  const [plain] =
    await ta.sql`select 1 from approval_tokens where encode(digest, 'escape') like ${`%${raw}%`}`;
  t.notOk(plain, 'never the token itself');
});

t.test('altered, expired and unknown tokens are 401; a token decides only its own change', async (t) => {
  const a = await propose('phone-a');
  const b = await propose('phone-b');

  const url = a.buttons.Reject.url;
  const last = url.at(-1) === 'A' ? 'B' : 'A';
  const altered = await press({ ...a.buttons.Reject, url: `${url.slice(0, -1)}${last}` });
  t.equal(altered.statusCode, 401, 'one character changed');
  t.equal((await press({ ...a.buttons.Reject, url: `${base}/api/approvals/nonsense` })).statusCode, 401);

  const rejected = await press(b.buttons.Reject);
  t.match(rejected.json(), { decision: 'reject', pending_change_id: b.id, status: 'rejected' });
  t.equal((await change(a.id)).status, 'pending', "b's token left a alone");
  t.equal((await press(b.buttons.Approve)).statusCode, 401);

  await ta.sql`update approval_tokens set expires_at = now() - interval '1 second' where pending_change_id = ${a.id}`;
  const expired = await press(a.buttons.Approve);
  t.equal(expired.statusCode, 401, 'expired');
  t.equal((await change(a.id)).status, 'pending', 'still waiting for the owner in the web app');
});

t.test('a pending action is approved from the phone too', async (t) => {
  receiver.clear();
  const proposed = await ta.asAgent(agent.token, {
    method: 'POST',
    url: '/api/actions/run',
    payload: { action: 'speedtest.run' },
  });
  t.equal(proposed.statusCode, 202);
  await alertsDelivered(ta.sql);
  const [alert] = receiver.alerts();
  t.match(alert, { event: 'approval.waiting', pending_action_id: proposed.json().action_id });
  const approve = (alert.actions as Button[]).find((button) => button.label === 'Approve') as Button;
  const approved = await press(approve);
  t.equal(approved.statusCode, 200, approved.body);
  t.match(approved.json(), {
    decision: 'approve',
    pending_action_id: proposed.json().action_id,
    status: 'approved',
  });
  t.equal((await press(approve)).statusCode, 401);
});

t.test('without the hub’s address the alert carries no buttons', async (t) => {
  await ta.asOwner({ method: 'PUT', url: '/api/settings/approvals.base_url', payload: { value: null } });
  const waiting = await propose('no-buttons');
  t.equal(waiting.alert.event, 'approval.waiting');
  t.notOk(waiting.alert.actions);
  t.same(await ta.sql`select 1 from approval_tokens where pending_change_id = ${waiting.id}`, []);
});
