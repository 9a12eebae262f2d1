// Importing bookmark files as Firefox and Chrome export them (nested folders, ADD_DATE, ICON data, HTML entities,
// place: and javascript: links) and the archive rules: a zip slip path, too many entries and a file that is
// neither a zip nor a bookmark file are refused with their codes, and nothing is written.
import t from 'tap';
import { createSpace, testApp } from '../../helpers/app.ts';
import { renameEntry, zip } from '../icons/helpers.ts';
import { fixture, importFile } from './helpers.ts';

const ta = await testApp(t, { env: { ICON_ZIP_MAX_ENTRIES: '20' } });

async function refsOf(spaceId: string) {
  return ta.sql<
    { url: string; title: string; tags: string[]; notes: string; created_at: Date; source: string }[]
  >`
    select url, title, tags, notes, created_at, source from refs where space_id = ${spaceId} order by url`;
}

t.test('a Firefox export: folders become tags, ADD_DATE the created time, entities decoded', async (t) => {
  const space = await createSpace(ta);
  const html = await fixture('firefox.bookmarks');
  const preview = await importFile(ta, space.id, html, 'bookmarks.html', '?dry_run=true');
  t.equal(preview.statusCode, 200, preview.body);
  t.match(preview.json(), { created: 7, updated: 0, unchanged: 0, dry_run: true });
  t.same(await refsOf(space.id), [], 'a dry run writes nothing');

  const response = await importFile(ta, space.id, html, 'bookmarks.html');
  t.equal(response.statusCode, 200, response.body);
  const report = response.json();
  t.match(report, { created: 7, updated: 0, unchanged: 0, captures: 0 });
  t.same(
    report.skipped.map((skip: { path: string; reason: string }) => skip.path),
    ['bookmarks.html: Most Visited', 'bookmarks.html: Reading & Research/Save to reader'],
  );
  const refs = await refsOf(space.id);
  const byUrl = new Map(refs.map((ref) => [ref.url, ref]));
  t.match(byUrl.get('https://pve.proxmox.com/wiki/Backup_and_Restore'), {
    title: 'Backup and Restore – Proxmox VE',
    tags: ['Home lab', 'proxmox', 'backup'],
    notes: 'How vzdump & PBS fit together <notes>',
    created_at: new Date(1701234567 * 1000),
    source: 'bookmarks',
  });
  t.match(byUrl.get('https://docs.pi-hole.net/main/basic-install/?lang=en&ref=menu'), {
    title: 'Pi-hole "Basic install" — docs',
    tags: ['Home lab', 'Networking'],
  });
  // The browser's own toolbar and "Other Bookmarks" folders are no tags.
  t.same(byUrl.get('https://github.com/karakeep-app/karakeep')?.tags, []);
  t.same(byUrl.get('https://arxiv.org/abs/1706.03762')?.tags, ['Reading & Research']);
  t.same(byUrl.get('https://www.postgresql.org/docs/current/sql-copy.html')?.tags, []);

  const again = await importFile(ta, space.id, html, 'bookmarks.html');
  t.match(again.json(), { created: 0, updated: 0, unchanged: 7 });
  t.equal((await refsOf(space.id)).length, 7, 'no duplicates');
});

t.test(
  'a Chrome export merges into references already there, by URL; ?capture=true queues captures once',
  async (t) => {
    const space = await createSpace(ta);
    const existing = await ta.asOwner({
      method: 'POST',
      url: '/api/refs',
      payload: {
        space_id: space.id,
        source: 'linkding',
        external_id: `caddy-${space.id}`,
        url: 'https://caddyserver.com/docs/caddyfile',
        title: 'Caddyfile',
      },
    });
    t.equal(existing.statusCode, 201, existing.body);
    const html = await fixture('chrome.bookmarks');
    const response = await importFile(ta, space.id, html, 'Bookmarks.html', '?capture=true');
    t.equal(response.statusCode, 200, response.body);
    t.match(response.json(), { created: 2, updated: 1, unchanged: 0, captures: 3, skipped: [] });
    const refs = await refsOf(space.id);
    t.same(
      refs.map((ref) => [ref.url, ref.title, ref.tags.join('/'), ref.source]),
      [
        ['https://caddyserver.com/docs/caddyfile', 'Caddyfile', 'Self-hosting', 'linkding'],
        [
          'https://grafana.com/docs/grafana/latest/',
          'Grafana documentation | Grafana documentation',
          '',
          'bookmarks',
        ],
        [
          'https://jellyfin.org/docs/general/installation/',
          'Installation | Jellyfin',
          'Self-hosting/Media',
          'bookmarks',
        ],
      ],
    );
    const captured = async () =>
      ta.sql<{ url: string; task: string }[]>`
      select c.url, j.task_identifier as task from captures c
      join graphile_worker.jobs j on j.id::text = c.job_id::text
      where c.space_id = ${space.id} order by c.url`;
    t.same(
      (await captured()).map((row) => row.task),
      ['ingest.url', 'ingest.url', 'ingest.url'],
    );
    const again = await importFile(ta, space.id, html, 'Bookmarks.html', '?capture=true');
    t.match(again.json(), { created: 0, updated: 0, unchanged: 3, captures: 0 });
    t.equal((await captured()).length, 3, 'each link is captured once');
  },
);

t.test('a bookmark file inside a zip is imported with the pages', async (t) => {
  const space = await createSpace(ta);
  const archive = await zip([
    { name: 'Notes.md', bytes: Buffer.from('Some notes.') },
    { name: 'bookmarks.html', bytes: await fixture('chrome.bookmarks') },
  ]);
  const response = await importFile(ta, space.id, archive, 'vault.zip');
  t.match(response.json(), { created: 4, skipped: [] });
  t.equal((await refsOf(space.id)).length, 3);
});

t.test('archives breaking a rule, and files of no known kind, are refused whole', async (t) => {
  const space = await createSpace(ta);
  const note = { name: 'Note.md', bytes: Buffer.from('kept out') };
  const slip = renameEntry(
    await zip([note, { name: 'xx/evil.md', bytes: Buffer.from('x') }]),
    'xx/evil.md',
    '../evil.md',
  );
  const refused = async (bytes: Buffer, name: string, status: number, code: string) => {
    const response = await importFile(ta, space.id, bytes, name);
    t.equal(response.statusCode, status, `${code}: ${response.body}`);
    t.equal(response.json().code, code);
  };
  await refused(slip, 'slip.zip', 400, 'ZIP_UNSAFE_ENTRY');
  const many = Array.from({ length: 21 }, (_, n) => ({ name: `page-${n}.md`, bytes: Buffer.from(`${n}`) }));
  await refused(await zip(many), 'many.zip', 413, 'ZIP_LIMIT_EXCEEDED');
  await refused(Buffer.from('PK\x03\x04 not really a zip'), 'broken.zip', 400, 'ZIP_INVALID');
  await refused(Buffer.from('# Just Markdown, not in a zip'), 'note.md', 415, 'IMPORT_FORMAT_UNKNOWN');
  await refused(
    Buffer.from('<html><body><a href="https://x.example">x</a></body></html>'),
    'page.html',
    415,
    'IMPORT_FORMAT_UNKNOWN',
  );
  const [pages] = await ta.sql`select count(*)::int as n from pages where space_id = ${space.id}`;
  t.equal(pages.n, 0, 'nothing was written');

  const absent = await importFile(ta, '00000000-0000-4000-8000-000000000000', await zip([note]), 'a.zip');
  t.equal(absent.statusCode, 404);
  t.equal(absent.json().code, 'SPACE_NOT_FOUND');
});
