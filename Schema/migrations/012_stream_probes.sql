-- 012 · A worker's probe for one projection row reads one row again.
--
-- projections_user (011) was (user_id, kind). For load_streams' probe by the whole key
-- (kind, stream_id, user_id) the planner could take it instead of the primary key, and then
-- read every row of that user and kind to find one stream: every shared stream of a kind
-- (all meetings sit under the user '') on each probe of one meeting. A worker's batch cost
-- grew with the number of meetings (33 ms for a 12-stream probe at 2,500 meetings). With the
-- stream in the index too, either index finds the row in one probe; the console's person page
-- still reads one user's range of it. Shared streams (the user '': meetings, notifications)
-- are nobody's person page and stay out of it, which spares the index an entry for every
-- notification sent (on Citus they are stored under keys of their own, shared_stream_key,
-- and so are in it).
drop index actiond.projections_user;
create index projections_user on actiond.projections (user_id, kind, stream_id) where user_id <> '';
