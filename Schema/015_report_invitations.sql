-- 015 · report_invitations: did Ana's Decline reach the meeting?
-- One row per invitee and meeting: the answer that stands (by device time), when it was
-- given, when the notification was opened or dismissed (device times), and whether the
-- meeting was cancelled. Reads the invitation and meeting projections.
create view actiond.report_invitations as
select i.stream_id as meeting_id,
       i.user_id,
       i.state -> 'report' ->> 'response' as response,
       (i.state -> 'report' ->> 'respondedAt')::timestamptz as responded_at,
       (i.state -> 'report' ->> 'openedAt')::timestamptz as opened_at,
       (i.state -> 'report' ->> 'dismissedAt')::timestamptz as dismissed_at,
       coalesce(m.state -> 'report' ->> 'status', 'scheduled') as meeting_status
from actiond.projections i
left join actiond.projections m on m.kind = 'meeting' and m.stream_id = i.stream_id and m.user_id = ''
where i.kind = 'invitation'
order by i.stream_id, i.user_id;

comment on view actiond.report_invitations is
    'Each invitee''s answer to each meeting, with device times and the meeting''s status.';
