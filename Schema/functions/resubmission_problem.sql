-- An event submitted again under an id its user already has: null when it is the same event
-- (a duplicate: the caller answers with the original position), or array[code, message].
-- `prior_*` is the earlier event as the log holds it, or all null when the id was known but
-- its event is gone: a prune forgot it (log_prune_forget) while the submit ran. submit and
-- submit_many both ask it; it is the one definition of "the same event".
--
-- Protected fields aside (comparable_data): the log holds them sealed once a worker took the
-- event, and text sealed to the intake key differs on every seal. SQL, one expression:
-- inlined into submit_many's query and into submit's PL/pgSQL expression.
create function actiond.resubmission_problem(prior_position bigint, prior_type text, prior_occurred_at timestamptz,
                                             prior_data jsonb, event jsonb)
returns text[]
language sql stable parallel safe as $$
    select case
        when prior_position is null then
            array[actiond.sqlstate('serialization_failure'), 'id: its earlier event was pruned while this submit ran; submit it again']
        when prior_type = event ->> 'type'
             and prior_occurred_at = (event ->> 'occurred_at')::timestamptz
             and actiond.comparable_data(prior_data, event -> 'data') = actiond.comparable_data(event -> 'data', prior_data) then
            null
        else
            array[actiond.sqlstate('unique_violation'), 'id: was already submitted for this user_id with different content (position '
                || prior_position || '); an id is the user''s idempotency key and cannot be reused']
    end
$$;
