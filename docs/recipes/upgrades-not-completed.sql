-- Upgrades that never completed (clusterversion history[0] Partial), with
-- their links.
select r.url, r.from_version, r.to_version from runs r where r.upgrade_state = 'Partial' order by r.url;
