/** The badge colour of a service state: amber for degraded and warning, which still count as up. */
export const stateBadge: Record<string, string> = {
  up: 'success',
  down: 'danger',
  degraded: 'warning',
  warning: 'warning',
};

/** An uptime share in per cent to one decimal ("99.3%", "100%"), or a dash for a period without checks. */
export function uptimeText(value: number | null): string {
  return value === null ? '—' : `${Number(value.toFixed(1))}%`;
}
