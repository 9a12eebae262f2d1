// Homepage's `resources` widget becomes the dashboard's host card: added to the default board's layout through the
// layout's write path (its ETag moves, a read right after sees it), and a second import adds no second one.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import { testApp } from '../../helpers/app.ts';

const widgets = await readFile(path.join(import.meta.dirname, 'fixtures', 'widgets.yaml'), 'utf8');
const ta = await testApp(t);

async function layout() {
  const response = await ta.asOwner({ method: 'GET', url: '/api/dashboard/layout' });
  return { etag: response.headers.etag, cards: response.json().cards as { id: string; type: string }[] };
}

const importWidgets = async (dryRun = false) =>
  (
    await ta.asOwner({
      method: 'POST',
      url: '/api/import/homepage',
      payload: { widgets, dry_run: dryRun },
    })
  ).json();

t.test('the resources widget adds a host card once', async (t) => {
  const saved = await ta.asOwner({
    method: 'PUT',
    url: '/api/dashboard/layout',
    payload: {
      mode: 'snap',
      cards: [
        { id: 'clock', type: 'clock', size: 2 },
        { id: 'weather', type: 'weather', size: 2 },
      ],
    },
  });
  t.equal(saved.statusCode, 200, saved.body);
  const before = await layout();
  t.same(
    before.cards.map((card) => card.type),
    ['clock', 'weather'],
  );

  const rehearsed = await importWidgets(true);
  t.match(rehearsed.created, [{ kind: 'widget', name: 'resources' }], 'the dry run reports the card');
  t.same(await layout(), before, 'a dry run adds nothing');

  const report = await importWidgets();
  t.match(report.created, [{ kind: 'widget', name: 'resources' }]);
  const after = await layout();
  t.same(
    after.cards.map((card) => card.type),
    ['clock', 'weather', 'host'],
    'the host card is on the dashboard',
  );
  t.not(after.etag, before.etag, 'the layout’s ETag moved');
  const stale = await ta.asOwner({
    method: 'PUT',
    url: '/api/dashboard/layout',
    headers: { 'if-match': before.etag as string },
    payload: { mode: 'snap', cards: [] },
  });
  t.equal(stale.statusCode, 412, 'a write with the old ETag is refused');

  const again = await importWidgets();
  t.same(
    again.created.filter((item: { kind: string }) => item.kind === 'widget'),
    [],
  );
  t.match(again.skipped, [{ kind: 'widget', name: 'resources', reason: /already has a host card/ }]);
  t.same(await layout(), after, 'no second host card, the same ETag');
});
