/// A function replaced by hand after migrate, as an operator's hot fix in psql would: the same
/// signature as `actiond.queue_depth()`, another body (its rows say `made by hand`). What the
/// drift tests change, in process and through the binary.
package enum HandMadeDefinition {
    package static let queueDepth = """
        create or replace function actiond.queue_depth()
        returns table (status text, events bigint, oldest_age_seconds double precision)
        language sql stable security definer set search_path = actiond, pg_temp
        as $$ select 'made by hand'::text, 0::bigint, 0::float8 $$
        """
}
