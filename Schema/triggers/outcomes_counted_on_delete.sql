create trigger outcomes_counted_on_delete after delete on actiond.outcomes
    referencing old table as removed for each statement execute function actiond.count_outcomes_deleted();
