-- The same without the jsonb key copy.
INSERT INTO sluice.tombstones (target_schema, target_table, key, key_json, csn, deleted_at) SELECT 'public', 'bench', _sluice_key, NULL, _sluice_row_csn, now() FROM public.stage;
