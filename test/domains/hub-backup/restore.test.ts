// A filled hub backed up with `npm run backup` and restored with `npm run restore` (both real child processes) into
// a fresh database answers the same: searches, pages, tasks, refs, captured documents, the layout, settings, the
// encrypted integration secret (still sealed under the same key) and the voice clip. A non-empty database is refused
// without --force; a damaged archive is refused naming its part; an encrypted archive needs its passphrase.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import t from 'tap';
import yauzl from 'yauzl';
import yazl from 'yazl';
import { checkSecretKey } from '../../../domains/integrations/keyring.ts';
import { hub } from '../../../modules.ts';
import { type TestApp, testApp } from '../../helpers/app.ts';
import { appOn, emptyDatabase, runScript, tempDir } from './helpers.ts';

// Child processes (a backup, restores) on a machine that may be busy.
t.setTimeout(300_000);

const secretKey = 'dQKziOsMaqYaxIk8G6XTLegaPSofbmIytP7m6aE27Ag=';
let ta: TestApp;
let space: { id: string };
let root: { id: string };
let child: { id: string };
let before: Record<string, { status: number; body: string }>;
const clipId = 'b1e4b2a4-0000-4000-8000-000000000001';
const clipBytes = Buffer.from('clip bytes, not really opus');

async function created(request: Parameters<typeof ta.asOwner>[0]): Promise<{ id: string }> {
  const response = await ta.asOwner(request);
  if (response.statusCode >= 300) throw new Error(`${request.url}: ${response.statusCode} ${response.body}`);
  return response.json();
}

/** What an owner sees of the hub: every answer compared after the restore. */
const reads = () => [
  '/api/spaces',
  `/api/spaces/${space.id}/pages`,
  `/api/pages/${child.id}`,
  `/api/pages/${child.id}/versions`,
  '/api/search?q=quokkacams',
  '/api/search?q=quokka',
  '/api/tasks',
  '/api/projects',
  '/api/refs',
  '/api/source-docs',
  '/api/dashboard/layout',
  '/api/settings/notes.colour',
  '/api/integrations',
  '/api/voice/clips',
  `/api/voice/clips/${clipId}/audio`,
];

async function answers(
  asOwner: (request: { method: 'GET'; url: string }) => Promise<{ statusCode: number; body: string }>,
) {
  const result: Record<string, { status: number; body: string }> = {};
  for (const url of reads()) {
    const response = await asOwner({ method: 'GET', url });
    result[url] = { status: response.statusCode, body: response.body };
  }
  return result;
}

// The hub's content, through its API, made once for every test below.
t.before(async () => {
  ta = await testApp(t, { env: { HUB_SECRET_KEY: secretKey } });

  space = await created({ method: 'POST', url: '/api/spaces', payload: { name: 'Homelab' } });
  root = await created({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, title: 'Network', body: 'The quokkarouter sits in the rack.' },
  });
  child = await created({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, parent_id: root.id, title: 'VLANs', body: 'VLAN 20 holds the cameras.' },
  });
  await created({
    method: 'POST',
    url: '/api/pages',
    payload: { space_id: space.id, parent_id: child.id, title: 'Cameras', body: 'Three quokkacams.' },
  });
  // A second version of a page: its history comes along.
  await created({
    method: 'PATCH',
    url: `/api/pages/${child.id}`,
    payload: { body: 'VLAN 20 holds the quokkacams.' },
  });
  const project = await created({
    method: 'POST',
    url: '/api/projects',
    payload: { space_id: space.id, name: 'Rewire' },
  });
  await created({
    method: 'POST',
    url: '/api/tasks',
    payload: { project_id: project.id, title: 'Buy quokkacable' },
  });
  await created({
    method: 'POST',
    url: '/api/refs',
    payload: {
      space_id: space.id,
      source: 'github',
      external_id: 'quokka/router',
      url: 'https://example.org/q',
    },
  });
  await created({
    method: 'POST',
    url: '/api/source-docs',
    payload: { space_id: space.id, title: 'Quokka manual', content: 'Press the quokkabutton twice.' },
  });
  await created({
    method: 'PUT',
    url: '/api/dashboard/layout',
    payload: { mode: 'snap', cards: [{ id: 'b', type: 'backups', size: 6, h: 2 }] },
  });
  await created({ method: 'PUT', url: '/api/settings/notes.colour', payload: { value: { hue: 'teal' } } });
  await created({
    method: 'PUT',
    url: '/api/integrations/shlink?test=false',
    payload: { url: 'http://127.0.0.1:9', api_key: 'shlink-key-kept-sealed' },
  });
  // A retained voice clip: its file in the clips folder and its row.
  await mkdir(ta.config.voice.clipsDir, { recursive: true, mode: 0o700 });
  await writeFile(path.join(ta.config.voice.clipsDir, `${clipId}.webm`), clipBytes, { mode: 0o600 });
  await ta.sql`insert into voice_clips (id, file_name, content_type, size_bytes, transcript, provider)
    values (${clipId}, ${`${clipId}.webm`}, 'audio/webm', ${clipBytes.length}, 'buy quokkacable', 'test')`;

  before = await answers(ta.asOwner);
  for (const [url, answer] of Object.entries(before)) {
    if (answer.status !== 200)
      throw new Error(`${url} answers ${answer.status} before the backup: ${answer.body}`);
  }
});

