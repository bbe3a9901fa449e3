-- submit on a distributed database: the batch path for one event (submit_many). The one-event
-- path (functions/submit.sql) writes the log with plain statements that Citus would route
-- through its own machinery once per statement; submit_many's statements are written for it.
-- {"status":"accepted"|"duplicate","position":N}, or an error with SQLSTATE class 22 or 23
-- naming the field.
create function actiond.submit(event jsonb) returns jsonb
language plpgsql volatile
-- Runs as its owner (SECURITY.md): callers are granted EXECUTE on it, not the tables.
security definer set search_path = actiond, pg_temp
as $$
declare
    result record;
begin
    select * into result from actiond.submit_many(array[event]);
    if result.status = 'refused' then
        raise exception using errcode = result.error_code, message = result.error_message;
    end if;
    return jsonb_build_object('status', result.status, 'position', result.position);
end
$$;

comment on function actiond.submit(jsonb) is
    'Submit one event in the caller''s transaction: {"status":"accepted"|"duplicate","position":N}, or an error naming the field.';
