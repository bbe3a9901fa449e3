-- 017 · report_threads: how many messages did each person get in a thread, how many
-- replies went out, and how far have they read?
-- messages counts distinct messages received; replies counts applied replies (stashed ones
-- count once integrated). Never shows message or reply text: that is protected data.
-- Reads the thread projections.
create view actiond.report_threads as
select t.stream_id as thread_id,
       t.user_id,
       (t.state -> 'report' ->> 'messages')::integer as messages,
       (t.state -> 'state' ->> 'replies')::integer as replies,
       t.state -> 'state' ->> 'lastReadMessageID' as last_read_message_id
from actiond.projections t
where t.kind = 'thread'
order by t.stream_id, t.user_id;

comment on view actiond.report_threads is
    'Each person''s threads: messages received, replies applied, last message read.';
