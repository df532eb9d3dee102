package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// Symptom is a row of symptoms: what a classification rule detects.
type Symptom struct {
	ID, Title, Description, Bug string
	Source                      string // "builtin" or the rules file it came from
	Active                      bool
	// RuleHash is the current version of the symptom's rule
	// (classify.Rule.Hash): only runs that version read are counted.
	RuleHash string
	// Reach is where the rule applies: runs out of it are never counted.
	Reach prowcrawl.Reach
}

// Version is the current version of the symptom's rule.
func (s Symptom) Version() prowcrawl.RuleVersion {
	return prowcrawl.RuleVersion{ID: s.ID, Hash: s.RuleHash}
}

// topologyList is a reach's topologies as stored: a comma list, NULL when
// empty.
func topologyList(t []string) any { return nullString(strings.Join(t, ",")) }

// topologiesOf reads a topologyList.
func topologiesOf(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// SyncSymptoms makes the symptoms table match the active rules: each given
// symptom is inserted or updated and marked active; every other symptom is
// marked inactive but kept, since stored evidence refers to it.
func (d *DB) SyncSymptoms(ctx context.Context, active []Symptom) (err error) {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("sync symptoms: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	if _, err := tx.ExecContext(ctx, `UPDATE symptoms SET active = 0`); err != nil {
		return fmt.Errorf("sync symptoms: %w", err)
	}
	// The runs stored before evaluations were recorded (migration 0020)
	// were read by a version of a rule that no match recorded: the first
	// version synced since is taken as theirs.
	adopt, err := tx.PrepareContext(ctx, `UPDATE rule_set_rules SET rule_hash = ?2
WHERE rule_set = 1 AND symptom_id = ?1 AND rule_hash IS NULL
	AND EXISTS (SELECT 1 FROM rule_sets WHERE id = 1 AND digest = 'before evaluations were recorded')
	AND EXISTS (SELECT 1 FROM symptoms WHERE id = ?1 AND rule_hash IS NULL)`)
	if err != nil {
		return fmt.Errorf("sync symptoms: %w", err)
	}
	defer adopt.Close()
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO symptoms (id, title, description, bug, source, active, rule_hash, topology, not_topology)
VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)
ON CONFLICT (id) DO UPDATE SET title = excluded.title, description = excluded.description,
	bug = excluded.bug, source = excluded.source, active = 1, rule_hash = excluded.rule_hash,
	topology = excluded.topology, not_topology = excluded.not_topology`)
	if err != nil {
		return fmt.Errorf("sync symptoms: %w", err)
	}
	defer stmt.Close()
	for _, s := range active {
		if s.RuleHash != "" {
			if _, err := adopt.ExecContext(ctx, s.ID, s.RuleHash); err != nil {
				return fmt.Errorf("sync symptom %s: %w", s.ID, err)
			}
		}
		if _, err := stmt.ExecContext(ctx, s.ID, s.Title, nullString(s.Description), nullString(s.Bug), s.Source,
			nullString(s.RuleHash), topologyList(s.Reach.Topology), topologyList(s.Reach.NotTopology)); err != nil {
			return fmt.Errorf("sync symptom %s: %w", s.ID, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("sync symptoms: commit: %w", err)
	}
	return nil
}

// Symptoms lists the symptoms table, active ones first.
func (d *DB) Symptoms(ctx context.Context) ([]Symptom, error) {
	out, err := queryList(ctx, d.db, func(rows *sql.Rows) (Symptom, error) {
		var s Symptom
		var topology, notTopology string
		err := rows.Scan(&s.ID, &s.Title, &s.Description, &s.Bug, &s.Source, &s.Active,
			&s.RuleHash, &topology, &notTopology)
		s.Reach = prowcrawl.Reach{Topology: topologiesOf(topology), NotTopology: topologiesOf(notTopology)}
		return s, err
	}, `SELECT id, title, coalesce(description, ''), coalesce(bug, ''), source, active,
	coalesce(rule_hash, ''), coalesce(topology, ''), coalesce(not_topology, '')
FROM symptoms ORDER BY active DESC, id`)
	if err != nil {
		return nil, fmt.Errorf("symptoms: %w", err)
	}
	return out, nil
}

// SymptomCount is how many runs of a job show a symptom.
type SymptomCount struct {
	Job, Symptom string
	Runs, Failed int
}

// SymptomCounts counts, per job and active symptom, the counted runs that
// show it (prowcrawl.PopulationOf: finished, upgrade begun, in the rule's
// reach, found by the rule's current version, which therefore read them),
// and of those the runs that did not succeed: the numbers a rate's
// numerator counts, as v_counted_runs does.
func (d *DB) SymptomCounts(ctx context.Context) ([]SymptomCount, error) {
	out, err := queryList(ctx, d.db, func(rows *sql.Rows) (SymptomCount, error) {
		var c SymptomCount
		err := rows.Scan(&c.Job, &c.Symptom, &c.Runs, &c.Failed)
		return c, err
	}, `SELECT rs.job, rs.symptom_id, count(*), count(CASE WHEN r.result <> 'success' THEN 1 END)
FROM run_symptoms rs
JOIN symptoms s ON s.id = rs.symptom_id AND s.active = 1 AND rs.rule_hash IS s.rule_hash
JOIN runs r ON r.job = rs.job AND r.build_id = rs.build_id
JOIN jobs j ON j.name = r.job
WHERE r.result IN ('success', 'failure', 'error') AND `+startedRun+`
	AND (coalesce(j.topology, '') = '' OR (instr(',' || coalesce(s.not_topology, '') || ',', ',' || j.topology || ',') = 0
		AND (s.topology IS NULL OR instr(',' || s.topology || ',', ',' || j.topology || ',') > 0)))
GROUP BY 1, 2 ORDER BY 1, 2`)
	if err != nil {
		return nil, fmt.Errorf("symptom counts: %w", err)
	}
	return out, nil
}

// RunSymptoms is a run and the ids of the symptoms it shows.
type RunSymptoms struct {
	Job       string
	BuildID   int64
	Result    prowcrawl.Result
	StartedAt time.Time
	URL       string
	Symptoms  []string
}

// RunsWithSymptoms lists the newest runs that show any symptom.
func (d *DB) RunsWithSymptoms(ctx context.Context, limit int) ([]RunSymptoms, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT r.job, r.build_id, r.result, r.started_at, r.url,
	(SELECT group_concat(symptom_id, ' ') FROM (SELECT symptom_id FROM run_symptoms s
	  WHERE s.job = r.job AND s.build_id = r.build_id ORDER BY symptom_id))
FROM runs r
WHERE EXISTS (SELECT 1 FROM run_symptoms s WHERE s.job = r.job AND s.build_id = r.build_id)
ORDER BY r.started_at DESC, r.job LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("runs with symptoms: %w", err)
	}
	defer rows.Close()
	var out []RunSymptoms
	for rows.Next() {
		var r RunSymptoms
		var started sql.NullString
		var ids string
		if err := rows.Scan(&r.Job, &r.BuildID, &r.Result, &started, &r.URL, &ids); err != nil {
			return nil, fmt.Errorf("runs with symptoms: %w", err)
		}
		if r.StartedAt, err = parseTime(started); err != nil {
			return nil, err
		}
		r.Symptoms = strings.Fields(ids)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("runs with symptoms: %w", err)
	}
	return out, nil
}

// Reclassified is a stored run's symptoms as found again.
type Reclassified struct {
	Job      string
	BuildID  int64
	Symptoms []prowcrawl.RunSymptom
	// Rules are the rule versions that classified the run again: they
	// replace those that classified it before.
	Rules []prowcrawl.RuleVersion
}

// ReplaceSymptoms replaces the run_symptoms of the given runs and the rule
// versions that classified them, all in one transaction; the runs' other
// rows are left as they are. A run that is
// not stored is an error, and nothing is written. The symptoms must be in
// the symptoms table (see SyncSymptoms).
func (d *DB) ReplaceSymptoms(ctx context.Context, runs []Reclassified) (err error) {
	if len(runs) == 0 {
		return nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("replace symptoms: %w", err)
	}
	defer func() {
		if err != nil {
			err = errors.Join(err, rollback(tx))
		}
	}()
	del, err := tx.PrepareContext(ctx, deleteSymptoms)
	if err != nil {
		return fmt.Errorf("replace symptoms: %w", err)
	}
	defer del.Close()
	ins, err := tx.PrepareContext(ctx, insertSymptom)
	if err != nil {
		return fmt.Errorf("replace symptoms: %w", err)
	}
	defer ins.Close()
	exists, err := tx.PrepareContext(ctx, `SELECT count(*) FROM runs WHERE job = ? AND build_id = ?`)
	if err != nil {
		return fmt.Errorf("replace symptoms: %w", err)
	}
	defer exists.Close()
	setRun, err := tx.PrepareContext(ctx, `UPDATE runs SET rule_set = ? WHERE job = ? AND build_id = ?`)
	if err != nil {
		return fmt.Errorf("replace symptoms: %w", err)
	}
	defer setRun.Close()
	var sets ruleSets
	for _, r := range runs {
		var n int
		if err := exists.QueryRowContext(ctx, r.Job, r.BuildID).Scan(&n); err != nil {
			return fmt.Errorf("replace symptoms of %s/%d: %w", r.Job, r.BuildID, err)
		}
		if n == 0 {
			return fmt.Errorf("replace symptoms of %s/%d: no such run", r.Job, r.BuildID)
		}
		if _, err := del.ExecContext(ctx, r.Job, r.BuildID); err != nil {
			return fmt.Errorf("replace symptoms of %s/%d: %w", r.Job, r.BuildID, err)
		}
		set, err := sets.id(ctx, tx, r.Rules)
		if err != nil {
			return fmt.Errorf("replace symptoms of %s/%d: %w", r.Job, r.BuildID, err)
		}
		if _, err := setRun.ExecContext(ctx, set, r.Job, r.BuildID); err != nil {
			return fmt.Errorf("replace symptoms of %s/%d: %w", r.Job, r.BuildID, err)
		}
		for _, sy := range r.Symptoms {
			if _, err := ins.ExecContext(ctx, symptomArgs(r.Job, r.BuildID, sy)...); err != nil {
				return fmt.Errorf("replace symptom %s of %s/%d: %w", sy.SymptomID, r.Job, r.BuildID, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("replace symptoms: commit: %w", err)
	}
	return nil
}
