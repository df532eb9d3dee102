-- Partial indexes for two analysts' questions that would read the runs table
-- whole: the upgrades that never completed, and the runs whose upgrade
-- never began. Each holds only the few runs it answers for.
CREATE INDEX runs_partial ON runs (url, from_version, to_version) WHERE upgrade_state = 'Partial';
CREATE INDEX runs_not_started ON runs (job, build_id, result, url) WHERE upgrade_started = 0;
