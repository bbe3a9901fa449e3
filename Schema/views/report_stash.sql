-- report_stash: whose changes are waiting for their protected data, how many, and
-- since when? (docs/contract.md, "Reports".) One row per user with a stash; counts and ages only:
-- the stashed payloads (reply text) never appear in a report.
create view actiond.report_stash as
select s.user_id,
       count(*)::bigint                                              as pending,
       round(extract(epoch from now() - min(s.stashed_at))::numeric, 3) as oldest_age_seconds
from actiond.stash s
group by s.user_id;

comment on view actiond.report_stash is
    'Users whose protected-data changes wait in the stash: pending changes and the oldest one''s age.';
