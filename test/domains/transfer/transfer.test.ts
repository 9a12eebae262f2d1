// Export and import: a space exported as Markdown comes back into another space with the same tree, titles, bodies
// and tags, wiki links as written; importing again creates nothing twice; a front matter id of this space updates
// its page; the export is a vault (safe unique .md names, front matter, task lists, documents with their source,
// bookmarks.html); export.json holds everything with schema_version and no secret.
import t from 'tap';
import { parse } from 'yaml';
import { listMigrations } from '../../../lib/migrate.ts';
import { createSpace, testApp } from '../../helpers/app.ts';
import { owned } from '../../helpers/entities.ts';
import { zip } from '../icons/helpers.ts';
import { exportOf, importFile } from './helpers.ts';

const ta = await testApp(t);

function frontOf(text: string): Record<string, unknown> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
  if (!match) throw new Error(`no front matter in ${text.slice(0, 80)}`);
  return parse(match[1]);
}

/** A space's pages as "depth title | body | tags", in tree order. */
async function treeOf(spaceId: string): Promise<string[]> {
  const rows = await ta.sql<{ depth: number; title: string; body: string; tags: string[] }[]>`
    with recursive tree as (
      select id, title, body, tags, 0 as depth, array[position] as path from pages
      where space_id = ${spaceId} and parent_id is null
      union all
      select p.id, p.title, p.body, p.tags, tree.depth + 1, tree.path || p.position
      from pages p join tree on p.parent_id = tree.id
    )
    select depth, title, body, tags from tree order by path`;
  return rows.map((row) => `${'  '.repeat(row.depth)}${row.title} | ${row.body} | ${row.tags.join(',')}`);
}

async function fill() {
  const space = await createSpace(ta, `Home lab ${Math.random().toString(36).slice(2, 6)}`);
  const page = (title: string, body: string, parent_id?: string) =>
    owned(ta, '/api/pages', { space_id: space.id, title, body, ...(parent_id ? { parent_id } : {}) });
  const network = await page('Network', 'VLANs and [[DNS|the resolver]]; see [[Backups#Schedule]].');
  const dns = await page('DNS', 'Pi-hole upstream: `1.1.1.1`\n\n- [[Network]]', network.id);
  await page('Resolver: "split" / horizon?', 'Names with characters no file may hold.', dns.id);
  await page('Backups', '## Schedule\n\nNightly at 02:00.\n\n---\n\nA rule, not front matter.');
  await page('Projects', 'A page whose name an export folder also wants.');
  await page('Backups', 'A second page of the same title.');
  await ta.sql`update pages set tags = ${['infra', 'dns']} where id = ${dns.id}`;
  await ta.sql`update pages set tags = ${['infra']} where id = ${network.id}`;
  const project = await owned(ta, '/api/projects', {
    space_id: space.id,
    name: 'Rack rebuild',
    status: 'active',
  });
  await owned(ta, '/api/tasks', { project_id: project.id, title: 'Order rails' });
  const done = await owned(ta, '/api/tasks', {
    project_id: project.id,
    title: 'Label cables',
    notes: 'both ends',
  });
  await ta.asOwner({ method: 'PATCH', url: `/api/tasks/${done.id}`, payload: { status: 'done' } });
  await owned(ta, '/api/refs', {
    space_id: space.id,
    source: 'github',
    external_id: `caddy-${space.id}`,
    url: 'https://github.com/caddyserver/caddy',
    title: 'Caddy & friends',
  });
  await ta.sql`
    insert into source_docs (space_id, url, title, content, origin, metadata)
    values (${space.id}, 'https://example.org/article', 'An article', 'Captured text.', 'url', '{"tags": ["read"]}')`;
  return space;
}

