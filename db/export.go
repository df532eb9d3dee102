package db

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strings"

	"github.com/openshift-eng/prowcrawl"
)

// ExportRun is a run with its job's variants, its keys, and the lists
// nested in it (tests, symptoms, disruption), as an export writes it. A new
// list of a run (the rules that evaluated it, say) is a field here filled by
// one more exportChildren call in exportPage.
type ExportRun struct {
	Job prowcrawl.Job
	Run prowcrawl.Run
	// Edge and Variant are runs.edge and runs.variant, the run's scope keys
	// (prowcrawl.RunKeys): empty for a presubmit and for a run of no known release.
	Edge, Variant string
	Tests         []prowcrawl.Test
	Symptoms      []prowcrawl.RunSymptom
	// Disruptions are the run's disruption per backend: its run_disruptions
	// rows of every file summed, by backend.
	Disruptions []ExportDisruption
	// Rules are, for every active rule and every rule version that read
	// the run, the version's hash (empty when that rule has not read it)
	// and the run's population for the rule's current version
	// (v_run_populations; empty for a version that is no longer current).
	Rules []ExportRule
}

// ExportRule is a rule's relation to a run: the version of it that read
// the run and whether the run is one of its counted runs.
type ExportRule struct {
	ID, Hash   string
	Population string
}

// ExportDisruption is a run's disruption of one backend, summed over the
// files that measured it.
type ExportDisruption struct {
	Backend     string  // run_disruptions.backend, e.g. kube-api-new-connections
	BackendName string  // e.g. kube-api; empty when unknown
	Connection  string  // new, reused or empty
	Seconds     float64 // the files' disrupted_s summed; NaN when none gave a duration
	Files       int     // how many files had the backend
}

// exportPage is how many runs are read at a time: the database has one
// connection, so runs and each list nested in them are read page by page
// rather than as several open cursors.
const exportPage = 500

// ExportRuns calls fn for every run, in (job, build_id) order.
func (d *DB) ExportRuns(ctx context.Context, fn func(ExportRun) error) error {
	var lastJob string
	var lastID int64 = -1
	for {
		page, err := d.exportPage(ctx, lastJob, lastID)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			return nil
		}
		for _, r := range page {
			if err := fn(r); err != nil {
				return err
			}
		}
		last := page[len(page)-1].Run
		lastJob, lastID = last.Job, last.BuildID
	}
}

