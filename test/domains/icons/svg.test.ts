// The SVG attack corpus: each attack is removed from the stored copy, which still draws; a file with nothing
// drawable left, or that is not SVG at all, is refused.
import t from 'tap';
import { cssLoads, sanitiseSvg } from '../../../domains/icons/svg.ts';
import { testApp } from '../../helpers/app.ts';
import { multipart, uploadSet, zip } from './helpers.ts';

const attacks: { name: string; svg: string; gone: RegExp[] }[] = [
  {
    name: 'script',
    svg:
      '<script>alert(1)</script><script xlink:href="https://evil.example/x.js"/><script><![CDATA[alert(2)]]></script>' +
      '<h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(5)</h:script><path d="M0 0h9v9z"/>',
    // A removed element in another namespace leaves its text behind as inert character data, never as a script.
    gone: [/script/i, /alert\([12]\)/, /evil\.example/],
  },
  {
    name: 'foreign-object',
    svg: '<foreignObject width="9" height="9"><iframe xmlns="http://www.w3.org/1999/xhtml" src="javascript:alert(1)"/></foreignObject><path d="M0 0h9v9z"/>',
    gone: [/foreignObject/i, /iframe/i, /javascript/i],
  },
  {
    name: 'event-handlers',
    svg: '<path d="M0 0h9v9z" onclick="alert(1)" onmouseover="alert(2)"/><animate onbegin="alert(3)" attributeName="x"/><set attributeName="onload" to="alert(4)"/>',
    gone: [/\bon[a-z]+=/i, /alert/],
  },
  {
    name: 'javascript-urls',
    svg: '<a href="javascript:alert(1)"><path d="M0 0h9v9z"/></a><a xlink:href=" JaVaScRiPt:alert(2)"><rect width="1" height="1"/></a><animate attributeName="href" values="javascript:alert(3)"/>',
    gone: [/javascript/i, /alert/],
  },
  {
    name: 'external-href',
    svg: '<use href="https://evil.example/sprite.svg#a"/><use xlink:href="//evil.example/s.svg#b"/><image href="http://evil.example/track.png" width="9" height="9"/><a href="https://evil.example/"><path d="M0 0h9v9z"/></a><use href="#local"/><path id="local" d="M1 1h2v2z"/>',
    gone: [/evil\.example/],
  },
  {
    name: 'doctype-entities',
    svg: '<path d="M0 0h9v9z"/>',
    gone: [/DOCTYPE/i, /ENTITY/i, /SYSTEM/, /file:/],
  },
  {
    // Used, not only declared: an external entity (XXE), a parameter entity, nested expansions (billion laughs),
    // an undefined one. Each reference is removed and the rest of the icon kept.
    name: 'entity-references',
    svg: '<path d="M0 0h9v9z"/><text x="1" y="9">A&xxe;&lol2;&undefined;&remote;B</text>',
    gone: [
      /DOCTYPE/i,
      /ENTITY/i,
      /passwd|root:/,
      /lol/,
      /evil\.example/,
      /&(?!amp;|lt;|gt;|quot;|apos;)\w+;/,
    ],
  },
  {
    name: 'prefixed-elements',
    svg: '<s:path xmlns:s="http://www.w3.org/2000/svg" d="M0 0h9v9z"/><s:script xmlns:s="http://www.w3.org/2000/svg">alert(1)</s:script>',
    gone: [/script/i, /alert/, /\bs:/],
  },
  {
    name: 'style-imports',
    svg:
      '<style>@import url(https://evil.example/a.css); path { fill: red }</style>' +
      '<style>.b { fill: url(https://evil.example/p.svg#g) }</style>' +
      '<style>.c { background: image-set("https://evil.example/i.png" 1x) }</style>' +
      '<style>.d { fill: \\75 rl(https://evil.example/e) }</style>' +
      '<style>.ok { fill: url(#grad) }</style>' +
      '<linearGradient id="grad"><stop offset="0" stop-color="red"/></linearGradient>' +
      '<path d="M0 0h9v9z" style="fill: url(https://evil.example/s#x)" filter="url(http://evil.example/f#f)"/>' +
      '<rect width="3" height="3" fill="url(#grad)" style="stroke: blue"/>',
    gone: [/evil\.example/, /@import/, /image-set/, /\\75/],
  },
];

const doctypes: Record<string, string> = {
  'doctype-entities': '<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY lol "lollollol">]>\n',
  'entity-references':
    '<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd"><!ENTITY % remote SYSTEM "https://evil.example/x.dtd">' +
    '<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;"><!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;"> %remote; ]>\n',
};

function document(attack: { name: string; svg: string }): string {
  const doctype = doctypes[attack.name] ?? '';
  return (
    `<?xml version="1.0" encoding="UTF-8"?>\n${doctype}` +
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 24 24" onload="alert(0)">${attack.svg}</svg>`
  );
}

