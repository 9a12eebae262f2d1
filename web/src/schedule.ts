// Cron expressions in words, for the screens that show a schedule (the hub's backups, routines): the common shapes
// (every minute, every N minutes, hourly, daily, on some weekdays, monthly, at a time) read as a phrase; any other
// expression is shown as written. The server checks the expressions (graphile-worker's cron syntax): this only
// describes them.
const weekdays = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The field as a whole number within `min`..`max`, or null. */
function whole(field: string, min: number, max: number): number | null {
  if (!/^\d{1,2}$/.test(field)) return null;
  const value = Number(field);
  return value >= min && value <= max ? value : null;
}

/** "Monday", "Monday, Friday", "Monday to Friday"; null for a field this does not describe. */
function days(field: string): string | null {
  const range = /^(\d)-(\d)$/.exec(field);
  if (range) {
    const [from, to] = [whole(range[1], 0, 7), whole(range[2], 0, 7)];
    return from !== null && to !== null && from < to ? `${weekdays[from % 7]} to ${weekdays[to % 7]}` : null;
  }
  const listed = field.split(',').map((day) => whole(day, 0, 7));
  return listed.every((day) => day !== null) ? listed.map((day) => weekdays[day % 7]).join(', ') : null;
}

export function describeSchedule(cron: string): string {
  const fields = cron.trim().split(/\s+/);
  if (fields.length !== 5) return cron;
  const [minute, hour, day, month, weekday] = fields;
  if (month !== '*') return cron;
  const m = whole(minute, 0, 59);
  const h = whole(hour, 0, 23);
  const at =
    m !== null && h !== null ? `at ${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}` : null;
  if (day === '*' && weekday === '*') {
    if (hour === '*') {
      if (minute === '*' || minute === '*/1') return 'every minute';
      const step = /^\*\/(\d{1,2})$/.exec(minute);
      if (step && Number(step[1]) > 1 && Number(step[1]) < 60) return `every ${Number(step[1])} minutes`;
      if (m !== null) return `every hour at minute ${m}`;
      return cron;
    }
    return at ? `every day ${at}` : cron;
  }
  if (!at) return cron;
  if (day === '*') {
    const named = days(weekday);
    return named ? `every ${named} ${at}` : cron;
  }
  const date = whole(day, 1, 31);
  return weekday === '*' && date !== null ? `on day ${date} of every month ${at}` : cron;
}

/** The phrase with the expression after it ("every day at 03:00 (0 3 * * *)"), or the expression alone. */
export function scheduleLabel(cron: string): string {
  const words = describeSchedule(cron);
  return words === cron ? cron : `${words} (${cron.trim()})`;
}
