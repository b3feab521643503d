-- The sync jobs write capture_gaps rows (an endpoint the deployment does not offer) and
-- data_quality rows (a cursor handed out twice, an order a per-order read does not find), and the
-- loader stamps every REST record's rows with the job and page that read it. These two tables,
-- made for capture's records, had no such columns: every sync-made gap or finding was refused by
-- the warehouse ("not an insertable column") and held its partition up. They get the provenance
-- columns the other REST tables have; capture's rows keep the defaults.

ALTER TABLE tapehouse.capture_gaps ADD COLUMN IF NOT EXISTS _sync_job LowCardinality(String) DEFAULT '' AFTER _index;

ALTER TABLE tapehouse.capture_gaps ADD COLUMN IF NOT EXISTS _sync_run String DEFAULT '' AFTER _sync_job;

ALTER TABLE tapehouse.capture_gaps ADD COLUMN IF NOT EXISTS _sync_page UInt32 DEFAULT 0 AFTER _sync_run;

ALTER TABLE tapehouse.data_quality ADD COLUMN IF NOT EXISTS _sync_job LowCardinality(String) DEFAULT '' AFTER _index;

ALTER TABLE tapehouse.data_quality ADD COLUMN IF NOT EXISTS _sync_run String DEFAULT '' AFTER _sync_job;

ALTER TABLE tapehouse.data_quality ADD COLUMN IF NOT EXISTS _sync_page UInt32 DEFAULT 0 AFTER _sync_run;