t.test(
  'the export is a vault: one safe, unique .md per page, front matter, tasks, documents, bookmarks',
  async (t) => {
    const space = await fill();
    const files = await exportOf(ta, space.id);
    const paths = [...files.keys()];
    t.same(
      paths.filter((path) => !path.startsWith('Projects/') && !path.startsWith('Documents/')).sort(),
      [
        'Backups (2).md',
        'Backups.md',
        'Network.md',
        'Network/DNS.md',
        'Network/DNS/Resolver split horizon.md',
        'Projects (2).md',
        'bookmarks.html',
      ].sort(),
    );
    const dns = files.get('Network/DNS.md') ?? '';
    const front = frontOf(dns);
    t.same(Object.keys(front), ['id', 'title', 'created', 'updated', 'tags']);
    t.equal(front.title, 'DNS');
    t.same(front.tags, ['infra', 'dns']);
    t.match(dns, /\n---\n\nPi-hole upstream: `1.1.1.1`\n\n- \[\[Network\]\]$/);
    t.equal(
      frontOf(files.get('Network/DNS/Resolver split horizon.md') ?? '').title,
      'Resolver: "split" / horizon?',
    );

    const project = files.get('Projects/Rack rebuild.md') ?? '';
    t.equal(frontOf(project).type, 'project');
    t.match(project, /## Tasks\n\n- \[ \] Order rails\n- \[x\] Label cables\n {2}both ends\n/);
    const document = files.get('Documents/An article.md') ?? '';
    t.equal(frontOf(document).source, 'https://example.org/article');
    t.same(frontOf(document).tags, ['read']);
    t.match(document, /\n\nCaptured text\.$/);
    const bookmarks = files.get('bookmarks.html') ?? '';
    t.match(bookmarks, /^<!DOCTYPE NETSCAPE-Bookmark-file-1>/);
    t.match(
      bookmarks,
      /<A HREF="https:\/\/github.com\/caddyserver\/caddy" ADD_DATE="\d+" [^>]*>Caddy &amp; friends<\/A>/,
    );

    const other = await ta.asOwner({
      method: 'GET',
      url: '/api/spaces/00000000-0000-4000-8000-000000000000/export.zip',
    });
    t.equal(other.statusCode, 404);
    t.equal(other.json().code, 'SPACE_NOT_FOUND');
  },
);

t.test(
  'export, then import into a new space: the same tree, titles, bodies, tags and links; again: no duplicates',
  async (t) => {
    const source = await fill();
    const archive = await ta.asOwner({ method: 'GET', url: `/api/spaces/${source.id}/export.zip` });
    t.equal(archive.headers['content-type'], 'application/zip');
    const target = await createSpace(ta);

    const preview = await importFile(ta, target.id, archive.rawPayload, 'export.zip', '?dry_run=true');
    t.equal(preview.statusCode, 200, preview.body);
    t.match(preview.json(), { created: 7, updated: 0, unchanged: 0, dry_run: true });
    t.same(await treeOf(target.id), [], 'a dry run writes nothing');

    const first = await importFile(ta, target.id, archive.rawPayload, 'export.zip');
    t.equal(first.statusCode, 200, first.body);
    // Six pages and the bookmark; the project and the document are reported, not imported.
    t.match(first.json(), { created: 7, updated: 0, unchanged: 0, captures: 0, dry_run: false });
    t.same(
      first
        .json()
        .skipped.map((skip: { path: string }) => skip.path)
        .sort(),
      ['Documents/An article.md', 'Projects/Rack rebuild.md'],
    );
    t.same(await treeOf(target.id), await treeOf(source.id));
    const [ref] = await ta.sql`select url, title, tags from refs where space_id = ${target.id}`;
    t.match(ref, { url: 'https://github.com/caddyserver/caddy', title: 'Caddy & friends' });

    const again = await importFile(ta, target.id, archive.rawPayload, 'export.zip');
    t.match(again.json(), { created: 0, updated: 0, unchanged: 7 });
    t.same(await treeOf(target.id), await treeOf(source.id));

    // Into its own space, the ids in the front matter find the pages themselves.
    const home = await importFile(ta, source.id, archive.rawPayload, 'export.zip');
    t.match(home.json(), { created: 0, updated: 0, unchanged: 7 });
  },
);

t.test('a front matter id of this space updates its page, wherever the file now is', async (t) => {
  const space = await createSpace(ta);
  const guide = await owned(ta, '/api/pages', { space_id: space.id, title: 'Guide', body: 'old' });
  const archive = await zip([
    {
      name: 'Manuals/Setup guide.md',
      bytes: Buffer.from(
        `---\nid: ${guide.id}\ntitle: Setup guide\ntags: [how-to, "#setup"]\naliases: [Guide]\n---\n\nNew text with [[Manuals]].\n`,
      ),
    },
    { name: 'Manuals/Plain.md', bytes: Buffer.from('No front matter at all.') },
    { name: 'Manuals/diagram.png', bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
    { name: '.obsidian/app.json', bytes: Buffer.from('{}') },
    { name: 'Broken.md', bytes: Buffer.from('---\ntitle: [unclosed\n---\nbody') },
  ]);
  const response = await importFile(ta, space.id, archive, 'vault.zip');
  t.equal(response.statusCode, 200, response.body);
  const report = response.json();
  t.match(report, { created: 2, updated: 1, unchanged: 0 });
  t.same(report.skipped.map((skip: { path: string }) => skip.path).sort(), [
    '.obsidian/app.json',
    'Broken.md',
    'Manuals/diagram.png',
  ]);
  t.match(
    report.skipped.find((skip: { path: string }) => skip.path === 'Broken.md').reason,
    /not valid YAML/,
  );
  t.same(await treeOf(space.id), [
    'Manuals |  | ',
    '  Setup guide | ---\naliases:\n  - Guide\n---\n\nNew text with [[Manuals]].\n | how-to,setup',
    '  Plain | No front matter at all. | ',
  ]);
  const [page] = await ta.sql`select id from pages where title = 'Setup guide' and space_id = ${space.id}`;
  t.equal(page.id, guide.id, 'the page kept its id');
  // The keys the hub does not know go back out in the file's front matter.
  const exported = (await exportOf(ta, space.id)).get('Manuals/Setup guide.md') ?? '';
  t.same(frontOf(exported).aliases, ['Guide']);
  t.match(exported, /\n---\n\nNew text with \[\[Manuals\]\]\.\n$/);
});

t.test('export.json holds everything with schema_version, and no secret', async (t) => {
  const space = await fill();
  const token = 'linkding-token-never-exported-4f1e2d3c';
  const put = await ta.asOwner({
    method: 'PUT',
    url: '/api/integrations/linkding?test=false',
    payload: { url: 'http://127.0.0.1:9', token },
  });
  t.equal(put.statusCode, 200, put.body);
  const response = await ta.asOwner({ method: 'GET', url: '/api/export.json' });
  t.equal(response.statusCode, 200, response.body);
  t.notOk(response.body.includes(token), 'the secret is not in the export');
  const [sealed] = await ta.sql<
    { secrets: Record<string, string> }[]
  >`select secrets from integrations where kind = 'linkding'`;
  t.notOk(response.body.includes(JSON.stringify(sealed.secrets.token)), 'not even sealed');
  const data = response.json();
  const migrations = await listMigrations();
  t.equal(data.schema_version, migrations[migrations.length - 1].version);
  t.same(data.integrations.find((row: { kind: string }) => row.kind === 'linkding').secrets, {
    token: { set: true },
  });
  t.ok(data.spaces.some((row: { id: string }) => row.id === space.id));
  for (const key of ['pages', 'projects', 'tasks', 'refs', 'source_docs']) {
    t.ok(
      data[key].some((row: { space_id: string }) => row.space_id === space.id),
      key,
    );
  }
  t.ok(data.pages.some((row: { tags: string[] }) => row.tags.includes('dns')));
  t.ok(Array.isArray(data.settings) && Array.isArray(data.resources));
});
