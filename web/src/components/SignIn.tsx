import { useSignal } from '@preact/signals';
import { api, ok } from '../client.ts';
import { session } from '../state.ts';

export function SignIn() {
  const token = useSignal('');
  const error = useSignal('');
  const busy = useSignal(false);
  async function submit(event: Event) {
    event.preventDefault();
    busy.value = true;
    error.value = '';
    try {
      session.value = await ok(api.POST('/api/session', { body: { token: token.value.trim() } }));
    } catch (failure) {
      error.value = (failure as Error).message;
    } finally {
      busy.value = false;
    }
  }
  return (
    <main class="signin">
      <form class="signin-card" onSubmit={submit}>
        <div class="brand">
          <span class="brand-mark" aria-hidden="true" />
          Ops Hub
        </div>
        <h1>Sign in</h1>
        <p class="muted">Paste the owner token once; this browser then keeps a session.</p>
        <label>
          Owner token
          <input
            type="password"
            name="token"
            autoComplete="current-password"
            value={token.value}
            onInput={(event) => (token.value = event.currentTarget.value)}
            required
          />
        </label>
        {error.value && (
          <p class="error" role="alert">
            {error.value}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy.value || token.value === ''}>
          Sign in
        </button>
      </form>
    </main>
  );
}
