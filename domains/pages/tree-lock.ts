// What other domains need of the page tree: its lock (the trash takes it before it takes or puts back pages).
export { lockPageTree } from './store.ts';
