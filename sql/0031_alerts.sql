-- Alerts: where they go (targets), which go where (rules), what was raised (alerts) and what each target answered
-- (deliveries). A target's secrets are sealed (AES-256-GCM, kind and field as associated data) before they get here.
create table alert_targets (
  id uuid primary key default gen_random_uuid(),
  name text not null check (length(name) between 1 and 200),
  kind text not null check (kind in ('ntfy', 'gotify', 'webhook', 'apprise', 'email')),
  fields jsonb not null default '{}',
  secrets jsonb not null default '{}',
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- An empty `targets` is every target (the default rule's way of reaching targets added later).
create table alert_rules (
  id uuid primary key default gen_random_uuid(),
  name text not null default '',
  events text[] not null,
  filter jsonb not null default '{}',
  targets uuid[] not null default '{}',
  repeat_minutes integer check (repeat_minutes between 1 and 10080),
  quiet_hours jsonb,
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

insert into alert_rules (name, events, filter, targets)
values ('Everything at priority 4 or above, to every target', '{*}', '{"min_priority": 4}', '{}');

-- `subject` names what a problem is about (service:<id>): a later alert on the same subject ends it (`resolved_at`),
-- and only an open problem repeats. `suppressed` says why an alert was recorded but sent nowhere (maintenance ...).
create table alerts (
  id uuid primary key default gen_random_uuid(),
  event text not null,
  title text not null,
  message text not null default '',
  priority smallint not null default 3 check (priority between 1 and 5),
  tags text[] not null default '{}',
  link text,
  data jsonb not null default '{}',
  actions jsonb not null default '[]',
  subject text,
  resolves boolean not null default false,
  resolved_at timestamptz,
  suppressed text,
  created_at timestamptz not null default now()
);
create index alerts_open on alerts (subject) where subject is not null and resolved_at is null and not resolves;

-- target_id is null for the environment's target (ALERT_URL) and after the target is deleted; its name and kind stay.
create table alert_deliveries (
  id uuid primary key default gen_random_uuid(),
  alert_id uuid not null references alerts (id) on delete cascade,
  rule_id uuid references alert_rules (id) on delete set null,
  target_id uuid references alert_targets (id) on delete set null,
  target_name text not null,
  target_kind text not null,
  repeat integer not null default 0,
  status text not null default 'queued' check (status in ('queued', 'retrying', 'sent', 'failed', 'quiet')),
  attempts integer not null default 0,
  answer_status integer,
  answer text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  sent_at timestamptz
);
create index alert_deliveries_recent on alert_deliveries (created_at desc, id);
create index alert_deliveries_of_alert on alert_deliveries (alert_id, rule_id);
