/** The badge colour of a service state: amber for degraded and warning, which still count as up. */
export const stateBadge: Record<string, string> = {
  up: 'success',
  down: 'danger',
  degraded: 'warning',
  warning: 'warning',
};
