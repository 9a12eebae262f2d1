-- A health check's basic-auth credentials, kept apart from its URL: the URL is shown (agents read the registry), the
-- credentials only go with the check's own request. Credentials already stored inside a URL
-- (`http://user:pass@nas/`) are moved out of it here, and a URL can no longer hold any.
alter table monitored_services
  add column basic_auth_username text,
  add column basic_auth_password text;

-- The URL parser percent-encodes user-info; the check sends it decoded. Text that does not decode is kept as it is.
create function pg_temp.percent_decoded(value text) returns text language plpgsql immutable as $$
declare
  bytes bytea := ''::bytea;
  i integer := 1;
begin
  while i <= length(value) loop
    if substr(value, i, 3) ~ '^%[0-9A-Fa-f]{2}$' then
      bytes := bytes || decode(substr(value, i + 1, 2), 'hex');
      i := i + 3;
    else
      bytes := bytes || convert_to(substr(value, i, 1), 'UTF8');
      i := i + 1;
    end if;
  end loop;
  return convert_from(bytes, 'UTF8');
exception when others then
  return value;
end $$;

with stored as (
  select id, substring(url from '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)@') as userinfo
  from monitored_services
  where url ~ '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@'
)
update monitored_services s set
  url = regexp_replace(s.url, '^([A-Za-z][A-Za-z0-9+.-]*://)[^/?#]*@', '\1'),
  basic_auth_username = pg_temp.percent_decoded(split_part(stored.userinfo, ':', 1)),
  basic_auth_password = pg_temp.percent_decoded(
    case when strpos(stored.userinfo, ':') > 0 then substr(stored.userinfo, strpos(stored.userinfo, ':') + 1)
         else '' end)
from stored
where s.id = stored.id;

alter table monitored_services
  add constraint monitored_services_url_without_credentials
  check (url is null or url !~ '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@');
