-- The web console's person page (actiond_reader): one row for user_id, read by that user's
-- key in each table, never beyond it: forgotten (actiond forget destroyed their keys at
-- least once: a fence in forgotten_users, kept after --allow-new-key), paused (their own
-- pause), everyone_paused (a pause of everyone holds them too), stashed (changes waiting in
-- the stash for their protected data) and the oldest one's age, events (theirs in the log,
-- counted by the log's key, user_id first) and dead (their dead letters, not discarded). A
-- missing or empty user_id is refused (22023). Counts only: never protected text.
create function actiond.console_person(user_id text)
returns setof actiond.console_person_row
language plpgsql stable
security definer set search_path = actiond, pg_temp
-- Without JIT: its statements read a bounded number of rows by key, and compiling them
-- (the planner's cost counts every partition) took longer than running them (docs/console.md).
set jit = off
as $$
declare
    person actiond.console_person_row;
begin
    if coalesce(console_person.user_id, '') = '' then
        raise exception 'user_id: must name a user'
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    -- One statement per table, each by the user's key (on Citus each goes to the user's shard).
    person.user_id := console_person.user_id;
    person.forgotten := exists (select 1 from actiond.forgotten_users f where f.user_id = console_person.user_id);
    person.paused := exists (select 1 from actiond.pauses p where p.user_id = console_person.user_id);
    person.everyone_paused := exists (select 1 from actiond.pauses p where p.user_id = '');
    select count(*), round(extract(epoch from now() - min(s.stashed_at))::numeric, 3)
    into person.stashed, person.stash_oldest_age_seconds
    from actiond.stash s where s.user_id = console_person.user_id;
    select count(*) into person.events from actiond.events e where e.user_id = console_person.user_id;
    select count(*) into person.dead
    from actiond.outcomes o
    where o.user_id = console_person.user_id and o.outcome = 'dead' and o.discarded_at is null;
    return next person;
end
$$;
