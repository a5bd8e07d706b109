-- A fresh 90,000-row table of the Debezium bench's shape (fill factor :ff), 30,000 tombstones
-- of other keys, and a text stage of 9,000 rows as sluice stages them: 5,000 updates of
-- existing keys and 4,000 new keys, all newer than what the table holds.
SET client_min_messages = warning;
DROP TABLE IF EXISTS public.bench;
DROP TABLE IF EXISTS sluice.tombstones;
DROP TABLE IF EXISTS public.stage;
CREATE SCHEMA IF NOT EXISTS sluice;
CREATE TABLE sluice.tombstones (target_schema text NOT NULL, target_table text NOT NULL,
  key bytea NOT NULL, key_json jsonb, csn bytea NOT NULL, deleted_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (target_schema, target_table, key));
CREATE INDEX tombstones_deleted_at ON sluice.tombstones (deleted_at);
INSERT INTO sluice.tombstones SELECT 'public', 'bench', int8send(g), jsonb_build_object('id', g),
  int8send(g), now() FROM generate_series(200000, 230000) g;
CREATE TABLE public.bench (id bigint, customer_id bigint, amount float8, tax_rate float8, quantity int4, status text, note text, is_gift bool, created_at timestamp, updated_at timestamp, discount_code text,
  _sluice_csn bytea NOT NULL, _sluice_updated_at timestamptz, PRIMARY KEY (id)) WITH (fillfactor = :ff);
INSERT INTO public.bench SELECT g, g * 7, g * 1.5, 0.2, g % 10, 'shipped', 'a note about order ' || g,
  g % 2 = 0, now(), now(), CASE WHEN g % 3 = 0 THEN 'CODE' || g END, int8send(g), now()
  FROM generate_series(1, 90000) g;
CREATE TABLE public.stage (_sluice_key bytea, _sluice_row_csn bytea, id text, customer_id text, amount text, tax_rate text, quantity text, status text, note text, is_gift text, created_at text, updated_at text, discount_code text);
INSERT INTO public.stage SELECT int8send(g * 9), '\xff'::bytea, (g * 9)::text, '7', '1.25', '0.2', '3',
  'paid', 'another note for ' || g, 't', '2026-12-04 07:00:00.123456', '2026-12-04 07:00:01.5', NULL
  FROM generate_series(1, 5000) g;
INSERT INTO public.stage SELECT int8send(g + 100000000), '\xff'::bytea, (g + 100000000)::text, '7',
  '1.25', '0.2', '3', 'paid', 'another note for ' || g, 't', '2026-12-04 07:00:00.123456',
  '2026-12-04 07:00:01.5', NULL FROM generate_series(1, 4000) g;
VACUUM ANALYZE public.bench;
VACUUM ANALYZE public.stage;
VACUUM ANALYZE sluice.tombstones;
CHECKPOINT;
