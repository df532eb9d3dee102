package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// PayloadGroup counts the finished runs in the rates of one job on one
// edge that tested one payload (runs.to_version: the release the upgrade
// went to), and those of them that show a symptom: the points of the
// symptom's rate over payloads, where its onset and its end are looked for.
type PayloadGroup struct {
	// RunGroup holds the job, the edge and the rule set; its Runs and
	// First count the payload's runs (First: its first run's start).
	RunGroup
	// Payload is the release the runs upgraded to, "" when they do not say:
	// then the group is one run, whose build id is Run.
	Payload, Run string
	// Hits are the runs showing the symptom.
	Hits int
}

// PayloadCounts are the payload groups of a symptom, with the rules and
// rule sets that say which of them count for it (Population).
type PayloadCounts struct {
	AnalysisCounts
	Groups []PayloadGroup
}

// PayloadCounts counts, for symptom, the runs in the rates in b's bounds by
// job, edge, rule set and payload, in one read transaction; the caller
// keeps the groups whose population is counted, and keys them to edges as
// every rate does.
func (d *DB) PayloadCounts(ctx context.Context, symptom string, b Bounds) (c PayloadCounts, err error) {
	bound, args, err := b.where()
	if err != nil {
		return c, fmt.Errorf("payload counts: %w", err)
	}
	tx, err := d.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return c, fmt.Errorf("payload counts: %w", err)
	}
	defer func() { err = errors.Join(err, rollback(tx)) }()
	if c.Rules, err = activeSymptoms(ctx, tx); err != nil {
		return c, err
	}
	if c.RuleSets, err = loadRuleSets(ctx, tx); err != nil {
		return c, err
	}
	c.Groups, err = queryList(ctx, tx, func(rows *sql.Rows) (PayloadGroup, error) {
		var g PayloadGroup
		var first sql.NullString
		if err := rows.Scan(&g.Job, &g.Release, &g.FromRelease, &g.Upgrade, &g.RuleSet, &g.Payload, &g.Run,
			&g.Platform, &g.Network, &g.Arch, &g.Topology, &g.Stack, &g.Type, &g.Runs, &g.Failed, &g.Hits, &first); err != nil {
			return g, err
		}
		var err error
		g.First, err = parseTime(first)
		g.Last = g.First
		return g, err
	}, `SELECT g.job, g.release, g.from_release, g.upgrade, g.rule_set, g.payload, g.run,
	coalesce(j.platform, ''), coalesce(j.network, ''), coalesce(j.arch, ''), coalesce(j.topology, ''), coalesce(j.network_stack, ''), coalesce(j.type, ''),
	g.runs, g.failed, g.hits, g.first
FROM (
	SELECT r.job, coalesce(r.release, '') AS release, coalesce(r.from_release, '') AS from_release,
		coalesce(r.upgrade, '') AS upgrade, coalesce(r.rule_set, 0) AS rule_set, coalesce(r.to_version, '') AS payload,
		CASE WHEN coalesce(r.to_version, '') = '' THEN CAST(r.build_id AS TEXT) ELSE '' END AS run,
		count(*) AS runs, count(CASE WHEN r.result <> 'success' THEN 1 END) AS failed,
		count(s.symptom_id) AS hits, min(r.started_at) AS first
	FROM runs r LEFT JOIN run_symptoms s ON s.job = r.job AND s.build_id = r.build_id AND s.symptom_id = ?
	WHERE `+countedRun+` AND `+startedRun+bound+`
	GROUP BY 1, 2, 3, 4, 5, 6, 7
) g JOIN jobs j ON j.name = g.job
ORDER BY g.first, 1, 2, 3, 4, 5, 6, 7`, append([]any{symptom}, args...)...)
	if err != nil {
		return c, fmt.Errorf("payload counts: %w", err)
	}
	return c, nil
}
