-- Safe by default: guessing throttled per client address, browser sessions bound to the owner token they were made
-- with, turn tokens bound to their conversation, disabled agents' tokens revoked for good, and identities unique per
-- space (so a conflict never reveals another space's row).

-- Failed sign-ins and wrong bearer tokens of one client address (an IPv6 /64) in its current 10-minute window. Kept
-- here rather than in a process's memory, so every process counts the same failures.
create table auth_failures (
  address text primary key check (length(address) between 1 and 100),
  window_started_at timestamptz not null default now(),
  failures integer not null default 1 check (failures >= 0),
  -- The window's first refusal is logged; the rest are not.
  refusal_logged boolean not null default false
);
create index auth_failures_window_idx on auth_failures (window_started_at);

-- A session lives only while the owner token it was made with is the owner token: owner_digest is a slow digest of
-- that token (lib/secrets.ts ownerTokenDigest). Sessions made before this migration cannot be bound, so they end.
delete from browser_sessions;
alter table browser_sessions
  add column owner_digest bytea not null,
  add column last_used_at timestamptz not null default now(),
  add column address text check (length(address) <= 100),
  add column user_agent text check (length(user_agent) <= 500);

-- A turn token belongs to the conversation it was minted for: the only messages its agent may find in search.
alter table agent_tokens add column conversation_id uuid references conversations (id) on delete cascade;

-- Disabling an agent revokes its tokens for good; agents disabled before now lose theirs too.
update agent_tokens t set revoked_at = now()
from agents a
where a.id = t.agent_id and a.status = 'disabled' and t.revoked_at is null;

-- Identities are unique per space: the same ref or capture key in two spaces is two rows.
alter table refs drop constraint refs_identity_key;
alter table refs add constraint refs_identity_key unique (space_id, source, external_id);
alter table captures drop constraint captures_idempotency_key_key;
alter table captures add constraint captures_space_idempotency_key unique (space_id, idempotency_key);
-- Both keys lead with space_id, so they serve the by-space lookups the plain space indexes did.
drop index refs_space_idx;
drop index captures_space_idx;
