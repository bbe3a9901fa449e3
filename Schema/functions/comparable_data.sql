-- An event's data as idempotency compares it with `other` (the same event's data as stored,
-- or as submitted again): every field that is not sealed. A response's text is left out in
-- every form (clear, sealed, forgotten, unreadable): a worker rewrites it at rest, and text
-- sealed to the intake key differs on every seal. A notification's alert is left out only
-- when either side holds it in a protected form (some part sealed, forgotten or unreadable):
-- the alert of a category that does not protect it stays in clear on both sides and is
-- compared, so a changed alert is a conflict, never a duplicate.
create function actiond.comparable_data(data jsonb, other jsonb)
returns jsonb
language sql immutable parallel safe
as $$
    select case
        when exists (select from (values (data), (other)) side(d)
                     where (side.d #> '{payload,aps}') ?| array['alert_sealed', 'alert_forgotten', 'alert_unreadable']
                        or (side.d #> '{payload,aps,alert}') ?| array['title_sealed', 'subtitle_sealed', 'body_sealed',
                                                                     'title_forgotten', 'subtitle_forgotten', 'body_forgotten',
                                                                     'title_unreadable', 'subtitle_unreadable', 'body_unreadable',
                                                                     'loc-args_sealed', 'title-loc-args_sealed', 'subtitle-loc-args_sealed',
                                                                     'loc-args_forgotten', 'title-loc-args_forgotten', 'subtitle-loc-args_forgotten'])
        then t.data #- '{payload,aps,alert}' #- '{payload,aps,alert_sealed}' #- '{payload,aps,alert_forgotten}' #- '{payload,aps,alert_unreadable}'
        else t.data
    end
    from (select data - array['text', 'text_sealed', 'text_forgotten', 'text_unreadable'] as data) t
$$;
