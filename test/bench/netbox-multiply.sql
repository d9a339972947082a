-- NetBox's demo database multiplied in place (`bench:import`): `set bench.copies = N` first. Every row of
-- every table is copied N-1 times with its id and every id it refers to moved by 100,000 per copy
-- (content type ids stay), and names, slugs, usernames and RDs suffixed, so the copies are distinct
-- objects. NetBox's own constraints are dropped first: the copies only have to satisfy NetLedger's.
do $$
declare
  t record;
  sel text;
  off constant bigint := 100000;
  copies constant int := current_setting('bench.copies')::int;
begin
  for t in select conrelid::regclass as tbl, conname from pg_constraint c join pg_namespace n on n.oid = c.connamespace
           where n.nspname = 'public' and contype in ('f', 'u', 'c', 'x') order by contype = 'f' desc loop
    execute format('alter table %s drop constraint if exists %I cascade', t.tbl, t.conname);
  end loop;
  for t in select i.indexrelid::regclass as idx from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
           where n.nspname = 'public' and i.indisunique and not i.indisprimary loop
    execute format('drop index if exists %s', t.idx);
  end loop;
  for t in select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'
           and table_name !~ '^(django_|auth_permission|social_auth|taggit|extras_cachedvalue|dcim_cablepath|extras_objectchange)' loop
    if not exists (select 1 from information_schema.columns where table_schema = 'public' and table_name = t.table_name and column_name = 'id') then continue; end if;
    select string_agg(case
      when column_name = 'id' or (column_name ~ '_id$' and column_name !~ '(type_id|contenttype_id|objecttype_id|permission_id)$' and data_type in ('bigint', 'integer', 'smallint')) then format('%I + k * %s', column_name, off)
      when column_name = '_path_id' then 'null'
      when t.table_name = 'users_token' and column_name = 'key' then 'substr(md5(key || k) || md5(k || key), 1, 40)'
      when t.table_name = 'ipam_asn' and column_name = 'asn' then 'asn + k * 100000'
      when column_name in ('name', '_name', 'slug', 'username', 'rd') and data_type in ('character varying', 'text') then format('%I || ''-'' || k', column_name)
      else quote_ident(column_name) end, ', ' order by ordinal_position) into sel
      from information_schema.columns where table_schema = 'public' and table_name = t.table_name;
    execute format('insert into %I select %s from %I cross join generate_series(1, %s) k where %I.id < %s', t.table_name, sel, t.table_name, copies - 1, t.table_name, off);
  end loop;
end $$;
