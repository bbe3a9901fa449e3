-- Whether workers leave a user's events alone: everyone is paused, or this user is.
-- Two primary-key probes into a table of a few rows; inlined into the statements that call it.
create function actiond.is_paused(user_id text) returns boolean
language sql stable
as $$
    select exists (select from actiond.pauses p where p.user_id in (is_paused.user_id, ''))
$$;
