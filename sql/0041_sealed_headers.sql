-- An http check's request headers sealed at rest: each value sealed under the hub's secret key (bound to its
-- service and header name), the names readable. The key is not in the database, so values stored in plaintext in
-- `headers` are moved here at start (or by the first round of checks that meets them), not by this migration.
alter table monitored_services add column headers_sealed jsonb;
