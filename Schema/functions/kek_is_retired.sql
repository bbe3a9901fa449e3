-- Whether `keys rotate --retire-old` retired KEK `kek`: a worker refuses to start on a key file
-- whose KEK was retired (it would open none of the keys wrapped since), and `keys rotate`
-- refuses to take one up again as a retiring KEK.
create function actiond.kek_is_retired(kek text)
returns boolean
language sql stable
security definer set search_path = actiond, pg_temp
as $$
    select exists (select from actiond.retired_keks r where r.kek_id = kek)
$$;
