-- 011 · The console's audit (docs/console.md): every action taken in the console, by whom,
-- when, on what, and how many events or pauses it changed. Written only by the console_*
-- operator functions, in the transaction of the change itself; readable by actiond_reader.
-- Kept until an operator deletes rows (a handful per action: it stays small).
create table actiond.console_audit (
    id      bigint      generated always as identity primary key,
    at      timestamptz not null default now(),
    person  text        not null,
    action  text        not null,
    target  text        not null,
    events  bigint      not null,
    constraint console_audit_action check (action in ('retry', 'discard', 'pause', 'resume')),
    constraint console_audit_person check (char_length(person) between 1 and 200),
    constraint console_audit_target check (char_length(target) <= 500)
);
comment on table actiond.console_audit is
    'Every action taken in the console: who (person), what (action on target), when (at), how many (events).';
