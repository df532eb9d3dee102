-- Which version of a rule found each match: the rule's hash (a digest of
-- its id, files and match list; see classify.Rule.Hash). Rows stored before
-- this migration have none: the version that found them is unknown.
ALTER TABLE run_symptoms ADD COLUMN rule_hash TEXT;
