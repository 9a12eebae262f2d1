// Extraction on real bytes (HTML articles and pages without one, text, Markdown, a PDF built here), type
// sniffing, subtitle and command-line handling, and the webhook's signature check and payload parsers.
import t from 'tap';
import { subtitleText } from '../../../domains/capture/video.ts';
import { parserFor, signatureMatches, WebhookPayloadError } from '../../../domains/capture/webhook.ts';
import { splitCommand } from '../../../lib/command.ts';
import {
  ExtractionError,
  extractDocument,
  extractHtml,
  maxContentChars,
  sniffType,
} from '../../../lib/extract.ts';
import { articleHtml, makePdf, prose, sign } from './fixtures.ts';

t.test('HTML: Readability finds the article, leaving navigation, scripts and footer out', async (t) => {
  const doc = await extractHtml(articleHtml('Tuning the heat pump for a quiet winter', prose('heat pump')));
  t.equal(doc.title, 'Tuning the heat pump for a quiet winter', "the site's name is dropped from the title");
  t.equal(doc.content_type, 'text/html');
  t.match(doc.content, /Paragraph 1 about heat pump\./);
  t.match(doc.content, /Paragraph 6 about heat pump\./);
  t.notMatch(doc.content, /do not index this/);
  t.notMatch(doc.content, /Copyright footer text/);
  t.notMatch(doc.content, /Contact/);
  t.match(doc.content, /conclusion\.\n+Paragraph 2/, 'paragraphs stay apart');
  t.equal(doc.metadata.extractor, 'readability');
  t.equal(doc.metadata.byline, 'By Ada Writer');
});

t.test('HTML without an article falls back to the <title> and the body text', async (t) => {
  const doc = await extractHtml(
    '<html><head><title>  Router status </title><script>var hidden = 1</script></head>' +
      '<body><div>Uptime<br>42 days</div><table><tr><td>eth0</td><td>up</td></tr></table></body></html>',
  );
  t.equal(doc.title, 'Router status');
  t.equal(doc.metadata.extractor, 'body');
  t.match(doc.content, /Uptime\n42 days/);
  t.match(doc.content, /eth0\s+up/);
  t.notMatch(doc.content, /hidden/);

  const empty = await extractHtml('<html><body></body></html>');
  t.equal(empty.title, null);
  t.equal(empty.content, '');
});

t.test('charset from the header or a <meta> tag', async (t) => {
  const latin1 = Buffer.from(
    '<html><head><title>Caf\xe9</title></head><body><p>cr\xe8me br\xfbl\xe9e</p></body></html>',
    'latin1',
  );
  const byHeader = await extractDocument(latin1, 'text/html', 'text/html; charset=iso-8859-1');
  t.equal(byHeader.title, 'Café');
  t.match(byHeader.content, /crème brûlée/);
  const withMeta = Buffer.concat([Buffer.from('<meta charset="windows-1252">'), latin1]);
  t.equal((await extractDocument(withMeta, 'text/html', 'text/html')).title, 'Café');
  const unknown = await extractDocument(
    Buffer.from('plain ünïcode'),
    'text/plain',
    'text/plain; charset=bogus',
  );
  t.equal(unknown.content, 'plain ünïcode', 'an unknown charset falls back to UTF-8');
});

t.test('text and Markdown are kept as they are; Markdown gives its first heading as the title', async (t) => {
  const md = await extractDocument(
    Buffer.from('Intro line\n\n## Backup plan\n\n- nightly *zfs send*\n- weekly offsite\n'),
    'text/markdown',
  );
  t.equal(md.title, 'Backup plan');
  t.equal(md.content, 'Intro line\n\n## Backup plan\n\n- nightly *zfs send*\n- weekly offsite');
  const text = await extractDocument(Buffer.from('\uFEFFline one\r\nline two\r\n'), 'text/plain');
  t.equal(text.title, null);
  t.equal(text.content, 'line one\nline two');
});

