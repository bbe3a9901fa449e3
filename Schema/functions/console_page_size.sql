-- How many rows a console page asks for, bounded: 50 when not given, at least 1, at most 500.
create function actiond.console_page_size(asked integer) returns integer
language sql immutable as $$ select least(greatest(coalesce(asked, 50), 1), 500) $$;
