-- The public key producers seal protected text to (HPKE, docs/events.md, "Protected text"):
-- the most recently published one, as a JSON document; null before any worker published one.
create function actiond.intake_public_key()
returns jsonb
language sql stable
security definer set search_path = actiond, pg_temp
as $$
    select k.document from actiond.intake_keys k order by k.published_at desc, k.kid limit 1
$$;

comment on function actiond.intake_public_key() is
    'The intake public key (HPKE X25519) to seal data.text and alert text to before submit; see docs/events.md.';
