package bugreport

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/artifact"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/crawler"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/prow"
	"github.com/openshift-eng/prowcrawl/search"
)

// Sources are what Draft reads besides the bug's text.
type Sources struct {
	// Rules are the rules the lines and the linked runs are matched with.
	Rules []classify.Rule
	// Store is the database of the stored history, read only; nil when
	// there is none: then there are no assessments.
	Store *db.DB
	// Cache is the artifact cache of the stored runs, or nil: a linked
	// run it holds is read from it, and a proposed rule's history is
	// searched in it.
	Cache *cache.Cache
	// Fetch says that a linked run neither the store nor the cache holds
	// is read from its bucket (into memory), through GCS.
	Fetch bool
	GCS   gcs.Options
	// Now is the reader's clock; zero means time.Now.
	Now time.Time
}

// Report is a bug report's draft answer: its symptoms, its runs and the
// assessment of each symptom from the stored history. The JSON names are
// a contract.
type Report struct {
	Symptoms    []Symptom           `json:"symptoms"`
	Runs        []Run               `json:"runs"`
	Assessments []assess.Assessment `json:"assessments"`
	// Cluster is what the bug's clusterversion dump says, or nil.
	Cluster *Dump `json:"clusterversion,omitempty"`
	// Edge is the upgrade edge the dump shows ("4.4 micro"), or empty.
	Edge string `json:"clusterversion_edge,omitempty"`
	// Fill are the commands that would fill the history where it is
	// empty.
	Fill []Fill `json:"fill,omitempty"`
	// Notes say what could not be done, one sentence each.
	Notes []string `json:"notes,omitempty"`
}

// Run is a run the bug links, as classify reads it.
type Run struct {
	URL         string   `json:"url"`
	Job         string   `json:"job"`
	BuildID     int64    `json:"build_id,string"` // a string, as Prow writes it
	Edge        string   `json:"edge"`
	FromVersion string   `json:"from_version,omitempty"`
	ToVersion   string   `json:"to_version"`
	Result      string   `json:"result,omitempty"`
	Symptoms    []string `json:"symptoms"`
	// ReadFrom is where the run was read: "cache" or "bucket"; empty
	// when it was not read, and Error says why.
	ReadFrom string `json:"read_from"`
	Error    string `json:"error,omitempty"`
	started  time.Time
	bucket   string
}

// Fill is a command that would fill the stored history of an edge the
// bug concerns and the database has no run of.
type Fill struct {
	Edge    string `json:"edge"`
	Command string `json:"command"`
}

// Draft drafts the answer to a bug report whose text is t: its runs are
// read (from the cache when stored there, else from their bucket when
// src.Fetch says so), its lines matched with src.Rules, the lines no rule
// matches proposed as a rule and searched for in the cache, and each
// symptom a rule names assessed from src.Store. It writes nothing.
func Draft(ctx context.Context, t Text, src Sources) (Report, error) {
	now := src.Now
	if now.IsZero() {
		now = time.Now()
	}
	rep := Report{Cluster: t.Cluster, Symptoms: []Symptom{}, Runs: []Run{}, Assessments: []assess.Assessment{}}
	eng, err := classify.NewEngine(src.Rules)
	if err != nil {
		return rep, err
	}
	var stored []db.StoredRun
	if src.Store != nil {
		if stored, err = src.Store.StoredRuns(ctx, db.RunFilter{}); err != nil {
			return rep, err
		}
	}
	for _, l := range t.Links {
		r, err := readRun(ctx, l, stored, eng, src)
		if err != nil {
			return rep, err
		}
		rep.Runs = append(rep.Runs, r)
	}
	start := now
	switch {
	case t.Cluster != nil && !t.Cluster.cv.History[0].StartedTime.IsZero():
		start = t.Cluster.cv.History[0].StartedTime
	case len(rep.Runs) > 0 && !rep.Runs[0].started.IsZero():
		start = rep.Runs[0].started
	case len(t.Links) > 0:
		if at, ok := prow.BuildTime(t.Links[0].BuildID); ok {
			start = at
		}
	}
	matched, err := Match(ctx, src.Rules, t, start)
	if err != nil {
		return rep, err
	}
	rep.Symptoms = append(rep.Symptoms, matched.Symptoms...)
	proposed, err := Propose(ctx, src.Rules, matched.Unmatched)
	if err != nil {
		return rep, err
	}
	for i := range proposed {
		if src.Store == nil || src.Cache == nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("the history of %s is not measured: it is searched in the artifact cache of the database's runs, and there is none", proposed[i].ID))
			continue
		}
		h, err := history(ctx, src.Cache, stored, proposed[i])
		if err != nil {
			return rep, err
		}
		proposed[i].History = &h
	}
	rep.Symptoms = append(rep.Symptoms, proposed...)
	if t.Cluster != nil {
		rep.Edge = dumpEdge(t.Cluster).String()
	}
	if src.Store != nil {
		for _, s := range matched.Symptoms {
			in, err := analyze.LoadSymptom(ctx, src.Store, s.ID, analyze.Selection{})
			if errors.Is(err, analyze.ErrUnknownSymptom) {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s is not in the database: no crawl has classified runs with it (crawl or reclassify with the rules file that holds it)", s.ID))
				continue
			}
			if err != nil {
				return rep, err
			}
			rep.Assessments = append(rep.Assessments, assess.Assess(in))
		}
	} else {
		rep.Notes = append(rep.Notes, "no database: the four answers need the stored history of a crawl")
	}
	rep.Fill = fills(rep, t, stored)
	return rep, nil
}

