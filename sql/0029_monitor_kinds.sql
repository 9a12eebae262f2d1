-- More kinds of check (ping, DNS, certificates), the http check's method, headers, body and JSON query, a slowness
-- threshold for every kind, and two more states: degraded (slower than slow_ms, still up) and warning (a
-- certificate about to expire). What a check found beyond pass or fail (packets and loss, DNS answers, the
-- certificate) is kept with each result and, for the last one, with the service.
alter table monitored_services drop constraint monitored_services_kind_check;
alter table monitored_services add constraint monitored_services_kind_check
  check (kind in ('http', 'tcp', 'ping', 'dns', 'tls'));
alter table monitored_services drop constraint monitored_services_state_check;
alter table monitored_services add constraint monitored_services_state_check
  check (state in ('up', 'down', 'degraded', 'warning', 'pending', 'unknown'));

alter table monitored_services
  add column method text not null default 'GET',
  -- Request headers may carry an API token: write-only in the API, like basic-auth credentials.
  add column headers jsonb,
  add column body text,
  add column json_query jsonb,
  add column packets integer check (packets between 1 and 10),
  add column dns_name text,
  add column dns_type text check (dns_type in ('A', 'AAAA', 'CNAME', 'MX', 'TXT', 'NS', 'PTR', 'SRV')),
  add column expect text,
  add column warn_days integer check (warn_days between 1 and 365),
  add column slow_ms integer check (slow_ms > 0),
  add column details jsonb;

alter table health_results add column details jsonb;
