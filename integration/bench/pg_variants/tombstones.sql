-- 9,000 tombstone inserts as the delete statement writes them (with the deleted_at index).
INSERT INTO sluice.tombstones (target_schema, target_table, key, key_json, csn, deleted_at) SELECT 'public', 'bench', _sluice_key, jsonb_build_object('id', id), _sluice_row_csn, now() FROM public.stage;
