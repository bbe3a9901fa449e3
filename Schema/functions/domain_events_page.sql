-- One page of domain events in stream order (the index order), after a given event.
-- PL/pgSQL, not an SQL function: Citus cannot plan a parameter of an SQL function over a
-- distributed table (docs/citus.md).
create function actiond.domain_events_page(
    after_kind text, after_id text, after_user text, after_seq bigint, up_to_seq bigint, page_size integer)
returns table (seq bigint, "position" bigint, stream_kind text, stream_id text, stream_user text,
               schema_version integer, data text)
language plpgsql stable as $$
#variable_conflict use_column
begin
    return query select d.seq, d.position, d.stream_kind, d.stream_id, d.stream_user, d.schema_version, d.data::text
        from actiond.domain_events d
        where (d.stream_kind, d.stream_id, d.stream_user, d.seq) > (after_kind, after_id, after_user, after_seq)
          and d.seq <= up_to_seq
        order by d.stream_kind, d.stream_id, d.stream_user, d.seq
        limit page_size;
end
$$;
