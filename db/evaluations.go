package db

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/openshift-eng/prowcrawl"
)

// ruleSets finds or stores the rule sets of one transaction's runs: the
// versions of the rules that classified them (migration 0020). A crawl's
// runs all share one set, so it is looked up once per transaction.
type ruleSets struct {
	ids map[string]int64
	// current are the active rules' versions, once read.
	current []prowcrawl.RuleVersion
	read    bool
}

// active are the versions of the active symptoms' rules.
func (s *ruleSets) active(ctx context.Context, tx *sql.Tx) ([]prowcrawl.RuleVersion, error) {
	if s.read {
		return s.current, nil
	}
	vs, err := queryList(ctx, tx, func(rows *sql.Rows) (prowcrawl.RuleVersion, error) {
		var v prowcrawl.RuleVersion
		return v, rows.Scan(&v.ID, &v.Hash)
	}, `SELECT id, coalesce(rule_hash, '') FROM symptoms WHERE active = 1 ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("active rules: %w", err)
	}
	s.current, s.read = vs, true
	return vs, nil
}

// id is the rule set of rules, stored when new; NULL for no rules (a run
// that no rule read).
func (s *ruleSets) id(ctx context.Context, tx *sql.Tx, rules []prowcrawl.RuleVersion) (any, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	digest := prowcrawl.RuleSetDigest(rules)
	if id, ok := s.ids[digest]; ok {
		return id, nil
	}
	var id int64
	err := tx.QueryRowContext(ctx, `SELECT id FROM rule_sets WHERE digest = ?`, digest).Scan(&id)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if err := tx.QueryRowContext(ctx, `INSERT INTO rule_sets (digest) VALUES (?) RETURNING id`, digest).Scan(&id); err != nil {
			return nil, fmt.Errorf("rule set: %w", err)
		}
		for _, r := range rules {
			if _, err := tx.ExecContext(ctx, `INSERT INTO rule_set_rules (rule_set, symptom_id, rule_hash) VALUES (?, ?, ?)
ON CONFLICT DO NOTHING`, id, r.ID, nullString(r.Hash)); err != nil {
				return nil, fmt.Errorf("rule set: %w", err)
			}
		}
	case err != nil:
		return nil, fmt.Errorf("rule set: %w", err)
	}
	if s.ids == nil {
		s.ids = map[string]int64{}
	}
	s.ids[digest] = id
	return id, nil
}

// RuleSet is a stored set of rule versions that classified some runs.
type RuleSet struct {
	ID       int64
	Versions []prowcrawl.RuleVersion // by symptom id; a hash is "" when unknown
}

// loadRuleSets reads every stored rule set.
func loadRuleSets(ctx context.Context, tx *sql.Tx) (map[int64]RuleSet, error) {
	type member struct {
		set      int64
		id, hash string
	}
	ms, err := queryList(ctx, tx, func(rows *sql.Rows) (member, error) {
		var m member
		return m, rows.Scan(&m.set, &m.id, &m.hash)
	}, `SELECT rule_set, symptom_id, coalesce(rule_hash, '') FROM rule_set_rules ORDER BY rule_set, symptom_id`)
	if err != nil {
		return nil, fmt.Errorf("rule sets: %w", err)
	}
	sets := map[int64]RuleSet{}
	for _, m := range ms {
		s := sets[m.set]
		s.ID = m.set
		s.Versions = append(s.Versions, prowcrawl.RuleVersion{ID: m.id, Hash: m.hash})
		sets[m.set] = s
	}
	return sets, nil
}

// activeSymptoms reads the active symptoms' rows, by id.
func activeSymptoms(ctx context.Context, tx *sql.Tx) (map[string]Symptom, error) {
	list, err := queryList(ctx, tx, func(rows *sql.Rows) (Symptom, error) {
		var s Symptom
		var topology, notTopology string
		err := rows.Scan(&s.ID, &s.Title, &s.Source, &s.RuleHash, &topology, &notTopology)
		s.Active = true
		s.Reach = prowcrawl.Reach{Topology: topologiesOf(topology), NotTopology: topologiesOf(notTopology)}
		return s, err
	}, `SELECT id, title, source, coalesce(rule_hash, ''), coalesce(topology, ''), coalesce(not_topology, '')
FROM symptoms WHERE active = 1 ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("active symptoms: %w", err)
	}
	out := make(map[string]Symptom, len(list))
	for _, s := range list {
		out[s.ID] = s
	}
	return out, nil
}

// Population is the population, for symptom, of the finished runs whose
// upgrade began of a group of topology and rule set (0: no rule read
// them): counted, out of the rule's reach, or not classified yet by its
// current version. It is prowcrawl.PopulationOf, the one definition of a
// counted run, for the runs of a group.
func (c AnalysisCounts) Population(symptom, job, topology string, ruleSet int64) prowcrawl.Population {
	began := true
	s := c.Rules[symptom]
	return prowcrawl.PopulationOf(prowcrawl.RunFacts{Job: job, Result: prowcrawl.ResultSuccess, UpgradeStarted: &began, Topology: topology,
		Evaluated: c.RuleSets[ruleSet].Versions}, s.Version(), s.Reach)
}
