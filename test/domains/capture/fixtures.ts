// Real documents for the ingestion tests: a PDF built byte by byte (catalog, page, Helvetica text, info
// dictionary, a correct cross-reference table), HTML articles and the HMAC signature a bookmark service sends.
import { createHmac } from 'node:crypto';

function pdfString(text: string): string {
  return `(${text.replace(/[\\()]/g, (char) => `\\${char}`)})`;
}

/** A one-page PDF whose lines are `lines`, with `title` in its document information. */
export function makePdf(lines: string[], title?: string): Buffer {
  const stream = [
    'BT',
    '/F1 14 Tf',
    '72 720 Td',
    '18 TL',
    ...lines.map((line) => `${pdfString(line)} Tj T*`),
    'ET',
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
    `<< /Producer (ops-hub tests)${title ? ` /Title ${pdfString(title)}` : ''} >>`,
  ];
  let body = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, index) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${index + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

export function articleHtml(title: string, paragraphs: string[], extra = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} | Example Site</title>
<script>window.tracking = "do not index this";</script><style>body { color: red }</style></head>
<body>
<nav><a href="/">Home</a> <a href="/about">About</a> <a href="/contact">Contact</a></nav>
<article>
<h1>${title}</h1>
<p class="byline">By Ada Writer</p>
${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}
</article>
${extra}
<footer>Copyright footer text</footer>
</body></html>`;
}

/** Enough prose for Readability to see an article. */
export function prose(topic: string, count = 6): string[] {
  return Array.from(
    { length: count },
    (_, i) =>
      `Paragraph ${i + 1} about ${topic}. The ${topic} needs careful attention, because every detail of the ` +
      `${topic} matters to the people who rely on it, and writing about it at some length gives the reader ` +
      'enough context to follow along without skipping ahead to the conclusion.',
  );
}

export function sign(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}
