import './app.css';
import { render } from 'preact';
import { App } from './App.tsx';

render(<App />, document.getElementById('app')!);

// The service worker keeps the shell for offline use (web/public/sw.js); the app works the same without it.
if ('serviceWorker' in navigator) {
  navigator.serviceWorker.register('/sw.js').catch((error) => console.warn('no offline shell:', error));
}
