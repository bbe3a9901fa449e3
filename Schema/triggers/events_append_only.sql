create trigger events_append_only
    before update or delete on actiond.events
    for each row execute function actiond.refuse_log_change();
