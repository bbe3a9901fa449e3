-- 019 · Pausing a category (`actiond pause --category NAME`, the console's Pauses page).
--
-- One row per paused category. A user whose next waiting event belongs to a paused
-- category waits, with all of that user's later events (per-user order holds); other users,
-- and a user's events before the paused one, go on. An event's category is its
-- notification's `aps.category`, or for a response the category of the notification it
-- answers (functions/event_category.sql); other types have none and are never held by a
-- category's pause. While the table is empty the claim reads it once per call and does
-- nothing else for it.
create table actiond.category_pauses (
    category  text        primary key check (category <> ''),
    paused_at timestamptz not null default now()
);
comment on table actiond.category_pauses is
    'Paused categories: a user whose next waiting event is of one waits, later events included.';
