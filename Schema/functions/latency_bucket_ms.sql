-- The upper bound, in milliseconds, of latency histogram bucket `bucket`.
create function actiond.latency_bucket_ms(bucket integer) returns double precision
language sql immutable as $$ select 0.1 * power(1.05, bucket) $$;
