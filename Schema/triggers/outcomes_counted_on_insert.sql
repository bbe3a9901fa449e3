create trigger outcomes_counted_on_insert after insert on actiond.outcomes
    referencing new table as added for each statement execute function actiond.count_outcomes_inserted();
