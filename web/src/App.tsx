// The shell: sign-in when needed, else the navigation, the current screen (each loaded on demand by preact-iso's
// router, which also turns a plain click on a same-origin link into a screen change and leaves a click with a
// modifier to the browser), the search palette (Ctrl-K from anywhere) and the toasts. A screen that fails while
// drawing shows an error panel with a retry instead of a blank page.
import { useSignal } from '@preact/signals';
import type { ComponentChildren, ComponentType } from 'preact';
import { useEffect, useErrorBoundary } from 'preact/hooks';
import { ErrorBoundary, LocationProvider, lazy, Route, Router, useLocation } from 'preact-iso';
import { api, ok } from './client.ts';
import { Dialog } from './components/Dialog.tsx';
import { Icon, type IconName } from './components/Icon.tsx';
import { SignIn } from './components/SignIn.tsx';
import { failed, searchOpen, session, toasts } from './state.ts';

interface Screen {
  path: string;
  label: string;
  icon: IconName;
  component: ComponentType;
}

/** The screens, in the sidebar's order; each is `screens/<folder>/index.tsx`, its code fetched on first visit. */
export const screens: Screen[] = [
  {
    path: '/',
    label: 'Dashboard',
    icon: 'grid',
    component: lazy(() => import('./screens/dashboard/index.tsx')),
  },
  {
    path: '/knowledge',
    label: 'Knowledge',
    icon: 'book',
    component: lazy(() => import('./screens/knowledge/index.tsx')),
  },
  {
    path: '/capture',
    label: 'Capture',
    icon: 'inbox',
    component: lazy(() => import('./screens/capture/index.tsx')),
  },
  {
    path: '/assistant',
    label: 'Assistant',
    icon: 'chat',
    component: lazy(() => import('./screens/assistant/index.tsx')),
  },
  {
    path: '/approvals',
    label: 'Approvals',
    icon: 'check',
    component: lazy(() => import('./screens/approvals/index.tsx')),
  },
  {
    path: '/devices',
    label: 'Devices',
    icon: 'monitor',
    component: lazy(() => import('./screens/devices/index.tsx')),
  },
  {
    path: '/services',
    label: 'Services',
    icon: 'activity',
    component: lazy(() => import('./screens/services/index.tsx')),
  },
  {
    path: '/incidents',
    label: 'Incidents',
    icon: 'activity',
    component: lazy(() => import('./screens/incidents/index.tsx')),
  },
  {
    path: '/timeline',
    label: 'Timeline',
    icon: 'clock',
    component: lazy(() => import('./screens/timeline/index.tsx')),
  },
  {
    path: '/speed',
    label: 'Speed tests',
    icon: 'gauge',
    component: lazy(() => import('./screens/speed/index.tsx')),
  },
  {
    path: '/trash',
    label: 'Trash',
    icon: 'trash',
    component: lazy(() => import('./screens/trash/index.tsx')),
  },
  {
    path: '/settings',
    label: 'Settings',
    icon: 'sliders',
    component: lazy(() => import('./screens/settings/index.tsx')),
  },
];

/** The screen an address belongs to: its own path or one below it (`/knowledge/page/:id`); the dashboard else. */
function screenFor(path: string): Screen {
  return (
    screens.find(
      (screen) => screen.path !== '/' && (path === screen.path || path.startsWith(`${screen.path}/`)),
    ) ?? screens[0]
  );
}

