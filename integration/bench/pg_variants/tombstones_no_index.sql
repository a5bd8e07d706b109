-- The same without the deleted_at index (dropped first, outside the timing).
-- pre: DROP INDEX sluice.tombstones_deleted_at;
INSERT INTO sluice.tombstones (target_schema, target_table, key, key_json, csn, deleted_at) SELECT 'public', 'bench', _sluice_key, jsonb_build_object('id', id), _sluice_row_csn, now() FROM public.stage;
