package db

import (
	"context"
	"errors"
	"fmt"

	"github.com/openshift-eng/prowcrawl"
)

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