t.test('content beyond the cap is cut and the metadata says so', async (t) => {
  const doc = await extractDocument(Buffer.from('word '.repeat(maxContentChars)), 'text/plain');
  t.equal(doc.content.length, maxContentChars);
  t.equal(doc.metadata.truncated, true);
  t.equal(doc.metadata.original_chars, maxContentChars * 5 - 1);
});

t.test('PDF text and title come from the document', async (t) => {
  const pdf = makePdf(['Quarterly storage report', 'The pool tank is 81 percent full.'], 'Storage Q3');
  const doc = await extractDocument(pdf, 'application/pdf');
  t.equal(doc.title, 'Storage Q3');
  t.equal(doc.content_type, 'application/pdf');
  t.match(doc.content, /Quarterly storage report/);
  t.match(doc.content, /81 percent full/);
  t.equal(doc.metadata.pages, 1);
  const untitled = await extractDocument(makePdf(['no title here']), 'application/pdf');
  t.equal(untitled.title, null);

  await t.rejects(
    extractDocument(Buffer.from('%PDF-1.4\nthis is not really a pdf'), 'application/pdf'),
    ExtractionError,
  );
});

t.test('the type is sniffed from the declaration, the name and the bytes', async (t) => {
  const pdf = makePdf(['x']);
  const html = Buffer.from('<!DOCTYPE html><html><body>hi</body></html>');
  const text = Buffer.from('just words');
  const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
  const cases: [Buffer, string, string | undefined, string | null][] = [
    [pdf, 'application/pdf', 'a.pdf', 'application/pdf'],
    [pdf, 'application/octet-stream', 'scan', 'application/pdf'],
    [pdf, '', undefined, 'application/pdf'],
    [text, 'application/pdf', 'fake.pdf', null],
    [html, 'text/html; charset=utf-8', undefined, 'text/html'],
    [html, 'application/octet-stream', 'page', 'text/html'],
    [html, 'application/xhtml+xml', undefined, 'text/html'],
    [text, 'text/plain', 'notes.md', 'text/markdown'],
    [text, 'text/plain', 'saved.html', 'text/html'],
    [text, 'text/plain', 'notes.txt', 'text/plain'],
    [text, 'text/markdown', undefined, 'text/markdown'],
    [text, 'text/x-markdown', undefined, 'text/markdown'],
    [text, 'application/octet-stream', 'readme.markdown', 'text/markdown'],
    [text, '', undefined, 'text/plain'],
    [binary, 'text/plain', 'x.txt', null],
    [binary, 'image/png', 'x.png', null],
    [text, 'image/svg+xml', 'x.svg', null],
    [text, 'application/json', 'x.json', null],
    [text, 'application/zip', undefined, null],
  ];
  for (const [bytes, declared, name, expected] of cases) {
    t.equal(sniffType(bytes, declared, name), expected, `${declared || '(none)'} ${name ?? ''}`);
  }
});

t.test('subtitles become plain text; commands split without a shell', async (t) => {
  const vtt = [
    'WEBVTT',
    'Kind: captions',
    '',
    'NOTE generated',
    'more note',
    '',
    '1',
    '00:00:00.000 --> 00:00:02.000 align:start',
    'Hello <c.colorE5E5E5>and</c> welcome',
    '',
    '00:00:02.000 --> 00:00:04.000',
    'Hello and welcome',
    'to the &amp; show',
  ].join('\n');
  t.equal(subtitleText(vtt), 'Hello and welcome\nto the & show');
  const srt =
    '1\r\n00:00:01,000 --> 00:00:02,000\r\nFirst line\r\n\r\n2\r\n00:00:03,000 --> 00:00:04,000\r\nSecond\r\n';
  t.equal(subtitleText(srt), 'First line\nSecond');

  t.same(splitCommand('yt-dlp --skip-download  --sub-langs "en.*" -o \'my file\''), [
    'yt-dlp',
    '--skip-download',
    '--sub-langs',
    'en.*',
    '-o',
    'my file',
  ]);
  t.same(splitCommand('a "" b; rm -rf / $(x) `y`'), ['a', '', 'b;', 'rm', '-rf', '/', '$(x)', '`y`']);
  t.same(splitCommand('   '), []);
});