const work = await tempDir(t, 'backup');
const env = (dataDir: string, url: string, extra: Record<string, string> = {}) => ({
  DATA_DIR: dataDir,
  DATABASE_URL: url,
  HUB_SECRET_KEY: secretKey,
  ...extra,
});
const archive = path.join(work, 'hub.zip');
t.test('npm run backup -- --out FILE writes the archive, mode 0600', async (t) => {
  const backup = await runScript(
    'scripts/backup.ts',
    ['--out', archive],
    env(path.join(work, 'source'), ta.db.url, { VOICE_CLIPS_DIR: ta.config.voice.clipsDir }),
  );
  t.equal(backup.code, 0, backup.stderr);
  t.match(backup.stdout, /backup written to .*hub\.zip/);
  t.match(before['/api/search?q=quokkacams']?.body, /VLANs/, 'the search finds the page before the backup');
  t.equal((await stat(archive)).mode & 0o777, 0o600, 'the archive is readable by its owner only');
});

/** Rewrites the archive with one byte of `part` changed and the manifest left as it was. */
async function damaged(part: string, out: string): Promise<void> {
  const reader = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(archive, { lazyEntries: true }, (error, zip) => (error ? reject(error) : resolve(zip))),
  );
  const writer = new yazl.ZipFile();
  await new Promise<void>((resolve, reject) => {
    reader.on('entry', (entry: yauzl.Entry) => {
      reader.openReadStream(entry, async (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        for await (const chunk of stream) chunks.push(chunk as Buffer);
        const bytes = Buffer.concat(chunks);
        if (entry.fileName === part) bytes[Math.floor(bytes.length / 2)] ^= 1;
        writer.addBuffer(bytes, entry.fileName);
        reader.readEntry();
      });
    });
    reader.on('end', resolve);
    reader.readEntry();
  });
  writer.end();
  await writeFile(
    out,
    await new Promise<Buffer>((resolve) => {
      const chunks: Buffer[] = [];
      writer.outputStream.on('data', (chunk: Buffer) => chunks.push(chunk));
      writer.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    }),
  );
}

