-- Integrations the owner configures in the browser: one row per kind (weather, proxmox, shlink ...). `fields` holds
-- the values that are not secret; `secrets` maps a field name to its value sealed with AES-256-GCM (lib/secrets.ts),
-- so the database alone never reveals a secret. `last_test` is the outcome of the latest upstream test.
create table integrations (
  kind text primary key check (kind ~ '^[a-z][a-z0-9_-]{0,39}$'),
  fields jsonb not null default '{}'::jsonb check (jsonb_typeof(fields) = 'object'),
  secrets jsonb not null default '{}'::jsonb check (jsonb_typeof(secrets) = 'object'),
  last_test jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