t.test('webhook signatures: HMAC-SHA256 of the exact bytes, sha256=<hex>', async (t) => {
  const secret = 'shared-secret';
  const body = Buffer.from('{"url":"https://example.org/"}');
  t.ok(signatureMatches(secret, body, sign(secret, body)));
  t.ok(signatureMatches(secret, body, sign(secret, body).toUpperCase().replace('SHA256=', 'sha256=')));
  t.notOk(signatureMatches(secret, body, undefined));
  t.notOk(signatureMatches(secret, body, ''));
  t.notOk(signatureMatches(secret, body, sign('other-secret', body)));
  t.notOk(signatureMatches(secret, body, sign(secret, body).replace('sha256=', '')));
  t.notOk(signatureMatches(secret, body, sign(secret, body).replace('sha256=', 'sha1=')));
  t.notOk(signatureMatches(secret, body, sign(secret, body).slice(0, -2)), 'a shorter digest never throws');
  t.notOk(signatureMatches(secret, Buffer.from('{"url": "https://example.org/"}'), sign(secret, body)));
});

t.test('karakeep: created and edited capture, deleted and others are acknowledged, jobId keys', async (t) => {
  const parse = parserFor('karakeep');
  if (!parse) throw new Error('no karakeep parser');
  const event = { jobId: '123', bookmarkId: 'b1', userId: 'u1', url: 'https://example.org/k', type: 'link' };
  t.same(parse({ ...event, operation: 'created' }, Buffer.from('')), {
    kind: 'capture',
    operation: 'created',
    bookmark: { url: 'https://example.org/k', idempotency_key: 'karakeep:b1:123' },
  });
  t.match(parse({ ...event, jobId: 124, operation: 'edited' }, Buffer.from('')), {
    kind: 'capture',
    bookmark: { idempotency_key: 'karakeep:b1:124' },
  });
  t.match(parse({ ...event, operation: 'deleted' }, Buffer.from('')), {
    kind: 'ignore',
    operation: 'deleted',
  });
  t.match(parse({ ...event, operation: 'crawled' }, Buffer.from('')), { kind: 'ignore' });
  t.match(parse({ ...event, url: null, type: 'text', operation: 'created' }, Buffer.from('')), {
    kind: 'ignore',
    reason: /text bookmark has no URL/,
  });
  t.throws(() => parse({ bookmarkId: 'b1', operation: 'created' }, Buffer.from('')), WebhookPayloadError);
  t.throws(() => parse([], Buffer.from('')), WebhookPayloadError);
});

t.test('generic payloads; linkding has no webhook parser (it is pulled)', async (t) => {
  t.equal(parserFor('linkding'), undefined, 'linkding sends no webhooks');
  const generic = parserFor('generic');
  if (!generic) throw new Error('parser missing');
  const raw = Buffer.from('{"any":"bytes"}');
  t.match(generic({ url: 'https://example.org/g', title: ' T ', tags: ['x'] }, raw), {
    kind: 'capture',
    bookmark: {
      url: 'https://example.org/g',
      title: 'T',
      tags: ['x'],
      idempotency_key: /^generic:[0-9a-f]{64}$/,
    },
  });
  t.match(generic({ url: 'https://example.org/g', idempotency_key: 'mine' }, raw), {
    bookmark: { idempotency_key: 'generic:mine' },
  });
  t.throws(() => generic({ url: 'https://example.org/g', colour: 'red' }, raw), /must not have additional/);
  t.throws(() => generic({ title: 'no url' }, raw), WebhookPayloadError);
  t.equal(parserFor('toString'), undefined, 'only the listed services, not object members');
  t.equal(parserFor('unknown'), undefined);
});
