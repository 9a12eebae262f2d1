-- A health check's basic-auth password is kept sealed under the hub's secret key (as the integrations' secrets are):
-- `basic_auth_sealed` holds it. SQL cannot encrypt with that key, so passwords stored before in
-- `basic_auth_password` are sealed by the hub at start (domains/health/credentials.ts), which then clears them.
alter table monitored_services add column basic_auth_sealed text;
