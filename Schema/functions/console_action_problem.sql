-- What console_retry and console_discard check before they act: raises 22023 naming the
-- argument when `operator` is missing or blank, `positions` is null (which retry_dead and
-- discard_dead would take for every dead letter) or longer than 10,000 (one console action
-- is one bounded transaction), or `target` is missing or blank. Not granted to anyone: the
-- console functions call it as their owner.
create function actiond.console_action_problem(operator text, positions bigint[], target text) returns void
language plpgsql immutable as $$
begin
    perform actiond.console_operator_problem(operator);
    if positions is null then
        raise exception 'positions: must not be null (an empty array changes nothing; console_dead_letter_positions lists every dead letter of a filter)'
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    if cardinality(positions) > 10000 then
        raise exception 'positions: at most 10000 at once'
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
    if coalesce(btrim(target), '') = '' then
        raise exception 'target: must say what was chosen (e.g. "position 12", "3 selected")'
            using errcode = actiond.sqlstate('invalid_parameter_value');
    end if;
end
$$;
