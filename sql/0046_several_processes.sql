-- Several hub processes on one database. Request rate limits (an agent's requests a minute, a push token's
-- heartbeats) are counted here, so every API process holds the same count. One row per limited key in its current
-- fixed window. The key is a SHA-256 digest (a push token is a secret). Unlogged: a count lost with a crash only
-- starts its window afresh, and the hot counter writes no WAL.
create unlogged table rate_limit_windows (
  key_digest bytea primary key check (length(key_digest) = 32),
  hits integer not null default 1 check (hits >= 1),
  ends_at timestamptz not null
);
create index rate_limit_windows_ends_idx on rate_limit_windows (ends_at);

-- A backup run reported to one API process reaches the dashboard streams of every process: the card is announced
-- like the others (0022) rather than only published in the process that took the request.
create trigger backup_runs_card_changed after insert or update or delete on backup_runs
  for each statement execute function notify_card_changed('backups');
