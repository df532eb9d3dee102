-- Symptoms are kept in step with the rules a crawl runs: a symptom whose rule
-- is no longer active stays (its past evidence still refers to it) but is
-- marked inactive.
ALTER TABLE symptoms ADD COLUMN active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1));

-- The evidence of a run is looked up by run as often as by symptom.
CREATE INDEX run_symptoms_run ON run_symptoms (job, build_id);
