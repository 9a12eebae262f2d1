-- Docker discovery: the app candidates the `docker.sync` task finds in the containers' labels (Homepage's
-- `homepage.*`, or a Traefik router's Host rule), with the container's state. A candidate is named by `key` (its
-- compose service, else its container name) so a re-created container is the same candidate. Promoting one creates an
-- app (`app_id`); the sync then keeps only the container's state current, never the app the owner may have edited.
-- A dismissed candidate stays dismissed across syncs.
create table docker_candidates (
  id uuid primary key default gen_random_uuid(),
  key text not null unique check (length(key) between 1 and 600),
  container_id text not null,
  container_name text not null,
  image text not null default '',
  source text not null check (source in ('homepage', 'traefik')),
  -- What the labels propose for the app.
  name text not null check (length(name) between 1 and 200),
  href text not null check (href ~ '^https?://'),
  description text not null default '',
  group_name text check (length(group_name) between 1 and 100),
  icon text,
  -- Docker's State (running, exited ...), or 'removed' once the container is gone from the daemon's list; health
  -- from its health check (null without one).
  state text not null,
  health text check (health in ('healthy', 'unhealthy', 'starting')),
  app_id uuid references apps (id) on delete set null,
  dismissed_at timestamptz,
  seen_at timestamptz not null default now(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index docker_candidates_app_idx on docker_candidates (app_id) where app_id is not null;
