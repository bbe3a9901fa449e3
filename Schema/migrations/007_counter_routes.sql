-- 007 · Report counters keyed by a route (docs/citus.md): the counter rows a batch writes can
-- then live beside the batch's users. Before, each counter row was keyed by `shard`, the
-- writing backend's pid modulo 64, and stayed on the Citus coordinator, so every worker batch
-- wrote on two nodes and committed in two phases.
--
-- `route` replaces `shard` in each counter table's key. On plain PostgreSQL it is the same
-- value as text ('0'..'63', still spreading concurrent writers over rows). On Citus,
-- `migrate --citus` distributes the counters by route, co-located with the users, and fills
-- actiond.counter_routes with route values that hash into each shard group: a batch counts
-- its outcomes under a route of its own users' shard group (actiond.counter_route), so a
-- batch whose streams are its users' own writes one node and commits in one phase. The
-- views sum over routes, as they summed over shards.
alter table actiond.outcome_counts add column route text;
update actiond.outcome_counts set route = shard::text;
alter table actiond.outcome_counts alter column route set not null,
    drop constraint outcome_counts_pkey,
    add constraint outcome_counts_pkey primary key (category, action, outcome, reason, route),
    drop column shard;

alter table actiond.throughput_minutes add column route text;
update actiond.throughput_minutes set route = shard::text;
alter table actiond.throughput_minutes alter column route set not null,
    drop constraint throughput_minutes_pkey,
    add constraint throughput_minutes_pkey primary key (minute, route),
    drop column shard;

alter table actiond.latency_minutes add column route text;
update actiond.latency_minutes set route = shard::text;
alter table actiond.latency_minutes alter column route set not null,
    drop constraint latency_minutes_pkey,
    add constraint latency_minutes_pkey primary key (minute, bucket, route),
    drop column shard;

alter table actiond.latency_all_time add column route text;
update actiond.latency_all_time set route = shard::text;
alter table actiond.latency_all_time alter column route set not null,
    drop constraint latency_all_time_pkey,
    add constraint latency_all_time_pkey primary key (bucket, route),
    drop column shard;

-- Routes that hash into each Citus shard group of user_queues, `slots` per group (so that
-- concurrent batches of one group still spread over rows). Empty on plain PostgreSQL.
create table actiond.counter_routes (
    shard_id bigint not null,
    slot integer not null,
    route text not null,
    primary key (shard_id, slot)
);
comment on table actiond.counter_routes is
    'Citus only: report counter routes that live in each shard group (filled by migrate --citus).';
