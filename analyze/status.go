package analyze

import (
	"context"

	"github.com/openshift-eng/prowcrawl/db"
)

// Status is what `prowcrawl status` shows: the runs stored per job, the
// symptoms they show, the newest runs with symptoms, and the last crawl.
type Status struct {
	Jobs     []db.JobStatus
	Symptoms []db.SymptomCount
	// Runs are the newest runs with symptoms, when RunsAsked > 0.
	Runs      []db.RunSymptoms
	RunsAsked int
	LastCrawl *db.Crawl
	// Problems counts the runs not read whole or read with problems;
	// ProblemRuns lists the first maxProblemRuns of them.
	Problems    db.ProblemCounts
	ProblemRuns []db.RunProblem
	// DB is the database's path, for the hints that name it.
	DB string
	// Tally counts every stored run by overall result and by population:
	// how many runs every rate leaves out, and why.
	Tally db.RunTally
}

// maxProblemRuns bounds the runs with problems that status lists.
const maxProblemRuns = 20

// LoadStatus reads what `prowcrawl status` shows; runs is how many of the
// newest runs with symptoms to list (none when 0).
func LoadStatus(ctx context.Context, store *db.DB, runs int) (Status, error) {
	s := Status{RunsAsked: runs}
	var err error
	if s.Jobs, err = store.Status(ctx); err != nil {
		return s, err
	}
	if s.Symptoms, err = store.SymptomCounts(ctx); err != nil {
		return s, err
	}
	if runs > 0 {
		if s.Runs, err = store.RunsWithSymptoms(ctx, runs); err != nil {
			return s, err
		}
	}
	if s.Problems, s.ProblemRuns, err = store.RunProblems(ctx, maxProblemRuns); err != nil {
		return s, err
	}
	if s.Tally, err = (Selection{}).Tally(ctx, store); err != nil {
		return s, err
	}
	c, ok, err := store.LastCrawl(ctx)
	if err != nil {
		return s, err
	}
	if ok {
		s.LastCrawl = &c
	}
	return s, nil
}
