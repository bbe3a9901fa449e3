#!/bin/sh
# Runs once, on the database's first start (the postgres image runs /docker-entrypoint-initdb.d),
# as the superuser. Makes the workers' login role in actiond_worker; `actiond migrate` later
# finds the group role and grants it what SECURITY.md says. The password comes from .env.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
     -v worker_password="$ACTIOND_WORKER_PASSWORD" <<'SQL'
create role actiond_worker nologin;
create role worker login password :'worker_password' in role actiond_worker;
SQL
