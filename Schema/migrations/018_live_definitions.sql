-- 018 · Drift: what migrate applied, as the database holds it.
--
-- schema_objects records the checksum of each file migrate applied, not what the database
-- runs: a function replaced by hand (CREATE OR REPLACE in psql) kept its file's checksum, so
-- migrate saw nothing to do and workers ran the hand-made version. Migrate now records a hash
-- of each function's and view's live definition (pg_get_functiondef, pg_get_viewdef) once
-- it has applied them; `actiond migrate --check` and readiness compare the live ones with it
-- (schema_drift), and `actiond migrate` applies this build's definitions again when they
-- differ.
create table actiond.schema_definitions (
    object text primary key,
    hash   text not null
);
comment on table actiond.schema_definitions is
    'Each function''s and view''s live definition (its SHA-256) as migrate left it: what schema_drift compares with.';
