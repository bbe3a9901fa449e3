-- report_outcomes: what became of the events, by category and action?
-- "Did the Declines reach the meetings?": events per (category, action, outcome, reason),
-- all time. category is the category of the notification sent or answered (null for events
-- that have none); action is the response's action, or the event type for other events.
-- Reads the counters (009), never the log.
create view actiond.report_outcomes as
select nullif(c.category, '') as category,
       c.action,
       c.outcome,
       nullif(c.reason, '') as reason,
       sum(c.events)::bigint as events
from actiond.outcome_counts c
group by c.category, c.action, c.outcome, c.reason
having sum(c.events) <> 0
order by 1 nulls last, 2, 3, 4 nulls first;

comment on view actiond.report_outcomes is
    'Events by category, action, outcome and reason, all time.';
