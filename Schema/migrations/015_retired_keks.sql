-- 015 · KEKs retired for good, and forgets found by time (SECURITY.md, "Rotation" and "Keys in
-- memory").
--
-- `actiond keys rotate --retire-old` records the KEK it retires here, in the transaction that
-- deletes the wrappings under it: from then on no wrapping under it is stored again
-- (commit_batch leaves it out, add_key_wrappings refuses it), whatever key file a worker
-- started from. Only the owner writes it; nobody else reads it.
create table actiond.retired_keks (
    kek_id     text        primary key,
    retired_at timestamptz not null default now()
);
comment on table actiond.retired_keks is
    'KEKs that actiond keys rotate --retire-old retired: no data key is wrapped under them again.';

-- Workers find recent forgets by time (forgotten_since), one index probe a poll, instead of a
-- notification any login could read or send.
create index forgotten_users_forgotten_at on actiond.forgotten_users (forgotten_at);