// readRun reads a linked run: from the cache when the database stores it
// (by its job and build id, whichever bucket it was crawled from) and the
// cache holds it, else from its bucket when src.Fetch says so.
func readRun(ctx context.Context, l Link, stored []db.StoredRun, eng *classify.Engine, src Sources) (Run, error) {
	r := Run{URL: prow.ViewURL(l.Bucket, l.Path), Job: l.Job, BuildID: l.BuildID, Symptoms: []string{}, bucket: l.Bucket}
	presubmit := strings.HasPrefix(l.Path, "pr-logs/")
	i := slices.IndexFunc(stored, func(s db.StoredRun) bool { return s.Job == l.Job && s.BuildID == l.BuildID })
	var rec prowcrawl.Record
	switch {
	case i >= 0 && src.Cache != nil:
		res, err := crawler.ReadCached(ctx, src.Cache, cache.Key{Bucket: stored[i].Bucket, Path: stored[i].Path}, artifact.Options{Rules: eng, Triage: true, Now: src.Now})
		if err == nil {
			rec, r.ReadFrom = res.Record, "cache"
			break
		}
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		if !src.Fetch {
			r.Error = fmt.Sprintf("stored, but not whole in the cache (%v); --fetch reads it from its bucket", err)
			r.Edge = stored[i].Edge.String()
			return r, nil
		}
		fallthrough
	case src.Fetch:
		got, err := crawler.ReadRemote(ctx, eng.Rules(), "gs://"+l.Bucket+"/"+l.Path, src.GCS)
		if ctx.Err() != nil {
			return r, ctx.Err()
		}
		if err != nil {
			r.Error = err.Error()
			return r, nil
		}
		rec, r.ReadFrom = got, "bucket"
	default:
		r.Error = "not in the database nor its cache; --fetch reads it from its bucket"
		return r, nil
	}
	job := rec.Job
	if job.Name == "" {
		job = prowcrawl.JobFromName(l.Job, presubmit)
	}
	r.Edge = prowcrawl.EdgeOfRun(job, rec.Run).String()
	r.FromVersion, r.ToVersion, r.Result, r.started = rec.Run.FromVersion, rec.Run.ToVersion, string(rec.Run.Result), rec.Run.StartedAt
	for _, s := range rec.Symptoms {
		r.Symptoms = append(r.Symptoms, s.SymptomID)
	}
	return r, nil
}

// dumpEdge is the upgrade edge of a clusterversion dump's versions.
func dumpEdge(d *Dump) prowcrawl.Edge {
	from := d.FromVersion
	if from == "" {
		from = d.ToVersion
	}
	return prowcrawl.Edge{From: prow.ReleaseOf(from), To: prow.ReleaseOf(d.ToVersion), Kind: prow.UpgradeKind(from, d.ToVersion)}
}

