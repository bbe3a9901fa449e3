-- 005 · Protected text sealed at rest, per-user keys, forgetting a person (docs/events.md, "Protected
-- text"; SECURITY.md "At rest").
--
-- A user's protected text (a reply's text, a message's alert) is sealed by the workers with
-- AES-256-GCM under a random data key of that user. The database holds data keys only
-- wrapped by a key-encryption key (KEK) it never sees: the KEK stays in the key file (or a
-- KMS) of the processes that need it. `actiond forget USER` deletes the user's rows here and
-- writes a fence; from then on their sealed text opens nowhere, this database or any backup
-- whose KEK is destroyed.
--
-- Per-user tables keyed by user, so `migrate --citus` distributes them with the rest.

create table actiond.data_keys (
    user_id    text        not null,
    version    integer     not null,    -- named by every text sealed with it (aead1.<version>.…)
    kek_id     text        not null,    -- the KEK that wraps it; during a rotation a key has a row per KEK
    wrapped    bytea       not null,    -- AES key wrap (RFC 3394) of the 256-bit key under the KEK
    created_at timestamptz not null default now(),
    primary key (user_id, version, kek_id),
    constraint data_keys_version_positive check (version > 0)
);
comment on table actiond.data_keys is
    'Each user''s data keys, wrapped by a key-encryption key the database never holds; deleted by actiond forget.';

create table actiond.forgotten_users (
    user_id            text        primary key,
    through_version    integer     not null,   -- every key version up to this one was destroyed
    forgotten_at       timestamptz not null default now(),
    new_key_allowed_at timestamptz             -- actiond forget USER --allow-new-key; null: their events are refused
);
comment on table actiond.forgotten_users is
    'Fences: users whose data keys actiond forget destroyed. Their sealed text reads as forgotten; new events are refused until a new key is allowed.';

-- The intake public keys producers seal protected text to (HPKE), published by workers from
-- their key file. Public keys only; the private halves never leave the key file.
create table actiond.intake_keys (
    kid          text        primary key,
    document     jsonb       not null,   -- {"kid", "public_key", "kem", "kdf", "aead", "info", "aad"}
    published_at timestamptz not null default now()
);
comment on table actiond.intake_keys is
    'Public keys producers seal protected text to before submitting it (actiond.intake_public_key()).';
