-- An input event's data with every field that may hold protected text replaced by the
-- unreadable marker: a response's text (clear or sealed) becomes text_unreadable, a
-- notification's alert (clear or sealed, whatever its category) alert_unreadable. For an
-- event a worker cannot read (it got into the log past submit's grammar): whatever becomes
-- of it, its text does not stay in clear. commit_batch applies it.
create function actiond.unreadable_data(data jsonb)
returns jsonb
language sql immutable parallel safe
as $$
    select case
        when (s.data #> '{payload,aps}') ?| array['alert', 'alert_sealed'] then
            jsonb_set(s.data, '{payload,aps}', ((s.data #> '{payload,aps}') - array['alert', 'alert_sealed']) || '{"alert_unreadable": true}')
        else s.data
    end
    from (select case when jsonb_typeof(data) = 'object' and data ?| array['text', 'text_sealed']
                      then (data - array['text', 'text_sealed']) || '{"text_unreadable": true}'
                      else data end as data) s
$$;
