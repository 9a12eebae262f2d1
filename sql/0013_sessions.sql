-- Browser sessions of the owner: the cookie carries a random secret, the hub keeps only its SHA-256, so a copy of
-- the database signs no one in. Each session ends at expires_at (or when the owner signs out).
create table browser_sessions (
  id uuid primary key default gen_random_uuid(),
  secret_hash bytea not null unique,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);

create index browser_sessions_expires_at on browser_sessions (expires_at);
