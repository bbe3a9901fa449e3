-- Publishes the intake public key of a worker's key file (at start). A key published for the
-- first time becomes the current one (a new key file after a rotation); publishing a known
-- key again changes nothing.
create function actiond.publish_intake_key(kid text, document jsonb)
returns void
language sql volatile
security definer set search_path = actiond, pg_temp
as $$
    insert into actiond.intake_keys (kid, document) values (kid, document)
    on conflict do nothing
$$;
