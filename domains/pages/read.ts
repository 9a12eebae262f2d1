// What other domains read of pages (an incident's page), without reaching into the store.
export { findPage } from './store.ts';
