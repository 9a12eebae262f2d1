-- A paused service: its checks stopped by the owner, shown grey, counted neither up nor down.
alter table monitored_services drop constraint monitored_services_state_check;
alter table monitored_services add constraint monitored_services_state_check
  check (state in ('up', 'down', 'degraded', 'warning', 'pending', 'unknown', 'paused'));