// Links the router handles: the app's own paths. A same-origin link into the API (a file, the API docs) is left
// to the browser.
const appPaths = /^\/(?!api(?:[/?#]|$))/;

const SearchPalette = lazy(() => import('./components/SearchPalette.tsx'));

/** Catches what a screen throws while drawing: an error panel with a retry that draws the screen afresh. Moving to
 * another screen clears it. */
function Failsafe({ at, children }: { at: string; children: ComponentChildren }) {
  const [error, reset] = useErrorBoundary();
  useEffect(() => {
    if (error) reset();
  }, [at]);
  if (!error) return <>{children}</>;
  return (
    <section class="panel failure" role="alert" aria-labelledby="failure-title">
      <h1 id="failure-title">This screen failed</h1>
      <p class="muted">{error instanceof Error ? error.message : String(error)}</p>
      <div>
        <button type="button" class="primary" onClick={reset}>
          <Icon name="refresh" size={15} /> Retry
        </button>
      </div>
    </section>
  );
}

async function signOut() {
  await ok(api.DELETE('/api/session')).catch(failed);
  session.value = { signed_in: false, via: null, expires_at: null };
}

/** The screens' links, search and sign-out: the sidebar on a wide screen, the drawer on a phone. */
function Navigation({ current }: { current: Screen }) {
  return (
    <div class="sidebar-inner">
      <div class="brand">
        <span class="brand-mark" aria-hidden="true" />
        Ops Hub
      </div>
      <ul>
        {screens.map((item) => (
          <li key={item.path}>
            <a href={item.path} aria-current={item === current ? 'page' : undefined}>
              <Icon name={item.icon} />
              {item.label}
            </a>
          </li>
        ))}
      </ul>
      <div class="sidebar-foot">
        <button type="button" class="search-button" onClick={() => (searchOpen.value = true)}>
          <Icon name="search" />
          Search
          <kbd>Ctrl K</kbd>
        </button>
        {session.value?.via === 'session' && (
          <button type="button" class="ghost" onClick={signOut}>
            <Icon name="logout" />
            Sign out
          </button>
        )}
      </div>
    </div>
  );
}

function Shell() {
  const { path, query } = useLocation();
  const screen = screenFor(path);
  const loading = useSignal(false);
  const drawer = useSignal(false);
  // The installed app's Search shortcut opens `/?search=1`.
  useEffect(() => {
    if (query.search === '1') searchOpen.value = true;
  }, []);
  // Opening search from the drawer (or moving to another screen by any way) closes it.
  useEffect(() => {
    drawer.value = false;
  }, [path, searchOpen.value]);
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
        event.preventDefault();
        searchOpen.value = true;
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  useEffect(() => {
    document.title = `${screen.label} · Ops Hub`;
  }, [screen.label]);
  return (
    <div class="shell">
      {/* Below 760 px the sidebar gives way to a top bar whose menu button opens the same navigation as a drawer. */}
      <header class="topbar">
        <button
          type="button"
          class="ghost icon-button"
          aria-label="Menu"
          aria-expanded={drawer.value}
          onClick={() => (drawer.value = true)}
        >
          <Icon name="menu" size={22} />
        </button>
        <span class="topbar-title">{screen.label}</span>
        <button
          type="button"
          class="ghost icon-button"
          aria-label="Search"
          onClick={() => (searchOpen.value = true)}
        >
          <Icon name="search" size={20} />
        </button>
      </header>
      <nav class="sidebar" aria-label="Main">
        <Navigation current={screen} />
      </nav>
      {drawer.value && (
        <Dialog label="Navigation" class="drawer" onClose={() => (drawer.value = false)}>
          {/* A link followed from the drawer closes it, the current screen's own link too. */}
          {/* biome-ignore lint/a11y/useKeyWithClickEvents: the links inside take the keyboard; this only hears their clicks */}
          <nav
            aria-label="Main"
            onClick={(event) => {
              if ((event.target as Element).closest('a')) drawer.value = false;
            }}
          >
            <Navigation current={screen} />
          </nav>
        </Dialog>
      )}
      <main class="content" id="main" aria-busy={loading.value}>
        <Failsafe at={screen.path}>
          <Router onLoadStart={() => (loading.value = true)} onLoadEnd={() => (loading.value = false)}>
            {screens.map((item) => (
              // A screen's own addresses (`/knowledge/page/:id`) are read by the screen from the location.
              <Route
                key={item.path}
                path={item.path === '/' ? '/' : `${item.path}/:rest*`}
                component={item.component}
              />
            ))}
            <Route default component={screens[0].component} />
          </Router>
        </Failsafe>
      </main>
      {searchOpen.value && (
        <Dialog label="Search" class="overlay palette-dialog" onClose={() => (searchOpen.value = false)}>
          <SearchPalette />
        </Dialog>
      )}
    </div>
  );
}

function Toasts() {
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.value.map((t) => (
        <div key={t.id} class={`toast ${t.kind}`}>
          {t.text}
        </div>
      ))}
    </div>
  );
}

// The public status pages (/status/:slug) are for anyone: drawn without the session, the shell or sign-in.
const StatusPage = lazy(() => import('./screens/status/index.tsx'));
const publicPaths = /^\/status\/[^/]+\/?$/;

export function App() {
  if (publicPaths.test(location.pathname)) {
    return (
      // Holds the page while its lazily loaded code arrives.
      <ErrorBoundary>
        <StatusPage />
      </ErrorBoundary>
    );
  }
  return <OwnerApp />;
}

/** Shown when the hub cannot be asked who is signed in: offline, with the shell served by the service worker. */
function Unreachable({ retry }: { retry: () => void }) {
  return (
    <main class="content">
      <section class="panel failure" role="alert" aria-labelledby="unreachable-title">
        <h1 id="unreachable-title">The hub cannot be reached</h1>
        <p class="muted">
          This device is offline or the hub is not answering. Nothing is lost; try again soon.
        </p>
        <div>
          <button type="button" class="primary" onClick={retry}>
            <Icon name="refresh" size={15} /> Try again
          </button>
        </div>
      </section>
    </main>
  );
}

function OwnerApp() {
  const unreachable = useSignal(false);
  const askSession = () => {
    unreachable.value = false;
    ok(api.GET('/api/session')).then(
      (state) => {
        session.value = state;
      },
      (error) => {
        // No answer at all (a network failure) is the device being offline, not a mistake to toast.
        if (error instanceof TypeError) unreachable.value = true;
        else failed(error);
      },
    );
  };
  useEffect(askSession, []);
  const state = session.value;
  return (
    <LocationProvider scope={appPaths}>
      {/* Holds the shell while a lazily loaded part outside the router (the search palette) arrives. */}
      <ErrorBoundary>
        {state === null ? (
          unreachable.value && <Unreachable retry={askSession} />
        ) : state.signed_in ? (
          <Shell />
        ) : (
          <SignIn />
        )}
        <Toasts />
      </ErrorBoundary>
    </LocationProvider>
  );
}
