-- Tried, not kept: 9,000 tombstone inserts with the tombstones_newest index as well.
-- pre: CREATE INDEX tombstones_newest ON sluice.tombstones ((ARRAY[target_schema, target_table]), csn)
INSERT INTO sluice.tombstones (target_schema, target_table, key, key_json, csn, deleted_at) SELECT 'public', 'bench', _sluice_key, jsonb_build_object('id', id), _sluice_row_csn, now() FROM public.stage;
