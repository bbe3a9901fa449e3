-- actiond on Citus (issue 16, docs/citus.md): run by `actiond migrate --citus` after the plain
-- schema, as actiond_owner, in one transaction. Idempotent: a table Citus already knows is
-- left as it is (create_distributed_table refuses a second call).
--
-- Every per-user table is distributed by its user and co-located with actiond.waiting_users,
-- so a user's queue, log, outcomes, stash, idempotency keys, progress and state share one
-- shard, and a statement naming users of one shard routes to one node. domain_events is
-- distributed by its stream's user. pauses is a reference table (read in the claim's
-- statements on every node). The report counters are distributed by key, co-located, so
-- that a batch counts on its users' node. Everything else (categories, settings, the
-- migrator's bookkeeping) stays on the coordinator, where every function runs (Stage A).
do $distribute$
declare
    t record;
begin
    if not exists (select from pg_dist_partition where logicalrelid = 'actiond.waiting_users'::regclass) then
        perform create_distributed_table('actiond.waiting_users', 'user_id');
    end if;
    for t in
        select v.tab::regclass as tab, v.col
        from (values ('actiond.user_progress', 'user_id'), ('actiond.requeued_events', 'user_id'),
                     ('actiond.held', 'user_id'), ('actiond.stash', 'user_id'),
                     ('actiond.event_ids', 'user_id'), ('actiond.events', 'user_id'),
                     ('actiond.outcomes', 'user_id'), ('actiond.projections', 'user_id'),
                     ('actiond.projections_rebuild', 'user_id'),
                     ('actiond.domain_events', 'stream_user'),
                     ('actiond.data_keys', 'user_id')) as v(tab, col)
    loop
        if not exists (select from pg_dist_partition where logicalrelid = t.tab) then
            perform create_distributed_table(t.tab, t.col, colocate_with => 'actiond.waiting_users');
        end if;
    end loop;
    if not exists (select from pg_dist_partition where logicalrelid = 'actiond.pauses'::regclass) then
        perform create_reference_table('actiond.pauses');
    end if;
    -- The fences of forgotten users: read by every submit (event_problems) and every batch
    -- that makes a key, for users of any shard; small, so a copy on every node.
    if not exists (select from pg_dist_partition where logicalrelid = 'actiond.forgotten_users'::regclass) then
        perform create_reference_table('actiond.forgotten_users');
    end if;

    -- The report counters, by key, co-located with the users (007_counter_routes.sql): a
    -- batch counts its outcomes on its users' node.
    for t in
        select v.tab::regclass as tab
        from (values ('actiond.outcome_counts'), ('actiond.throughput_minutes'),
                     ('actiond.latency_minutes'), ('actiond.latency_all_time')) as v(tab)
    loop
        if not exists (select from pg_dist_partition where logicalrelid = t.tab) then
            perform create_distributed_table(t.tab, 'counter_key', colocate_with => 'actiond.waiting_users');
        end if;
    end loop;

    -- The hash range of each shard group, for claim() (004_distributable_keys.sql).
    delete from actiond.shard_ranges;
    insert into actiond.shard_ranges (shard_id, lo, hi)
    select s.shardid, s.shardminvalue::integer, s.shardmaxvalue::integer
    from pg_dist_shard s
    where s.logicalrelid = 'actiond.waiting_users'::regclass;

    -- Eight counter keys in each shard group (counter_key): 'counter-N' for the first
    -- values of N that hash into the group.
    delete from actiond.counter_keys;
    insert into actiond.counter_keys (shard_id, slot, counter_key)
    select r.shard_id, r.slot - 1, r.counter_key
    from (select h.shard_id, h.counter_key, row_number() over (partition by h.shard_id order by h.n) as slot
          from (select n, 'counter-' || n as counter_key,
                       get_shard_id_for_distribution_column('actiond.waiting_users', 'counter-' || n) as shard_id
                from generate_series(1, 100000) n) h) r
    where r.slot <= 8;
    if exists (select from actiond.shard_ranges r
               where (select count(*) from actiond.counter_keys c where c.shard_id = r.shard_id) < 8) then
        raise exception 'a shard group got fewer than eight counter keys';
    end if;
end
$distribute$;