// The restores below each have a database of their own and only read the archive and the source: side by side.
t.test('restores of the archive', async (t) => {
  t.jobs = 3;

  t.test('the restored hub answers as the backed-up one', async (t) => {
    const target = await emptyDatabase(t);
    const dataDir = path.join(await tempDir(t, 'restored'), 'data');
    const restored = await runScript('scripts/restore.ts', [archive], env(dataDir, target.url));
    t.equal(restored.code, 0, restored.stderr + restored.stdout);
    t.match(restored.stdout, /every checksum matches/);

    // The clip is back in the clips folder of the restored hub, mode 0600.
    const clip = path.join(dataDir, 'voice-clips', `${clipId}.webm`);
    t.same(await readFile(clip), clipBytes);
    t.equal((await stat(clip)).mode & 0o777, 0o600);

    // The stored secret opens with the same key (and only with it).
    await t.resolves(
      checkSecretKey(target.sql, { dataDir, secretKey: Buffer.from(secretKey, 'base64') }, hub.sealed),
    );
    await t.rejects(checkSecretKey(target.sql, { dataDir, secretKey: Buffer.alloc(32, 7) }, hub.sealed));

    const app = await appOn(t, target, { HUB_SECRET_KEY: secretKey, DATA_DIR: dataDir });
    const after = await answers((request) => app.asOwner(request));
    for (const url of reads()) t.same(after[url], before[url], `${url} answers the same`);

    // Restoring again into the now filled database is refused without --force, and works with it.
    const refused = await runScript('scripts/restore.ts', [archive], env(dataDir, target.url));
    t.equal(refused.code, 1);
    t.match(refused.stderr, /the database is not empty.*--force/);
    await app.asOwner({ method: 'DELETE', url: `/api/pages/${root.id}` });
    const forced = await runScript('scripts/restore.ts', [archive, '--force'], env(dataDir, target.url));
    t.equal(forced.code, 0, forced.stderr);
    t.match(forced.stdout, /emptied the database/);
    const again = await answers((request) => app.asOwner(request));
    for (const url of reads())
      t.same(again[url], before[url], `${url} answers the same after a forced restore`);
  });

  t.test('a damaged archive is refused naming the part, and nothing is written', async (t) => {
    const target = await emptyDatabase(t);
    const dir = await tempDir(t, 'damaged');
    const file = path.join(dir, 'damaged.zip');
    await damaged('tables/pages.copy', file);
    const truncated = path.join(dir, 'truncated.zip');
    await writeFile(truncated, (await readFile(archive)).subarray(0, 2000));
    // Both refused before anything is written: side by side, each on a data directory of its own (a restore
    // locks its data directory).
    const [result, cut] = await Promise.all(
      [file, truncated].map((archive, i) =>
        runScript('scripts/restore.ts', [archive], env(path.join(dir, `data${i}`), target.url)),
      ),
    );
    t.equal(result.code, 1);
    t.match(result.stderr, /the part tables\/pages\.copy does not match its checksum/);
    const [{ tables }] = await target.sql<{ tables: number }[]>`
    select count(*)::int as tables from pg_tables where schemaname = 'public'`;
    t.equal(tables, 0, 'the database is left empty');

    t.equal(cut.code, 1);
    t.match(cut.stderr, /restore: the archive is not a readable zip/);
  });

  t.test('an encrypted archive restores with its passphrase and is refused with another', async (t) => {
    const dir = await tempDir(t, 'encrypted');
    const passphraseFile = path.join(dir, 'passphrase');
    await writeFile(passphraseFile, 'correct horse battery staple\n', { mode: 0o600 });
    const file = path.join(dir, 'hub.zip.enc');
    const made = await runScript(
      'scripts/backup.ts',
      ['--out', file],
      env(path.join(dir, 'source'), ta.db.url, {
        BACKUP_PASSPHRASE_FILE: passphraseFile,
        VOICE_CLIPS_DIR: ta.config.voice.clipsDir,
      }),
    );
    t.equal(made.code, 0, made.stderr);
    const bytes = await readFile(file);
    t.equal(bytes.subarray(0, 8).toString(), 'OPSHUBBK', 'the archive carries the encryption header');
    t.notOk(bytes.includes(Buffer.from('quokka')), 'no content can be read without the passphrase');

    const target = await emptyDatabase(t);
    // Both refused before anything is written: side by side, each on a data directory of its own (a restore
    // locks its data directory).
    const [wrong, none] = await Promise.all([
      runScript(
        'scripts/restore.ts',
        [file],
        env(path.join(dir, 'data-wrong'), target.url, { BACKUP_PASSPHRASE: 'wrong horse' }),
      ),
      runScript('scripts/restore.ts', [file], env(path.join(dir, 'data-none'), target.url)),
    ]);
    t.equal(wrong.code, 1);
    t.match(wrong.stderr, /the passphrase is wrong or the encrypted archive is damaged/);
    t.equal(none.code, 1);
    t.match(none.stderr, /the archive is encrypted: set BACKUP_PASSPHRASE/);

    const right = await runScript(
      'scripts/restore.ts',
      [file],
      env(path.join(dir, 'data'), target.url, { BACKUP_PASSPHRASE_FILE: passphraseFile }),
    );
    t.equal(right.code, 0, right.stderr);
    const [page] = await target.sql<{ body: string }[]>`select body from pages where id = ${child.id}`;
    t.equal(page?.body, 'VLAN 20 holds the quokkacams.');
  });
});
