-- A health check's basic-auth password is kept sealed under the hub's secret key (as the integrations' secrets are):
-- `basic_auth_sealed` holds it. SQL cannot encrypt with that key, so passwords stored before in
-- `basic_auth_password` are sealed by the hub at start (domains/health/credentials.ts), which then clears them.
alter table monitored_services add column basic_auth_sealed text;

-- The latest test of an integration the environment sets (it has no row in `integrations`, and gets none, so unsetting
-- the variables leaves it unconfigured rather than stored).
create table integration_environment_tests (
  kind text primary key check (kind ~ '^[a-z][a-z0-9_-]{0,39}$'),
  last_test jsonb not null,
  updated_at timestamptz not null default now()
);
