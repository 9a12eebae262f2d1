-- The dashboard's live cards and the capture inbox.

-- Card data written anywhere (an HTTP request, a job in the separate worker process, a script with psql) is
-- announced on the `card_changed` channel with the card type as payload; the dashboard stream reads that card's
-- data again at once (lib/card-bus.ts). Statement-level: a write of many rows is one announcement, and PostgreSQL
-- folds identical announcements of one transaction into one, sent at commit.
create function notify_card_changed() returns trigger language plpgsql as $$
begin
  perform pg_notify('card_changed', tg_argv[0]);
  return null;
end $$;

create trigger speedtest_results_card_changed after insert or update or delete on speedtest_results
  for each statement execute function notify_card_changed('speedtest');
-- Every check writes the service's cached state, so this covers results as well as edits of the registry.
create trigger monitored_services_card_changed after insert or update or delete on monitored_services
  for each statement execute function notify_card_changed('health');
create trigger ai_usage_records_card_changed after insert or update or delete on ai_usage_records
  for each statement execute function notify_card_changed('ai-usage');

-- A failed capture whose job is retried (POST /api/jobs/:id/retry) waits again: the inbox shows it queued, not
-- failed with the old error, until the new attempt completes or fails.
create function requeue_capture_of_retried_job() returns trigger language plpgsql as $$
begin
  update captures set state = 'queued', error = null, updated_at = now()
  where job_id = new.id and state = 'failed';
  return null;
end $$;
create trigger job_records_requeue_capture after update of state on job_records
  for each row when (old.state = 'failed' and new.state = 'queued')
  execute function requeue_capture_of_retried_job();

-- GET /api/captures lists newest first.
create index captures_created_idx on captures (created_at desc, id desc);
