// What app.ts hands plugins/auth.ts from this domain: the agent a bearer token belongs to.
export { findTokenOwner } from './store.ts';
