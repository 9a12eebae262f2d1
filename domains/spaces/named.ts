// A space the hub keeps by name (made on first use), for the domains that write into one of their own.
export { ensureSpaceNamed } from './store.ts';
