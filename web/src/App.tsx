// The shell: sign-in when needed, else the navigation, the current screen (each loaded on demand), the search
// palette (Ctrl-K from anywhere) and the toasts.
import { useSignal } from '@preact/signals';
import type { ComponentType } from 'preact';
import { useEffect } from 'preact/hooks';
import { api, ok } from './client.ts';
import { AppLink } from './components/AppLink.tsx';
import { Icon, type IconName } from './components/Icon.tsx';
import { SignIn } from './components/SignIn.tsx';
import { failed, path, searchOpen, session, toasts } from './state.ts';

type Loader = () => Promise<{ default: ComponentType }>;

interface Screen {
  path: string;
  label: string;
  icon: IconName;
  load: Loader;
}

export const screens: Screen[] = [
  { path: '/', label: 'Dashboard', icon: 'grid', load: () => import('./screens/Dashboard.tsx') },
  { path: '/knowledge', label: 'Knowledge', icon: 'book', load: () => import('./screens/Knowledge.tsx') },
  { path: '/capture', label: 'Capture', icon: 'inbox', load: () => import('./screens/Capture.tsx') },
  { path: '/assistant', label: 'Assistant', icon: 'chat', load: () => import('./screens/Assistant.tsx') },
  { path: '/approvals', label: 'Approvals', icon: 'check', load: () => import('./screens/Approvals.tsx') },
  { path: '/devices', label: 'Devices', icon: 'monitor', load: () => import('./screens/Devices.tsx') },
  { path: '/services', label: 'Services', icon: 'activity', load: () => import('./screens/Services.tsx') },
  { path: '/speed', label: 'Speed tests', icon: 'gauge', load: () => import('./screens/Speed.tsx') },
  { path: '/settings', label: 'Settings', icon: 'sliders', load: () => import('./screens/Settings.tsx') },
];

function screenFor(current: string): Screen {
  return (
    screens.find(
      (screen) => screen.path !== '/' && (current === screen.path || current.startsWith(`${screen.path}/`)),
    ) ?? screens[0]
  );
}

const loaded = new Map<string, ComponentType>();

/** A component whose code is fetched the first time it is shown. */
function Lazy({ id, load }: { id: string; load: Loader }) {
  const component = useSignal<ComponentType | null>(loaded.get(id) ?? null);
  useEffect(() => {
    if (loaded.has(id)) {
      component.value = loaded.get(id)!;
      return;
    }
    component.value = null;
    let live = true;
    load().then((module) => {
      loaded.set(id, module.default);
      if (live) component.value = module.default;
    }, failed);
    return () => {
      live = false;
    };
  }, [id]);
  const Component = component.value;
  return Component ? <Component /> : <div class="loading" aria-busy="true" />;
}

const loadPalette: Loader = () => import('./components/SearchPalette.tsx');

async function signOut() {
  await ok(api.DELETE('/api/session')).catch(failed);
  session.value = { signed_in: false, via: null, expires_at: null };
}

function Shell() {
  const screen = screenFor(path.value);
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
      <nav class="sidebar" aria-label="Main">
        <div class="sidebar-inner">
          <div class="brand">
            <span class="brand-mark" aria-hidden="true" />
            Ops Hub
          </div>
          <ul>
            {screens.map((item) => (
              <li key={item.path}>
                <AppLink href={item.path} current={item === screen ? 'page' : undefined}>
                  <Icon name={item.icon} />
                  {item.label}
                </AppLink>
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
      </nav>
      <main class="content" id="main">
        <Lazy id={screen.path} load={screen.load} />
      </main>
      {searchOpen.value && <Lazy id="search" load={loadPalette} />}
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

export function App() {
  useEffect(() => {
    ok(api.GET('/api/session')).then((state) => {
      session.value = state;
    }, failed);
  }, []);
  const state = session.value;
  return (
    <>
      {state === null ? null : state.signed_in ? <Shell /> : <SignIn />}
      <Toasts />
    </>
  );
}
