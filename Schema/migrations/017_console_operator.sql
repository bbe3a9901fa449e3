-- 017 · One word per idea: an operator runs actiond, a user (a person) taps.
--
-- The console's audit named who acted `person`, the word the console's person page uses for
-- the user whose events it shows. Who acts in the console is an operator (its accounts, its
-- roles, the console_* functions' first argument): the column says so. The functions that
-- write and read it are applied again by this migrate with the new name.
alter table actiond.console_audit rename column person to operator;
comment on column actiond.console_audit.operator is 'Who acted: the operator''s name as the console knows them.';
