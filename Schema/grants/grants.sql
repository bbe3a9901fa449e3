-- Who may do what (SECURITY.md; docs/operations.md, "Roles"). Applied after every function, view and
-- trigger, whenever they are applied again (a re-created function starts with PostgreSQL's
-- default privileges, which let PUBLIC execute it). Nothing here names a login role: grant
-- actiond_producer, actiond_worker, actiond_reader or actiond_operator to yours.

-- Nobody but the owner, unless granted below.
revoke all on schema actiond from public;
revoke all on all tables in schema actiond from public;
revoke all on all sequences in schema actiond from public;
revoke all on all functions in schema actiond from public;
grant usage on schema actiond to actiond_producer, actiond_worker, actiond_reader, actiond_operator;

-- Every role may ask whether the schema is its build's (and is told to migrate when not).
grant execute on function actiond.schema_checksums() to actiond_producer, actiond_worker, actiond_reader, actiond_operator;
grant execute on function actiond.schema_drift() to actiond_worker, actiond_reader;

-- Producers submit, and do nothing else: the functions check every rule and write as owner.
grant execute on function actiond.submit(jsonb), actiond.submit_many(jsonb[]) to actiond_producer;
-- Which shard group each user lives in (none on plain PostgreSQL): `actiond submit` splits its
-- batches by group.
grant execute on function actiond.shard_groups(text[]) to actiond_producer;
-- The public key to seal protected text to before submitting it.
grant execute on function actiond.intake_public_key() to actiond_producer, actiond_worker;
-- The categories, so that `actiond submit` knows whose alerts are protected text to seal.
grant execute on function actiond.category_document(integer) to actiond_producer;

-- Workers claim, read state, write a batch's results, sweep holds and sample the queue.
grant execute on function
    actiond.claim(bigint, bigint, text, boolean),
    actiond.claim_batch(bigint, bigint, text),
    actiond.load_streams(text[], text[], text[], text[], text[]),
    actiond.load_stash(text[]),
    actiond.commit_batch(jsonb),
    actiond.category_document(integer),
    actiond.release_holds(),
    actiond.prune_report_minutes(),
    actiond.queue_is_empty(),
    actiond.queue_depth(),
    actiond.load_keys(text[]),
    actiond.load_trace_contexts(text[], bigint[]),
    actiond.forgotten_since(timestamptz),
    actiond.kek_is_retired(text),
    actiond.hold_wakeup_slots(),
    actiond.take_wakeup_slot(integer),
    actiond.wait_for_wakeup_slot(integer),
    actiond.release_wakeup_slots()
    to actiond_worker;

-- publish_intake_key: no grant; only the owner publishes the key producers seal to (migrate,
-- or a worker running as the owner). A worker login that could publish would let whoever
-- holds its password offer producers a key of their own (producers pin theirs anyway).

-- forget_keys and allow_new_key: no grant; actiond forget runs as the owner.

-- pause, resume, pause_category and resume_category: no grant; run them as the owner (the
-- role that migrates).

-- Operators act through the web console, and do nothing else: retry and discard dead letters,
-- pause and resume, each audited in actiond.console_audit by the function, which runs as the
-- owner. (Not retry_dead, discard_dead, pause or resume themselves: those leave no audit.)
grant execute on function
    actiond.console_retry(text, bigint[], text),
    actiond.console_discard(text, bigint[], text),
    actiond.console_pause(text, text),
    actiond.console_resume(text, text),
    actiond.console_pause_category(text, text),
    actiond.console_resume_category(text, text)
    to actiond_operator;

-- Readers read the reports. A view reads its tables as its owner; the functions a view calls
-- are checked against the reader.
grant select on
    actiond.report_queue, actiond.report_throughput, actiond.report_latency, actiond.report_outcomes,
    actiond.report_dead_letters, actiond.report_stash, actiond.report_trail
    to actiond_reader;
grant execute on function actiond.latency_bucket_ms(integer), actiond.category_paused_users() to actiond_reader;
-- The web console's pages: bounded reader functions, each running as the owner, and the audit
-- of the operators' actions.
grant execute on function
    actiond.console_throughput(integer),
    actiond.console_outcomes(text, text),
    actiond.console_dead_letters(text, text, text, interval, bigint, integer),
    actiond.console_dead_letter_count(text, text, text, interval),
    actiond.console_dead_letter_positions(text, text, text, interval, integer),
    actiond.console_dead_letter(bigint),
    actiond.console_trail(text, text, bigint, integer),
    actiond.console_person(text),
    actiond.console_handler_rows(text, text, integer),
    actiond.console_pauses(),
    actiond.console_category_pauses(),
    actiond.console_audit(bigint, integer),
    actiond.console_live_workers(),
    actiond.console_categories()
    to actiond_reader;
grant select on actiond.console_audit to actiond_reader;
-- The handlers' report views (granted again as each is created, see HandlerReportViews).
do $views$
declare
    view_name text;
begin
    for view_name in select h.name from actiond.handler_views h where to_regclass('actiond.' || quote_ident(h.name)) is not null loop
        execute format('grant select on actiond.%I to actiond_reader', view_name);
    end loop;
end
$views$;