func (d *DB) exportPage(ctx context.Context, afterJob string, afterID int64) ([]ExportRun, error) {
	rows, err := d.db.QueryContext(ctx, `SELECT j.name, coalesce(j.type, ''), coalesce(j.release, ''), coalesce(j.from_release, ''),
	coalesce(j.upgrade, ''), coalesce(j.platform, ''), coalesce(j.network, ''), coalesce(j.arch, ''), coalesce(j.topology, ''), coalesce(j.network_stack, ''),
	r.build_id, r.bucket, r.path, r.url, r.started_at, r.finished_at, r.result, coalesce(r.release, ''), coalesce(r.from_release, ''),
	coalesce(r.upgrade, ''), coalesce(r.from_version, ''), coalesce(r.to_version, ''), coalesce(r.upgrade_state, ''),
	r.upgrade_started, coalesce(r.edge, ''), coalesce(r.variant, ''),
	coalesce(r.tag, ''), coalesce(r.from_tag, ''), coalesce(r.pull, 0), r.fetch_status, coalesce(r.fetch_error, ''),
	r.objects_read, r.bytes_read, r.crawled_at,
	coalesce(r.overall_result, ''), coalesce(r.cluster_networks, ''), coalesce(r.service_networks, '')
FROM runs r JOIN jobs j ON j.name = r.job
WHERE (r.job, r.build_id) > (?, ?)
ORDER BY r.job, r.build_id LIMIT ?`, afterJob, afterID, exportPage)
	if err != nil {
		return nil, fmt.Errorf("export runs: %w", err)
	}
	defer rows.Close()
	var page []ExportRun
	for rows.Next() {
		var e ExportRun
		j, r := &e.Job, &e.Run
		var started, finished, crawled sql.NullString
		var upgradeStarted sql.NullBool
		var overall, clusterNets, serviceNets string
		if err := rows.Scan(&j.Name, &j.Type, &j.Release, &j.FromRelease, &j.Upgrade, &j.Platform, &j.Network, &j.Arch, &j.Topology, &j.Stack,
			&r.BuildID, &r.Bucket, &r.Path, &r.URL, &started, &finished, &r.Result, &r.Release, &r.FromRelease,
			&r.Upgrade, &r.FromVersion, &r.ToVersion, &r.UpgradeState,
			&upgradeStarted, &e.Edge, &e.Variant,
			&r.Tag, &r.FromTag, &r.Pull, &r.FetchStatus, &r.FetchError,
			&r.ObjectsRead, &r.BytesRead, &crawled, &overall, &clusterNets, &serviceNets); err != nil {
			return nil, fmt.Errorf("export runs: %w", err)
		}
		r.Job = j.Name
		r.Overall = prowcrawl.OverallResult(overall)
		r.ClusterNetworks, r.ServiceNetworks = splitList(clusterNets), splitList(serviceNets)
		if upgradeStarted.Valid {
			r.UpgradeStarted = &upgradeStarted.Bool
		}
		var perr error
		if r.StartedAt, perr = parseTime(started); perr == nil {
			if r.FinishedAt, perr = parseTime(finished); perr == nil {
				r.CrawledAt, perr = parseTime(crawled)
			}
		}
		if perr != nil {
			return nil, fmt.Errorf("export run %s/%d: %w", r.Job, r.BuildID, perr)
		}
		page = append(page, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("export runs: %w", err)
	}
	rows.Close()
	if len(page) == 0 {
		return nil, nil
	}

	// The lists nested in the page's runs, one query each over the page's
	// key range, in key order.
	if err := exportChildren(ctx, d, page, "tests",
		`SELECT job, build_id, suite, name, status, coalesce(duration_s, 0), coalesce(message, '')
FROM tests WHERE (job, build_id) >= (?, ?) AND (job, build_id) <= (?, ?) ORDER BY job, build_id, suite, name`,
		func(rows *sql.Rows, k *runKey, t *prowcrawl.Test) error {
			return rows.Scan(&k.job, &k.id, &t.Suite, &t.Name, &t.Status, &t.DurationS, &t.Message)
		},
		func(e *ExportRun, t prowcrawl.Test) { e.Tests = append(e.Tests, t) }); err != nil {
		return nil, err
	}
	if err := exportChildren(ctx, d, page, "symptoms",
		`SELECT job, build_id, symptom_id, hits, coalesce(file, ''), coalesce(line, 0), coalesce(excerpt, ''), at, last_at, coalesce(rule_hash, '')
FROM run_symptoms WHERE (job, build_id) >= (?, ?) AND (job, build_id) <= (?, ?) ORDER BY job, build_id, symptom_id`,
		func(rows *sql.Rows, k *runKey, s *prowcrawl.RunSymptom) error {
			var at, lastAt sql.NullString
			if err := rows.Scan(&k.job, &k.id, &s.SymptomID, &s.Hits, &s.File, &s.Line, &s.Excerpt, &at, &lastAt, &s.RuleHash); err != nil {
				return err
			}
			var err error
			if s.At, err = parseTime(at); err != nil {
				return err
			}
			s.LastAt, err = parseTime(lastAt)
			return err
		},
		func(e *ExportRun, s prowcrawl.RunSymptom) { e.Symptoms = append(e.Symptoms, s) }); err != nil {
		return nil, err
	}
	// A backend's name and connection are the same in every file of a run
	// (they are parts of its Name); max() picks the one that is known.
	if err := exportChildren(ctx, d, page, "disruptions",
		`SELECT job, build_id, backend, coalesce(max(backend_name), ''), coalesce(max(connection), ''), sum(disrupted_s), count(*)
FROM run_disruptions WHERE (job, build_id) >= (?, ?) AND (job, build_id) <= (?, ?)
GROUP BY job, build_id, backend ORDER BY job, build_id, backend`,
		func(rows *sql.Rows, k *runKey, x *ExportDisruption) error {
			var seconds sql.NullFloat64
			if err := rows.Scan(&k.job, &k.id, &x.Backend, &x.BackendName, &x.Connection, &seconds, &x.Files); err != nil {
				return err
			}
			x.Seconds = math.NaN()
			if seconds.Valid {
				x.Seconds = seconds.Float64
			}
			return nil
		},
		func(e *ExportRun, x ExportDisruption) { e.Disruptions = append(e.Disruptions, x) }); err != nil {
		return nil, err
	}
	// Every rule that read the run, or that is active now: which version
	// read it, and the run's population for the current version.
	if err := exportChildren(ctx, d, page, "rules",
		`SELECT job, build_id, id, max(hash), max(population) FROM (
	SELECT r.job, r.build_id, m.symptom_id AS id, coalesce(m.rule_hash, '') AS hash, '' AS population
	FROM runs r JOIN rule_set_rules m ON m.rule_set = r.rule_set
	WHERE (r.job, r.build_id) >= (?1, ?2) AND (r.job, r.build_id) <= (?3, ?4)
	UNION ALL
	SELECT p.job, p.build_id, p.symptom_id, '', p.population FROM v_run_populations p
	WHERE (p.job, p.build_id) >= (?1, ?2) AND (p.job, p.build_id) <= (?3, ?4)
) GROUP BY job, build_id, id ORDER BY job, build_id, id`,
		func(rows *sql.Rows, k *runKey, x *ExportRule) error {
			return rows.Scan(&k.job, &k.id, &x.ID, &x.Hash, &x.Population)
		},
		func(e *ExportRun, x ExportRule) { e.Rules = append(e.Rules, x) }); err != nil {
		return nil, err
	}
	return page, nil
}

// exportChildren reads, with query, the rows of a list nested in the runs of
// page, and adds each to its run. query selects the rows whose (job,
// build_id) lie between its four arguments, the page's first and last keys;
// scan reads a row's run key and value.
func exportChildren[T any](ctx context.Context, d *DB, page []ExportRun, what, query string,
	scan func(*sql.Rows, *runKey, *T) error, add func(*ExportRun, T)) error {
	index := make(map[runKey]int, len(page))
	for i, e := range page {
		index[runKey{e.Run.Job, e.Run.BuildID}] = i
	}
	first, last := page[0].Run, page[len(page)-1].Run
	err := queryEach(ctx, d.db, func(rows *sql.Rows) error {
		var k runKey
		var v T
		if err := scan(rows, &k, &v); err != nil {
			return err
		}
		if i, ok := index[k]; ok {
			add(&page[i], v)
		}
		return nil
	}, query, first.Job, first.BuildID, last.Job, last.BuildID)
	if err != nil {
		return fmt.Errorf("export %s: %w", what, err)
	}
	return nil
}

type runKey struct {
	job string
	id  int64
}

// splitList reads a comma-separated column, nil when empty.
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
