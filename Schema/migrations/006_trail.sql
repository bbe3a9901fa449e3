-- 006 · report_trail by request id (docs/reports.md): support staff look a notification's
-- responses up by its request id, across users. An expression index on the log, built on
-- each partition (not partial: a query filtering on the request id alone could not use one
-- limited to events that carry it).
create index events_request_id on actiond.events ((data ->> 'request_id'));
