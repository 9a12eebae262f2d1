// ingest.video end to end: oEmbed metadata from a fake endpoint, a transcript from a real script run as the
// transcript command (a subtitle file it writes, or its standard output), and metadata only when the command is
// missing, fails or hangs. The child gets PATH, HOME and LANG only.
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { isIPv4 } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { setTestConnectGate } from '../../../lib/safe-fetch.ts';
import { testApp } from '../../helpers/app.ts';
import { startUpstream } from '../../helpers/upstream.ts';
import { captureState, captureUrl, docsAt, settled } from './helpers.ts';

// Whatever a job fetches, sockets only ever open to loopback.
setTestConnectGate((address) => {
  if (!isIPv4(address) || !address.startsWith('127.')) throw new Error(`test gate: refusing ${address}`);
});
t.teardown(() => setTestConnectGate(null));

const oembed = await startUpstream(t, (request, response) => {
  const query = new URL(request.url ?? '/', 'http://x').searchParams;
  const video = query.get('url') ?? '';
  if (query.get('format') !== 'json' || video.includes('gone')) {
    response.writeHead(404, { 'content-type': 'text/plain' });
    return void response.end('Not Found');
  }
  if (video.includes('busy')) {
    response.writeHead(503);
    return void response.end();
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      title: `Fixing a leaky tap (${new URL(video).searchParams.get('v') ?? 'short'})`,
      author_name: 'Plumbing Weekly',
      author_url: 'https://www.youtube.com/@plumbing',
      provider_name: 'YouTube',
      thumbnail_url: 'https://i.ytimg.com/vi/x/hqdefault.jpg',
      html: '<iframe></iframe>',
      type: 'video',
    }),
  );
});

const dir = await mkdtemp(path.join(os.tmpdir(), 'ops-hub-transcript-test-'));
t.teardown(() => rm(dir, { recursive: true, force: true }));
const script = path.join(dir, 'fake-yt-dlp');
await writeFile(
  script,
  `#!/bin/sh
# Stands in for yt-dlp: the video URL is the last argument, the working directory a fresh temp dir.
for last; do :; done
case "$last" in
  *withfile*)
    echo "[download] writing subtitles"
    printf 'WEBVTT\\n\\n00:00:00.000 --> 00:00:02.000\\nturn off the <c>water</c> first\\n\\n00:00:02.000 --> 00:00:04.000\\nturn off the water first\\nthen replace the washer\\n' > "$1.en.vtt"
    ;;
  *fails*) echo "ERROR: video unavailable" >&2; exit 3 ;;
  *hangs*) sleep 30 ;;
  *silent*) ;;
  *) echo "transcript of $last with option $1"
     echo "owner=\${OWNER_TOKEN:-unset} webhook=\${WEBHOOK_SECRET:-unset} database=\${DATABASE_URL:-unset}"
     echo "variables: $(env | cut -d= -f1 | sort | tr '\\n' ' ')"
     echo "cwd: $(pwd)" ;;
esac
`,
);
await chmod(script, 0o755);

// Secrets in the service's own environment must not reach the child.
process.env.OWNER_TOKEN = 'owner-secret-must-not-leak-0123456789';
process.env.WEBHOOK_SECRET = 'webhook-secret-must-not-leak';
process.env.DATABASE_URL = 'postgres://leak:leak@127.0.0.1/leak';
t.teardown(() => {
  delete process.env.OWNER_TOKEN;
  delete process.env.WEBHOOK_SECRET;
  delete process.env.DATABASE_URL;
});

const videoEnv = {
  VOID_INGEST_ALLOW_PRIVATE: '1',
  VIDEO_OEMBED_URL: `${oembed.url}/oembed`,
  VIDEO_TRANSCRIPT_COMMAND: `${script} transcript`,
  VIDEO_TRANSCRIPT_TIMEOUT_MS: '3000',
  INGEST_MAX_ATTEMPTS: '2',
};

