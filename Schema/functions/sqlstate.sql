-- The SQLSTATE of a condition actiond raises or reports, by name: PostgreSQL's own by their
-- condition names (Appendix A of its manual), and actiond's refusals (class AD, which
-- PostgreSQL leaves free), each raised for one reason only. The one place SQL names a code:
-- functions write `actiond.sqlstate('invalid_parameter_value')`, never the digits (a test
-- checks this list against SQLState.swift, and that no other file holds a code). Immutable,
-- so a call with a constant name is folded when the statement is planned.
create function actiond.sqlstate(name text) returns text
language plpgsql immutable parallel safe as $$
begin
    return case name
        -- PostgreSQL's.
        when 'numeric_value_out_of_range' then '22003'
        when 'invalid_datetime_format' then '22007'
        when 'invalid_parameter_value' then '22023'
        when 'integrity_constraint_violation' then '23000'
        when 'foreign_key_violation' then '23503'
        when 'unique_violation' then '23505'
        when 'serialization_failure' then '40001'
        when 'name_too_long' then '42622'
        when 'internal_error' then 'XX000'
        -- actiond's own.
        -- prune: the partition's ids are being forgotten by no prune (log_prune_forget).
        when 'partition_not_being_pruned' then 'ADP01'
        -- prune: the partition holds events whose outcome is not final (log_prune_drop).
        when 'partition_has_unresolved_events' then 'ADP02'
        -- prune: the partition still has idempotency keys to forget (log_prune_drop).
        when 'partition_has_ids_to_forget' then 'ADP03'
        -- A worker batch made a data key for a user forgotten meanwhile (commit_batch).
        when 'key_for_forgotten_user' then 'ADK01'
        -- keys rotate --retire-old before every data key has a wrapping under the new KEK.
        when 'rotation_incomplete' then 'ADK02'
        -- A worker batch carried a data key for a user it did not claim (commit_batch).
        when 'key_for_unclaimed_user' then 'ADK03'
        -- keys rotate --retire-old while a worker still holds a KEK being retired.
        when 'kek_in_use' then 'ADK04'
        -- A data key wrapped under a retired KEK only (commit_batch, add_key_wrappings).
        when 'kek_retired' then 'ADK05'
    end;
end
$$;
