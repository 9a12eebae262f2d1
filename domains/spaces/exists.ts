// Whether a space exists, for the domains that write into one (entity writes check the space a payload names).
export { spaceExists } from './store.ts';
