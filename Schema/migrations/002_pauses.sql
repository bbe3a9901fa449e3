-- 002 · Pauses (PRODUCT.md section 8): `actiond pause [--user ID]` / `actiond resume`.
--
-- One row per pause: a user's id, or '' for everyone ('' can never be a user: every event's
-- user_id is non-empty). A paused user's events stay in actiond.queue, untouched: claim()
-- skips the user, `work --drain` does not wait for them, report_queue shows them as
-- `paused`, and submit keeps accepting. Resuming deletes the row and wakes the workers.
-- A table rather than a column of user_queues: a user with nothing queued can be paused
-- too, and a pause outlives the user's queue row (deleted whenever the queue empties).
create table actiond.pauses (
    user_id   text        primary key,   -- '' pauses everyone
    paused_at timestamptz not null default now()
);
comment on table actiond.pauses is
    'Paused users (user_id) or everyone (user_id = ''''): workers do not claim their events.';
