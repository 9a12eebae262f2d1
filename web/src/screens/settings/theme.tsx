// Settings → Theme: the 12 colours, previewed live as they are picked, saved or reset to the defaults.
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, ok } from '../../client.ts';
import { useData } from '../../data.ts';
import { failed, toast } from '../../state.ts';

type Palette = Record<string, string>;

const cssName = (name: string) => `--${name.replaceAll('_', '-')}`;
const label = (name: string) => name.replace('_', ' ');

function preview(palette: Palette) {
  for (const [name, value] of Object.entries(palette))
    document.documentElement.style.setProperty(cssName(name), value);
}

export function Theme() {
  const theme = useData(() => ok(api.GET('/api/theme')));
  const saved = (theme.data?.palette ?? {}) as Palette;
  // The colours picked and not saved yet.
  const picked = useSignal<Palette>({});
  const palette = { ...saved, ...picked.value };
  // Leaving unsaved changes behind restores what the hub has.
  useEffect(() => () => document.documentElement.removeAttribute('style'), []);
  function set(name: string, value: string) {
    picked.value = { ...picked.value, [name]: value };
    preview({ ...saved, ...picked.value });
  }
  async function save() {
    const changed = Object.fromEntries(Object.entries(palette).filter(([k, v]) => saved[k] !== v));
    const answer = await ok(api.POST('/api/theme', { body: changed })).catch(failed);
    if (!answer) return;
    theme.set(answer);
    picked.value = {};
    toast('Theme saved', 'success');
  }
  async function reset() {
    const answer = await ok(api.DELETE('/api/theme')).catch(failed);
    if (!answer) return;
    theme.set(answer);
    picked.value = {};
    preview(answer.palette as Palette);
    toast('Theme reset to the defaults', 'success');
  }
  const dirty = Object.entries(palette).some(([k, v]) => saved[k] !== v);
  return (
    <section class="panel" aria-label="Theme">
      <div class="panel-head">
        <h2>Theme</h2>
        <button type="button" class="ghost" onClick={reset}>
          Reset
        </button>
        <button type="button" class="primary" disabled={!dirty} onClick={save}>
          Save theme
        </button>
      </div>
      <div class="swatches">
        {Object.entries(palette).map(([name, value]) => (
          <label key={name} class="swatch">
            <input
              type="color"
              value={value}
              onInput={(e) => set(name, e.currentTarget.value)}
              aria-label={label(name)}
            />
            <span>
              {label(name)}
              <code>{value}</code>
            </span>
          </label>
        ))}
      </div>
    </section>
  );
}
