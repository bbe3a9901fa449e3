-- Where a stream shared by users (a notification by request id, a meeting: user '' in the
-- worker's keys) is stored on Citus: under the user `kind:id`, so that the shared rows spread
-- over every shard instead of all sitting on user ''s one shard. No user's own row can take
-- that key: a stream kind is either shared or per-user, never both (HandlerSetValidator), and
-- the key holds the kind. On one server shared rows stay under user ''; the Citus variants
-- that read them give back user '', so the worker and `actiond rebuild` see '' on both.
create function actiond.shared_stream_key(kind text, id text) returns text
language sql immutable parallel safe as $$ select kind || ':' || id $$;
