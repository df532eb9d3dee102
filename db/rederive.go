package db

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/prow"
)

// goSteps are the steps of migrations that SQL cannot do, run in the
// migration's transaction after its SQL. A later change to how variants or
// keys are derived adds a migration whose step is rederive again.
var goSteps = map[int64]func(context.Context, *sql.Tx) error{
	5:  rederive,
	22: rederiveStacks,
}

// rederive derives the variants of every stored job again from its name
// (prowcrawl.JobFromName, keeping a job found under pr-logs/ a presubmit),
// the edge of the runs of jobs whose name names it, whether each run's
// upgrade began (from what was stored: the clusterversion's versions and
// the tests), and the runs' edge and variant keys (prowcrawl.RunKeys). When
// a run's edge changed, the tests' counts, which are kept by edge, are
// counted again.
func rederive(ctx context.Context, tx *sql.Tx) error {
	jobs, err := storedJobs(ctx, tx)
	if err != nil {
		return fmt.Errorf("rederive jobs: %w", err)
	}
	moved := int64(0)
	for _, j := range jobs {
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET type = ?, release = ?, from_release = ?, upgrade = ?,
	platform = ?, network = ?, arch = ?, topology = ? WHERE name = ?`,
			nullString(j.Type), nullString(j.Release), nullString(j.FromRelease), nullString(j.Upgrade),
			nullString(j.Platform), nullString(j.Network), nullString(j.Arch), nullString(j.Topology), j.Name); err != nil {
			return fmt.Errorf("rederive job %s: %w", j.Name, err)
		}
		if j.Release == "" {
			continue // old names without a version: the runs' own versions decide
		}
		res, err := tx.ExecContext(ctx, `UPDATE runs SET release = ?1, from_release = ?2, upgrade = ?3
WHERE job = ?4 AND (release IS NOT ?1 OR from_release IS NOT ?2 OR upgrade IS NOT ?3)`,
			j.Release, nullString(j.FromRelease), nullString(j.Upgrade), j.Name)
		if err != nil {
			return fmt.Errorf("rederive runs of %s: %w", j.Name, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		moved += n
	}
	if err := fillUpgradeStarted(ctx, tx); err != nil {
		return err
	}
	if err := fillKeys(ctx, tx, jobs); err != nil {
		return err
	}
	if moved > 0 {
		if _, err := tx.ExecContext(ctx, `DELETE FROM test_counts`); err != nil {
			return fmt.Errorf("recount tests: %w", err)
		}
		if _, err := tx.ExecContext(ctx, countAllTests); err != nil {
			return fmt.Errorf("recount tests: %w", err)
		}
	}
	return nil
}

// rederiveStacks derives every stored job's network stack from its name
// (migration 0022) and keys its runs' variants again.
func rederiveStacks(ctx context.Context, tx *sql.Tx) error {
	jobs, err := storedJobs(ctx, tx)
	if err != nil {
		return fmt.Errorf("rederive stacks: %w", err)
	}
	for _, j := range jobs {
		if _, err := tx.ExecContext(ctx, `UPDATE jobs SET network_stack = ? WHERE name = ?`, nullString(j.Stack), j.Name); err != nil {
			return fmt.Errorf("rederive the stack of %s: %w", j.Name, err)
		}
	}
	return fillKeys(ctx, tx, jobs)
}

// storedJobs are the stored jobs with their variants derived again.
func storedJobs(ctx context.Context, tx *sql.Tx) (map[string]prowcrawl.Job, error) {
	jobs := map[string]prowcrawl.Job{}
	err := queryEach(ctx, tx, func(rows *sql.Rows) error {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return err
		}
		jobs[name] = prowcrawl.JobFromName(name, typ == prowcrawl.TypePresubmit)
		return nil
	}, `SELECT name, coalesce(type, '') FROM jobs`)
	if err != nil {
		return nil, err
	}
	return jobs, nil
}

// fillUpgradeStarted sets runs.upgrade_started from what is stored, as
// prow.UpgradeBegan decides it from the artifacts: 1 with a second
// clusterversion history entry (a Completed version below the newest, which
// is from_version) or an acknowledgement test that passed; 0 when that test
// failed, or when the clusterversion was read (to_version) with no second
// entry and the run's JUnit (some test) holds no acknowledgement; NULL
// otherwise, and for jobs that do not upgrade.
func fillUpgradeStarted(ctx context.Context, tx *sql.Tx) error {
	// The acknowledgement tests, found by name in tests_name_status: one row
	// per upgrade run, not a look at every test of every run.
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE acks AS
SELECT job, build_id, max(status IN ('pass', 'flake')) AS passed, max(status = 'fail') AS failed
FROM tests WHERE name IN (?1, 'Cluster upgrade.' || ?1) AND status <> 'skip'
GROUP BY job, build_id`, prow.AckUpgradeTest); err != nil {
		return fmt.Errorf("upgrade started: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE UNIQUE INDEX temp.acks_run ON acks (job, build_id)`); err != nil {
		return fmt.Errorf("upgrade started: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `UPDATE runs SET upgrade_started = CASE
	WHEN (SELECT coalesce(upgrade, '') FROM jobs j WHERE j.name = runs.job) = 'none' THEN NULL
	WHEN from_version IS NOT NULL THEN 1
	WHEN (SELECT passed FROM acks a WHERE a.job = runs.job AND a.build_id = runs.build_id) = 1 THEN 1
	WHEN (SELECT failed FROM acks a WHERE a.job = runs.job AND a.build_id = runs.build_id) = 1 THEN 0
	WHEN to_version IS NOT NULL AND EXISTS (SELECT 1 FROM tests t WHERE t.job = runs.job AND t.build_id = runs.build_id) THEN 0
	END`); err != nil {
		return fmt.Errorf("upgrade started: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `DROP TABLE temp.acks`); err != nil {
		return fmt.Errorf("upgrade started: %w", err)
	}
	return nil
}

// fillKeys sets runs.edge and runs.variant of every stored run: prowcrawl.RunKeys of
// each group of runs of one job on one edge.
func fillKeys(ctx context.Context, tx *sql.Tx, jobs map[string]prowcrawl.Job) error {
	type group struct{ job, release, from, upgrade sql.NullString }
	groups, err := queryList(ctx, tx, func(rows *sql.Rows) (group, error) {
		var g group
		err := rows.Scan(&g.job, &g.release, &g.from, &g.upgrade)
		return g, err
	}, `SELECT DISTINCT job, release, from_release, upgrade FROM runs INDEXED BY runs_analysis`)
	if err != nil {
		return fmt.Errorf("run keys: %w", err)
	}
	for _, g := range groups {
		j, ok := jobs[g.job.String]
		if !ok {
			j = prowcrawl.JobFromName(g.job.String, false)
		}
		edge, variant := prowcrawl.RunKeys(j, g.release.String, g.from.String, g.upgrade.String)
		if _, err := tx.ExecContext(ctx, `UPDATE runs SET edge = ?, variant = ?
WHERE job = ? AND release IS ? AND from_release IS ? AND upgrade IS ?`,
			nullString(edge.String()), nullString(variant.String()), g.job, g.release, g.from, g.upgrade); err != nil {
			return fmt.Errorf("run keys of %s: %w", g.job.String, err)
		}
	}
	return nil
}

// countAllTests counts every finished run's tests into test_counts, as
// migration 0004 first did.
const countAllTests = `INSERT INTO test_counts (job, release, from_release, upgrade, suite, name, runs, failures, flakes)
SELECT r.job, coalesce(r.release, ''), coalesce(r.from_release, ''), coalesce(r.upgrade, ''), t.suite, t.name,
	count(*), count(CASE WHEN t.status = 'fail' THEN 1 END), count(CASE WHEN t.status = 'flake' THEN 1 END)
FROM runs r INDEXED BY runs_key
CROSS JOIN tests t ON t.job = r.job AND t.build_id = r.build_id
WHERE t.status IN ('pass', 'fail', 'flake') AND r.result IN ('success', 'failure', 'error')
GROUP BY 1, 2, 3, 4, 5, 6`
