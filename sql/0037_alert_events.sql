-- Devices the owner watches: absent from scans for the alerts setting's device_offline_minutes, a device.offline
-- alert goes out, and its return resolves it. Not an owner-set field (scans never touch it anyway).
alter table lan_devices add column watch boolean not null default false;

-- Host figures (CPU, memory, a disk) at or over their alert threshold, and since when: host.threshold goes out once
-- one has stayed over for the alerts setting's host_minutes. A figure back under its threshold loses its row.
create table host_threshold_breaches (
  metric text primary key check (length(metric) between 1 and 300),
  over_since timestamptz not null,
  value real not null
);