// history searches the cached files of the stored runs for the lines a
// proposed symptom's rule matches.
func history(ctx context.Context, c *cache.Cache, runs []db.StoredRun, s Symptom) (History, error) {
	h := History{Edges: []EdgeShare{}, Jobs: []string{}, Examples: []string{}}
	rule, err := Check(nil, s.Rule)
	if err != nil {
		return h, err
	}
	var parts []string
	for _, g := range rule.Files {
		re, err := classify.CompileGlob(g)
		if err != nil {
			return h, err
		}
		parts = append(parts, re.String())
	}
	files, err := regexp.Compile(strings.Join(parts, "|"))
	if err != nil {
		return h, err
	}
	res, err := search.Search(ctx, c, runs, search.Options{Pattern: s.Pattern, Files: files, MaxLines: 1, MaxTime: 2 * time.Minute})
	if err != nil {
		return h, err
	}
	h.Searched, h.NotCached = res.Searched, len(res.NotCached)
	var first, last time.Time
	for _, r := range res.Runs {
		h.Runs++
		if r.Result == prowcrawl.ResultFailure || r.Result == prowcrawl.ResultError {
			h.Failed++
		}
		if first.IsZero() || r.StartedAt.Before(first) {
			first = r.StartedAt
		}
		if r.StartedAt.After(last) {
			last = r.StartedAt
		}
		if !slices.Contains(h.Jobs, r.Job) {
			h.Jobs = append(h.Jobs, r.Job)
		}
		if len(h.Examples) < 5 {
			h.Examples = append(h.Examples, r.URL)
		}
	}
	if !first.IsZero() {
		h.FirstSeen, h.LastSeen = assess.RFC3339(first), assess.RFC3339(last)
	}
	byEdge := map[string]int{}
	for _, g := range res.Groups {
		i, ok := byEdge[g.Edge]
		if !ok {
			i = len(h.Edges)
			byEdge[g.Edge] = i
			h.Edges = append(h.Edges, EdgeShare{Edge: g.Edge})
		}
		h.Edges[i].Runs += g.Runs
		h.Edges[i].RunsWith += g.Hits
	}
	slices.SortFunc(h.Edges, func(a, b EdgeShare) int {
		if a.RunsWith != b.RunsWith {
			return b.RunsWith - a.RunsWith
		}
		return strings.Compare(a.Edge, b.Edge)
	})
	return h, nil
}

// fills are the commands that would fill the history of the edges the bug
// concerns (its runs', its dump's) where the database has no finished run
// of them.
func fills(rep Report, t Text, stored []db.StoredRun) []Fill {
	have := map[string]bool{}
	for _, s := range stored {
		have[s.Edge.String()] = true
	}
	var out []Fill
	seen := map[string]bool{}
	for _, r := range rep.Runs {
		if r.Edge == "" || have[r.Edge] || seen[r.Edge] {
			continue
		}
		seen[r.Edge] = true
		at := r.started
		if at.IsZero() {
			at, _ = prow.BuildTime(r.BuildID)
		}
		cmd := "prowcrawl backfill --bucket gs://" + r.bucket + " --job '^" + regexp.QuoteMeta(r.Job) + "$'"
		out = append(out, Fill{Edge: r.Edge, Command: cmd + window(at)})
	}
	if t.Cluster != nil && rep.Edge != "" && !have[rep.Edge] && !seen[rep.Edge] {
		e := dumpEdge(t.Cluster)
		at := t.Cluster.cv.History[0].StartedTime
		cmd := "prowcrawl backfill" + bucketFlag(at) + " --job '" + regexp.QuoteMeta(e.To) + ".*upgrade'"
		out = append(out, Fill{Edge: rep.Edge, Command: cmd + window(at)})
	}
	return out
}

// window is the --since and --until of a backfill around at: the two
// weeks before it and the week after; none when at is unknown.
func window(at time.Time) string {
	if at.IsZero() {
		return ""
	}
	return " --since " + at.AddDate(0, 0, -14).Format(time.DateOnly) + " --until " + at.AddDate(0, 0, 7).Format(time.DateOnly)
}

// bucketFlag is the bucket that holds the runs of a time: origin-ci-test
// until 2021, test-platform-results (with credentials) until 2025, the
// default bucket since.
func bucketFlag(at time.Time) string {
	switch {
	case at.IsZero() || at.Year() >= 2026:
		return ""
	case at.Year() <= 2021:
		return " --bucket gs://origin-ci-test"
	}
	return " --bucket gs://test-platform-results --gcs-auth"
}
