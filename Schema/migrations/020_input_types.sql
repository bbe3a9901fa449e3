-- 020 · Input types a handler declares (docs/handlers.md, "Your own input events").
--
-- A handler may take input events of its own, for what a team's own systems report
-- ("parcel.delivered"): each routed to the handler's shared state named by one string field
-- of the event's data (CategoryHandler.sharedInputs), with any further fields it requires
-- (inputRequiredKeys). `actiond migrate` registers the build's handlers' types here
-- (meeting.cancelled, the meeting handler's, among them), and submit accepts a type only if
-- it is actiond's own or registered, with each of its fields present, a string of 1 to 200
-- characters, like every other id (event_problem). A type stays
-- registered when a later build no longer declares it: its producers keep being accepted,
-- and a worker without its handler dead-letters its events, naming the type.
create table actiond.input_types (
    type          text        primary key,
    handler       text        not null,
    id_field      text        not null,
    required_keys text[]      not null default '{}',   -- further fields (inputRequiredKeys)
    registered_at timestamptz not null default now()
);
comment on table actiond.input_types is
    'Input event types declared by handlers (sharedInputs): the handler, the data field naming its shared state, further required fields.';

-- The log's list of known types gives way to the registry above: submit is what checks a
-- type (the constraint held the five built-in names; dropping it reads no row).
alter table actiond.events drop constraint events_type_known;

-- What the builds before this one accepted, registered so that submit goes on accepting it
-- before the next migrate of a build that declares it (every build declares it).
insert into actiond.input_types (type, handler, id_field) values ('meeting.cancelled', 'meeting_invitation', 'meeting_id');
