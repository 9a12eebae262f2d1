// The web app's cron phrases (web/src/schedule.ts): the common shapes read as words, anything else as written.
import t from 'tap';
import { describeSchedule, scheduleLabel } from '../../web/src/schedule.ts';

t.test('common shapes are described', async (t) => {
  const cases: [string, string][] = [
    ['* * * * *', 'every minute'],
    ['*/1 * * * *', 'every minute'],
    ['*/15 * * * *', 'every 15 minutes'],
    ['5 * * * *', 'every hour at minute 5'],
    ['0 3 * * *', 'every day at 03:00'],
    ['30 7 * * 1', 'every Monday at 07:30'],
    ['0 8 * * 1,5', 'every Monday, Friday at 08:00'],
    ['0 8 * * 1-5', 'every Monday to Friday at 08:00'],
    ['0 22 * * 7', 'every Sunday at 22:00'],
    ['15 4 1 * *', 'on day 1 of every month at 04:15'],
    ['  0   3 * * *  ', 'every day at 03:00'],
  ];
  for (const [cron, words] of cases) t.equal(describeSchedule(cron), words, cron);
});

t.test('anything else is shown as written', async (t) => {
  for (const cron of [
    '0 3 * 1 *', // a month
    '0 */2 * * *', // an hour step
    '0 3 1 * 1', // a day of the month and of the week
    '0 3 * * MON', // a weekday by name
    '0 3 * * 5-1', // a range backwards
    '61 3 * * *', // out of range
    '0 24 * * *',
    '0 3 0 * *',
    '*/60 * * * *',
    '0 3 * *', // four fields
    '@daily',
  ]) {
    t.equal(describeSchedule(cron), cron, cron);
  }
});

t.test('a label gives the phrase and the expression, or the expression alone', async (t) => {
  t.equal(scheduleLabel('0 3 * * *'), 'every day at 03:00 (0 3 * * *)');
  t.equal(scheduleLabel('0 3 * 1 *'), '0 3 * 1 *');
});
