// Draws the installed app's icons (web/public/app-icons/, committed): the brand mark, a rounded square in the
// accent gradient with a plus, at the sizes the web app manifest names. Maskable icons fill the whole square, the
// mark within the central safe zone, since the phone cuts its own shape out of them.
//   node scripts/app-icons.ts
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Resvg } from '@resvg/resvg-js';

function mark(size: number, maskable: boolean): string {
  const radius = maskable ? 0 : size * 0.22;
  const half = (size * (maskable ? 0.5 : 0.62)) / 2;
  const centre = size / 2;
  const stroke = size * (maskable ? 0.08 : 0.1);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${size}" height="${size}" viewBox="0 0 ${size} ${size}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#4f9cf9"/><stop offset="1" stop-color="#a77bf3"/></linearGradient></defs>
<rect width="${size}" height="${size}" rx="${radius}" fill="url(#g)"/>
<path d="M${centre - half} ${centre}H${centre + half}M${centre} ${centre - half}V${centre + half}" stroke="#fff" stroke-width="${stroke}" stroke-linecap="round"/>
</svg>`;
}

const out = path.resolve(import.meta.dirname, '..', 'web', 'public', 'app-icons');
const icons: [string, number, boolean][] = [
  ['192.png', 192, false],
  ['512.png', 512, false],
  ['maskable-192.png', 192, true],
  ['maskable-512.png', 512, true],
  ['apple-touch-icon.png', 180, true],
];
for (const [file, size, maskable] of icons) {
  await writeFile(path.join(out, file), new Resvg(mark(size, maskable)).render().asPng());
}
