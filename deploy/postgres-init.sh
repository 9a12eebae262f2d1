#!/bin/sh
# Run once by the postgres image when it initialises an empty data directory (docker-entrypoint-initdb.d): the
# hub's own login role, without superuser rights (the hub refuses to run as a superuser), and a database it owns.
set -eu
: "${HUB_DB_PASSWORD:?set HUB_DB_PASSWORD}"
hub_db_user="${HUB_DB_USER:-hub}"
hub_db_name="${HUB_DB_NAME:-hub}"

# psql quotes the variables (:"name" as an identifier, :'name' as a literal), so no value is spliced into SQL.
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  --set=hub_user="$hub_db_user" --set=hub_name="$hub_db_name" --set=hub_password="$HUB_DB_PASSWORD" <<'SQL'
create role :"hub_user" login nosuperuser nocreatedb nocreaterole noreplication password :'hub_password';
create database :"hub_name" owner :"hub_user";
revoke all on database :"hub_name" from public;
SQL
