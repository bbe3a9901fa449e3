create trigger outcomes_counted_on_update after update on actiond.outcomes
    referencing old table as removed new table as added for each statement execute function actiond.count_outcomes_updated();
