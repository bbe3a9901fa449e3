-- An event's data without its protected fields, in any of their forms (clear, sealed,
-- forgotten, unreadable): what idempotency compares. A worker rewrites protected fields at rest, and
-- text sealed to the intake key differs on every seal, so a retried submit compares the rest.
create function actiond.comparable_data(data jsonb)
returns jsonb
language sql immutable parallel safe
as $$
    select (data - array['text', 'text_sealed', 'text_forgotten', 'text_unreadable'])
           #- '{payload,aps,alert}' #- '{payload,aps,alert_sealed}' #- '{payload,aps,alert_forgotten}' #- '{payload,aps,alert_unreadable}'
$$;
