-- The data keys a worker's batch stores (commit_batch's `keys`), checked before any is
-- written, on one server and on Citus alike: each for a user the batch claimed, none wrapped
-- only under a retired KEK, none for a user forgotten meanwhile. Raises, failing the batch
-- (retried), on the first that is not.
create function actiond.check_batch_keys(keys jsonb, users text[]) returns void
language plpgsql volatile as $$
declare
    key_users text[];
begin
    -- Only for the batch's own users (claimed: their waiting_users rows, locked by the
    -- claim in this transaction, are there until the batch commits): a worker
    -- login stores no key, a damaged one say, for a user it never claimed.
    key_users := array(select distinct k.value ->> 'user' from jsonb_array_elements(keys) k);
    if not (key_users <@ users)
       or cardinality(key_users) <> (select count(*) from actiond.waiting_users u where u.user_id = any(key_users)) then
        raise exception using errcode = actiond.sqlstate('key_for_unclaimed_user'),
            message = 'a data key for a user this batch did not claim is refused';
    end if;
    -- Never again under a retired KEK (keys rotate --retire-old): such a wrapping is left
    -- out (a worker started from a copy of the rotation's intermediate key file makes
    -- one beside the current KEK's); a key with no other wrapping is refused.
    if exists (select from jsonb_to_recordset(keys) as k("user" text, version integer, kek text)
               left join actiond.retired_keks r on r.kek_id = k.kek
               group by k."user", k.version
               having bool_and(r.kek_id is not null)) then
        raise exception using errcode = actiond.sqlstate('kek_retired'),
            message = 'a data key wrapped only under a retired KEK is refused: restart this worker with the key file keys rotate --retire-old finished';
    end if;
    if exists (select from jsonb_to_recordset(keys) as k("user" text, version integer)
               join actiond.forgotten_users f on f.user_id = k."user"
               where f.user_id = any(users) and (f.new_key_allowed_at is null or k.version <= f.through_version)) then
        raise exception using errcode = actiond.sqlstate('key_for_forgotten_user'),
            message = 'a data key was made for a user forgotten meanwhile (actiond forget); the batch runs again';
    end if;
end
$$;
