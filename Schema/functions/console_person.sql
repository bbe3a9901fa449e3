-- What the console's person page says of one user (actiond_reader): forgotten or not (actiond
-- forget), paused (their own pause, and everyone's), their stash (how many, the oldest's
-- age), their events in the log (counted up to 100,001: the page says "over 100,000"), and
-- their dead letters. Each by the user's key.
create function actiond.console_person(of_user text)
returns table (user_id text, forgotten boolean, paused boolean, everyone_paused boolean, stashed bigint,
               stash_oldest_age_seconds double precision, events bigint, dead bigint)
language plpgsql stable
security definer set search_path = actiond, pg_temp
as $$
#variable_conflict use_variable
declare
    who constant text := of_user;
begin
    return query select
        who,
        exists (select 1 from actiond.forgotten_users f where f.user_id = who),
        exists (select 1 from actiond.pauses p where p.user_id = who),
        exists (select 1 from actiond.pauses p where p.user_id = ''),
        (select count(*) from actiond.stash s where s.user_id = who),
        (select extract(epoch from now() - min(s.stashed_at))::double precision from actiond.stash s where s.user_id = who),
        (select count(*) from (select 1 from actiond.events e where e.user_id = who limit 100001) l),
        (select count(*) from actiond.outcomes o where o.user_id = who and o.outcome = 'dead' and o.discarded_at is null);
end
$$;
