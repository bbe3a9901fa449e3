#!/bin/sh
# Runs once, on the database's first start (the postgres image runs /docker-entrypoint-initdb.d),
# as the superuser. Makes the logins and the group roles they belong to; `actiond migrate`
# later finds the group roles and grants them what SECURITY.md says. Passwords from .env.
#   worker    actiond_worker: the workers
#   console   actiond_reader and actiond_operator: the web console
#   producer  actiond_producer: submit, nothing else (your backend's login)
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
     -v worker_password="$ACTIOND_WORKER_PASSWORD" -v console_password="$ACTIOND_CONSOLE_PASSWORD" \
     -v producer_password="$ACTIOND_PRODUCER_PASSWORD" <<'SQL'
create role actiond_worker nologin;
create role actiond_reader nologin;
create role actiond_operator nologin;
create role actiond_producer nologin;
create role worker login password :'worker_password' in role actiond_worker;
create role console login password :'console_password' in role actiond_reader, actiond_operator;
create role producer login password :'producer_password' in role actiond_producer;
SQL