t.test('every attack in the corpus is gone from the stored copy, which still draws', async (t) => {
  const ta = await testApp(t);
  const archive = await zip(
    attacks.map((attack) => ({ name: `${attack.name}.svg`, bytes: Buffer.from(document(attack)) })),
  );
  const response = await ta.asOwner(uploadSet('corpus', archive));
  t.equal(response.statusCode, 201, response.body);
  t.same(response.json().rejected, [], 'stored clean, not refused');
  t.equal(response.json().set.icon_count, attacks.length, "every one counted among the set's icons");
  for (const attack of attacks) {
    const stored = await ta.anon({ method: 'GET', url: `/api/icon-sets/corpus/${attack.name}.svg` });
    t.equal(stored.statusCode, 200, attack.name);
    const text = stored.body;
    for (const pattern of [...attack.gone, /\bonload=/i, /<\?xml/])
      t.notMatch(text, pattern, `${attack.name}: no ${pattern}`);
    t.match(
      text,
      /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*viewBox="0 0 24 24"/,
      `${attack.name}: still an SVG`,
    );
    t.match(text, /<(path|rect)\b/, `${attack.name}: still draws`);
    const reparsed = await sanitiseSvg(Buffer.from(text));
    t.ok(
      reparsed.ok && reparsed.bytes.toString() === text,
      `${attack.name}: sanitising again changes nothing`,
    );
  }
  const style = (await ta.anon({ method: 'GET', url: '/api/icon-sets/corpus/style-imports.svg' })).body;
  t.match(style, /\.ok \{ fill: url\(#grad\) \}/, 'local references stay');
  t.match(style, /fill="url\(#grad\)"/);
  t.match(style, /style="stroke: blue"/, 'harmless style stays');
  const external = (await ta.anon({ method: 'GET', url: '/api/icon-sets/corpus/external-href.svg' })).body;
  t.match(external, /<use href="#local"\/>/, 'a #fragment reference stays');
  const entities = (await ta.anon({ method: 'GET', url: '/api/icon-sets/corpus/entity-references.svg' }))
    .body;
  t.match(entities, /<text x="1" y="9">AB<\/text>/, 'the text around the removed references stays');

  // One icon at a time too: an attack is stored clean, with 201.
  const entityAttack = attacks.find((attack) => attack.name === 'entity-references') ?? attacks[0];
  const single = await ta.asOwner({
    method: 'POST',
    url: '/api/icon-sets/corpus/icons',
    ...multipart([{ name: 'file', filename: 'xxe.svg', bytes: Buffer.from(document(entityAttack)) }]),
  });
  t.equal(single.statusCode, 201, single.body);
});

t.test('entities an illustration program writes are resolved, once, as plain text', async (t) => {
  const illustrator =
    '<?xml version="1.0" encoding="utf-8"?>\n<!-- Generator: Adobe Illustrator -->\n' +
    '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd" [\n' +
    '\t<!ENTITY ns_svg "http://www.w3.org/2000/svg">\n\t<!ENTITY ns_xlink "http://www.w3.org/1999/xlink">\n' +
    '\t<!ENTITY label "it\'s <b>"><!ENTITY name "it\'s">\n]>\n' +
    '<svg version="1.1" xmlns="&ns_svg;" xmlns:xlink="&ns_xlink;" viewBox="0 0 24 24"><path d="M0 0h9v9z"/>' +
    '<text>&name;&label;</text></svg>';
  const result = await sanitiseSvg(Buffer.from(illustrator));
  t.ok(result.ok);
  if (result.ok) {
    t.match(result.bytes.toString(), /^<svg version="1.1" xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    t.match(
      result.bytes.toString(),
      /<text>it's<\/text>/,
      'plain text resolved; text holding markup removed',
    );
  }
  const huge = `<!DOCTYPE svg [<!ENTITY big "${'x'.repeat(10_000)}">]><svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0h1v1z"/><text>${'&big;'.repeat(200)}</text></svg>`;
  t.match(await sanitiseSvg(Buffer.from(huge)), { ok: false, reason: /expand to over 1 MB/ });
});

t.test('refused: nothing drawable left, not SVG', async (t) => {
  const used = await sanitiseSvg(
    Buffer.from(
      '<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><svg xmlns="http://www.w3.org/2000/svg"><text>&xxe;</text></svg>',
    ),
  );
  t.match(
    used,
    { ok: false, reason: /nothing drawable/ },
    'an external entity is never read: its text is empty',
  );
  const externalUse = await sanitiseSvg(
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><use href="https://evil.example/a.svg#x"/></svg>'),
  );
  t.match(externalUse, { ok: false, reason: /nothing drawable/ }, 'a <use> of nothing draws nothing');
  const onlyScript = await sanitiseSvg(
    Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'),
  );
  t.match(onlyScript, { ok: false, reason: /nothing drawable/ });
  t.match(await sanitiseSvg(Buffer.from('<html><svg/></html>')), {
    ok: false,
    reason: /root element is <html>/,
  });
  t.match(await sanitiseSvg(Buffer.from([0xff, 0xfe, 0x00, 0x3c])), { ok: false, reason: /not UTF-8/ });
  t.match(await sanitiseSvg(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0"/>')), {
    ok: false,
    reason: /well-formed/,
  });
});

t.test('cssLoads: what counts as loading from outside', async (t) => {
  for (const css of [
    '@import "x.css";',
    'a{fill:url(x.svg#a)}',
    'a{fill:URL( "https://x" )}',
    'a{b:image-set("x.png" 1x)}',
    'a{b:\\75rl(x)}',
    '@font-face{src:local(x)}',
  ]) {
    t.ok(cssLoads(css), css);
  }
  for (const css of [
    'a{fill:url(#g)}',
    'a{fill:url( "#g" )}',
    'path{fill:red;stroke-width:2}',
    '/* url(http://x) */ a{fill:red}',
  ]) {
    t.notOk(cssLoads(css), css);
  }
});