t.test('with a transcript command configured', async (t) => {
  const ta = await testApp(t, { worker: true, env: videoEnv });

  t.test('oEmbed metadata and the command output become a video document', async (t) => {
    const url = 'https://www.youtube.com/watch?v=abc123';
    const captured = await captureUrl(ta, url);
    t.equal(captured.task, 'ingest.video');
    t.match(await settled(ta, captured.job_id), { state: 'completed', task: 'ingest.video' });
    const [doc] = await docsAt(ta, url);
    t.match(doc, {
      origin: 'video',
      title: 'Fixing a leaky tap (abc123)',
      content_type: 'text/plain',
      metadata: {
        oembed: {
          title: 'Fixing a leaky tap (abc123)',
          author_name: 'Plumbing Weekly',
          provider_name: 'YouTube',
        },
        transcript: { status: 'included', source: 'stdout' },
      },
    });
    t.match(doc.content, `transcript of ${url} with option transcript`, 'the URL is the last argument');
    t.match(doc.content, 'owner=unset webhook=unset database=unset', 'no secret reaches the child');
    const variables = /variables: (.*)/.exec(doc.content)?.[1].trim().split(' ') ?? [];
    // The shell adds its own; tap's process-info hook adds its variables to every process spawned under tap.
    const notOurs = (name: string) =>
      ['PWD', 'OLDPWD', 'SHLVL', '_', 'NODE_OPTIONS'].includes(name) || /^_TAPJS_|\//.test(name);
    t.same(
      variables.filter((name) => !notOurs(name)).sort(),
      ['HOME', 'LANG', 'PATH'].filter((name) => name !== 'LANG' || process.env.LANG),
      'only PATH, HOME and LANG are passed',
    );
    t.match(doc.content, new RegExp(`cwd: ${os.tmpdir()}/ops-hub-transcript-`));
    t.equal(doc.metadata.oembed && (doc.metadata.oembed as Record<string, unknown>).html, undefined);
    const request = oembed.requests.find((r) => r.url.includes('abc123'));
    t.match(request?.url, `/oembed?url=${encodeURIComponent(url)}&format=json`);

    const search = await ta.asOwner({ method: 'GET', url: '/api/search?q=leaky%20tap' });
    t.equal(search.json().items[0]?.id, doc.id);
  });

  t.test('a subtitle file written by the command wins over its output', async (t) => {
    const url = 'https://youtu.be/withfile';
    const captured = await captureUrl(ta, url);
    t.equal((await settled(ta, captured.job_id)).state, 'completed');
    const [doc] = await docsAt(ta, url);
    t.equal(doc.content, 'turn off the water first\nthen replace the washer');
    t.match(doc.metadata.transcript, { status: 'included', source: 'file', file: 'transcript.en.vtt' });
  });

  t.test('a failing, hanging or silent command leaves metadata only', async (t) => {
    const reasons: [string, RegExp][] = [
      ['https://m.youtube.com/watch?v=fails', /exited with status 3: ERROR: video unavailable/],
      ['https://m.youtube.com/watch?v=hangs', /timed out after 3000 ms/],
      ['https://m.youtube.com/watch?v=silent', /produced no transcript/],
    ];
    const captures = await Promise.all(reasons.map(([url]) => captureUrl(ta, url)));
    for (const [i, [url, reason]] of reasons.entries()) {
      const captured = captures[i];
      t.equal((await settled(ta, captured.job_id)).state, 'completed', `${url}: the job still succeeds`);
      const [doc] = await docsAt(ta, url);
      t.match(doc.metadata.transcript, { status: 'unavailable', reason }, url);
      t.equal(doc.content, `${doc.title}\nPlumbing Weekly\nYouTube`, 'the metadata is the content');
    }
  });

  t.test('an unknown video fails at once; an oEmbed outage is retried', async (t) => {
    const gone = await captureUrl(ta, 'https://youtube.com/watch?v=gone');
    const failed = await settled(ta, gone.job_id);
    t.match(failed, { state: 'failed', attempts: 1 });
    t.match(failed.last_error, /answered HTTP 404 \(the video is private, removed or does not exist\)/);
    t.match(await captureState(ta, gone.capture_id), { state: 'failed' });
    const busy = await captureUrl(ta, 'https://youtube.com/watch?v=busy');
    const exhausted = await settled(ta, busy.job_id);
    t.match(exhausted, { state: 'failed', attempts: 2, last_error: /answered HTTP 503/ });
    t.equal((await docsAt(ta, 'https://youtube.com/watch?v=gone')).length, 0);
  });
});

t.test('without a usable command the document has the metadata only', async (t) => {
  const missing = await testApp(t, {
    worker: true,
    env: { ...videoEnv, VIDEO_TRANSCRIPT_COMMAND: path.join(dir, 'no-such-yt-dlp') },
  });
  const url = 'https://youtube.com/watch?v=nobinary';
  const captured = await captureUrl(missing, url);
  t.equal((await settled(missing, captured.job_id)).state, 'completed');
  const [doc] = await docsAt(missing, url);
  t.match(doc.metadata.transcript, { status: 'unavailable', reason: /transcript command not found/ });

  const none = await testApp(t, { worker: true, env: { ...videoEnv, VIDEO_TRANSCRIPT_COMMAND: '' } });
  const plain = await captureUrl(none, 'https://youtube.com/watch?v=nocommand');
  t.equal((await settled(none, plain.job_id)).state, 'completed');
  const [metadataOnly] = await docsAt(none, 'https://youtube.com/watch?v=nocommand');
  t.match(metadataOnly.metadata.transcript, {
    status: 'unavailable',
    reason: /no transcript command configured/,
  });
});
