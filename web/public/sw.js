// The hub's service worker: the shell works offline after one visit. A page (a navigation) is asked of the network
// first, and the last copy of the shell answers when the network cannot; the hashed assets (their names change with
// their content) and the app icons come from the cache once fetched. Nothing under /api is ever cached or touched:
// the owner's data is always the server's answer.
const shell = 'ops-hub-shell';

/** The shell's HTML and the assets it names, fetched now so the next visit works offline. */
async function keepShell() {
  const cache = await caches.open(shell);
  const response = await fetch('/', { cache: 'no-store' });
  if (!response.ok) return;
  const html = await response.clone().text();
  await cache.put('/', response);
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1]);
  await cache.addAll(assets);
}

self.addEventListener('install', (event) => {
  event.waitUntil(keepShell().catch(() => undefined));
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

function isApi(url) {
  return url.pathname === '/api' || url.pathname.startsWith('/api/');
}

async function networkFirst(request) {
  const cache = await caches.open(shell);
  try {
    const response = await fetch(request);
    // Every address of the app is the same index.html: one copy, kept under '/'.
    if (response.ok && (response.headers.get('content-type') ?? '').startsWith('text/html')) {
      await cache.put('/', response.clone());
    }
    return response;
  } catch (error) {
    const kept = await cache.match('/');
    if (kept) return kept;
    throw error;
  }
}

async function cacheFirst(request) {
  const cache = await caches.open(shell);
  const kept = await cache.match(request);
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin || isApi(url)) return;
  if (request.mode === 'navigate') event.respondWith(networkFirst(request));
  else if (url.pathname.startsWith('/assets/') || url.pathname.startsWith('/app-icons/')) {
    event.respondWith(cacheFirst(request));
  }
});
