-- report_latency: submit-to-first-outcome latencies as log-scale histograms, per clock
-- minute (kept two days) and for all time. Bucket b holds latencies up to 0.1 ms * 1.05^b,
-- so a percentile read from the histogram is within 5 % of the exact value.
create function actiond.latency_bucket(milliseconds double precision) returns integer
language sql immutable as $$
    select greatest(0, ceil(ln(greatest(milliseconds, 0.1) / 0.1) / ln(1.05)))::integer
$$;
