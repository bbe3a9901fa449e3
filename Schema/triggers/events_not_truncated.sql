-- The log is append-only for TRUNCATE too (which no row trigger sees).
create trigger events_not_truncated
    before truncate on actiond.events
    for each statement execute function actiond.refuse_log_change();
