// Package export writes the crawled runs as newline-delimited JSON, one run
// per line with its keys and its tests, symptoms and disruption nested:
// enough to count, from the file alone, what the report counts. It also
// writes the BigQuery schema that loads it (`bq load
// --source_format=NEWLINE_DELIMITED_JSON TABLE FILE SCHEMA`), for fleets that
// keep their history in BigQuery. It formats; it does not read the database
// itself.
package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
)

// Run is one line of the export. Field names are the BigQuery columns;
// Schema lists each of them, and the export test fails on a field of Run
// that Schema does not list.
//
// A run's keys and variants are the ones the report counts it under: Edge
// and Variant (the scope keys), the job's type and variant columns, and
// UpgradeStarted. Release, FromRelease and Upgrade are the run's edge (from
// the job's name, else from the cluster's versions); JobRelease,
// JobFromRelease and JobUpgrade are what the job's name alone says.
//
// The lists nested in a run are REPEATED RECORD columns. A new one (the
// rules that evaluated the run, say) is a field here, its type below, its
// nested(...) entry in Schema, its rows in db.ExportRun, and one line in
// FromDB.
type Run struct {
	Job            string  `json:"job"`
	BuildID        int64   `json:"build_id,string"` // a string: 19 digits do not survive a float64 reader
	Edge           string  `json:"edge,omitempty"`
	Variant        string  `json:"variant,omitempty"`
	JobType        string  `json:"job_type,omitempty"`
	Platform       string  `json:"platform,omitempty"`
	Network        string  `json:"network,omitempty"`
	Arch           string  `json:"arch,omitempty"`
	Topology       string  `json:"topology,omitempty"`
	NetworkStack   string  `json:"network_stack,omitempty"`
	JobRelease     string  `json:"job_release,omitempty"`
	JobFromRelease string  `json:"job_from_release,omitempty"`
	JobUpgrade     string  `json:"job_upgrade,omitempty"`
	Bucket         string  `json:"bucket"`
	Path           string  `json:"path"`
	URL            string  `json:"url"`
	StartedAt      *string `json:"started_at,omitempty"`
	FinishedAt     *string `json:"finished_at,omitempty"`
	Result         string  `json:"result"`
	Release        string  `json:"release,omitempty"`
	FromRelease    string  `json:"from_release,omitempty"`
	Upgrade        string  `json:"upgrade,omitempty"`
	FromVersion    string  `json:"from_version,omitempty"`
	ToVersion      string  `json:"to_version,omitempty"`
	UpgradeState   string  `json:"upgrade_state,omitempty"`
	// UpgradeStarted is null when it is not known, which counts as begun.
	UpgradeStarted *bool `json:"upgrade_started"`
	// OverallResult is Sippy's overall result (S F U I N n A R); empty when
	// not known. N and n are infrastructure failures.
	OverallResult string `json:"overall_result,omitempty"`
	// ClusterNetworks and ServiceNetworks are the run's own CIDRs, IPv4
	// and IPv6; empty when it does not say.
	ClusterNetworks []string     `json:"cluster_networks"`
	ServiceNetworks []string     `json:"service_networks"`
	Tag             string       `json:"tag,omitempty"`
	FromTag         string       `json:"from_tag,omitempty"`
	Pull            int          `json:"pull,omitempty"`
	FetchStatus     string       `json:"fetch_status"`
	FetchError      string       `json:"fetch_error,omitempty"`
	CrawledAt       string       `json:"crawled_at"`
	Tests           []Test       `json:"tests"`
	Symptoms        []Symptom    `json:"symptoms"`
	Disruptions     []Disruption `json:"disruptions"`
	// Rules are every active rule and every rule version that read the
	// run: the version that read it and whether the run is one of the
	// rule's counted runs, as every rate counts them.
	Rules []Rule `json:"rules"`
}

// Rule is a rule's relation to a run.
type Rule struct {
	ID string `json:"id"`
	// Hash is the version of the rule that read the run; empty when it
	// has not read it.
	Hash string `json:"hash,omitempty"`
	// Population is the run's population for the rule's current version
	// ("counted", "not classified yet", "rule does not apply", "upgrade
	// not started", "unfinished"); empty for a rule no longer active.
	Population string `json:"population,omitempty"`
}

// Test is a test of a run.
type Test struct {
	Suite     string  `json:"suite"`
	Name      string  `json:"name"`
	Status    string  `json:"status"`
	DurationS float64 `json:"duration_s"`
	Message   string  `json:"message,omitempty"`
}

// Symptom is a symptom a run shows: its first evidence, the times of its
// first and last evidence, and the version of the rule that found it.
type Symptom struct {
	ID       string  `json:"id"`
	Hits     int     `json:"hits"`
	File     string  `json:"file,omitempty"`
	Line     int     `json:"line,omitempty"`
	Excerpt  string  `json:"excerpt,omitempty"`
	At       *string `json:"at,omitempty"`
	LastAt   *string `json:"last_at,omitempty"`
	RuleHash string  `json:"rule_hash,omitempty"`
}

// Disruption is how long a backend of a run could not be reached, summed
// over the files that measured it.
type Disruption struct {
	Backend     string `json:"backend"`
	BackendName string `json:"backend_name,omitempty"`
	Connection  string `json:"connection,omitempty"`
	// DisruptedS is null when no file gave a duration.
	DisruptedS *float64 `json:"disrupted_s"`
	Files      int      `json:"files"`
}

// Field is a column of a BigQuery table schema.
type Field struct {
	Name   string  `json:"name"`
	Type   string  `json:"type"`
	Mode   string  `json:"mode"`
	Fields []Field `json:"fields,omitempty"`
}

// Schema is the BigQuery schema of Run, as `bq load` takes it.
func Schema() []Field {
	req := func(name, typ string) Field { return Field{Name: name, Type: typ, Mode: "REQUIRED"} }
	opt := func(name, typ string) Field { return Field{Name: name, Type: typ, Mode: "NULLABLE"} }
	nested := func(name string, fields ...Field) Field {
		return Field{Name: name, Type: "RECORD", Mode: "REPEATED", Fields: fields}
	}
	return []Field{
		req("job", "STRING"), req("build_id", "STRING"),
		opt("edge", "STRING"), opt("variant", "STRING"),
		opt("job_type", "STRING"), opt("platform", "STRING"), opt("network", "STRING"), opt("arch", "STRING"),
		opt("topology", "STRING"), opt("network_stack", "STRING"), opt("job_release", "STRING"), opt("job_from_release", "STRING"), opt("job_upgrade", "STRING"),
		req("bucket", "STRING"), req("path", "STRING"), req("url", "STRING"),
		opt("started_at", "TIMESTAMP"), opt("finished_at", "TIMESTAMP"), req("result", "STRING"),
		opt("release", "STRING"), opt("from_release", "STRING"), opt("upgrade", "STRING"),
		opt("from_version", "STRING"), opt("to_version", "STRING"), opt("upgrade_state", "STRING"),
		opt("upgrade_started", "BOOLEAN"), opt("overall_result", "STRING"),
		{Name: "cluster_networks", Type: "STRING", Mode: "REPEATED"}, {Name: "service_networks", Type: "STRING", Mode: "REPEATED"},
		opt("tag", "STRING"), opt("from_tag", "STRING"), opt("pull", "INTEGER"),
		req("fetch_status", "STRING"), opt("fetch_error", "STRING"), req("crawled_at", "TIMESTAMP"),
		nested("tests",
			req("suite", "STRING"), req("name", "STRING"), req("status", "STRING"),
			req("duration_s", "FLOAT"), opt("message", "STRING")),
		nested("symptoms",
			req("id", "STRING"), req("hits", "INTEGER"), opt("file", "STRING"), opt("line", "INTEGER"),
			opt("excerpt", "STRING"), opt("at", "TIMESTAMP"), opt("last_at", "TIMESTAMP"), opt("rule_hash", "STRING")),
		nested("disruptions",
			req("backend", "STRING"), opt("backend_name", "STRING"), opt("connection", "STRING"),
			opt("disrupted_s", "FLOAT"), req("files", "INTEGER")),
		nested("rules", req("id", "STRING"), opt("hash", "STRING"), opt("population", "STRING")),
	}
}

// WriteSchema writes the schema file.
func WriteSchema(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Schema())
}

// FromDB converts a stored run.
func FromDB(e db.ExportRun) Run {
	j, r := e.Job, e.Run
	out := Run{
		Job: j.Name, BuildID: r.BuildID, Edge: e.Edge, Variant: e.Variant,
		JobType: j.Type, Platform: j.Platform, Network: j.Network, Arch: j.Arch, Topology: j.Topology, NetworkStack: j.Stack,
		JobRelease: j.Release, JobFromRelease: j.FromRelease, JobUpgrade: j.Upgrade,
		Bucket: r.Bucket, Path: r.Path, URL: r.URL, StartedAt: stamp(r.StartedAt), FinishedAt: stamp(r.FinishedAt),
		Result: string(r.Result), Release: r.Release, FromRelease: r.FromRelease, Upgrade: r.Upgrade,
		FromVersion: r.FromVersion, ToVersion: r.ToVersion, UpgradeState: r.UpgradeState, UpgradeStarted: r.UpgradeStarted,
		OverallResult: string(r.Overall), ClusterNetworks: nonNil(r.ClusterNetworks), ServiceNetworks: nonNil(r.ServiceNetworks),
		Tag: r.Tag, FromTag: r.FromTag, Pull: r.Pull, FetchStatus: string(r.FetchStatus), FetchError: r.FetchError,
		CrawledAt: r.CrawledAt.UTC().Format(time.RFC3339),
		Tests:     []Test{}, Symptoms: []Symptom{}, Disruptions: []Disruption{}, Rules: []Rule{},
	}
	for _, x := range e.Rules {
		out.Rules = append(out.Rules, Rule{ID: x.ID, Hash: x.Hash, Population: x.Population})
	}
	for _, t := range e.Tests {
		out.Tests = append(out.Tests, Test{Suite: t.Suite, Name: t.Name, Status: t.Status, DurationS: t.DurationS, Message: t.Message})
	}
	for _, s := range e.Symptoms {
		out.Symptoms = append(out.Symptoms, Symptom{ID: s.SymptomID, Hits: s.Hits, File: s.File, Line: s.Line, Excerpt: s.Excerpt,
			At: stamp(s.At), LastAt: stamp(s.LastAt), RuleHash: s.RuleHash})
	}
	for _, d := range e.Disruptions {
		out.Disruptions = append(out.Disruptions, Disruption{Backend: d.Backend, BackendName: d.BackendName, Connection: d.Connection,
			DisruptedS: seconds(d.Seconds), Files: d.Files})
	}
	return out
}

// seconds is f, nil for NaN (no duration), which JSON cannot hold.
func seconds(f float64) *float64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return &f
}

func stamp(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

// Writer writes runs as JSON lines.
type Writer struct {
	bw  *bufio.Writer
	enc *json.Encoder
	n   int
}

// NewWriter returns a Writer to w; call Flush at the end.
func NewWriter(w io.Writer) *Writer {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	return &Writer{bw: bw, enc: enc}
}

// Write writes one run as one line.
func (w *Writer) Write(r Run) error {
	if err := w.enc.Encode(r); err != nil {
		return fmt.Errorf("export run %s/%d: %w", r.Job, r.BuildID, err)
	}
	w.n++
	return nil
}

// Flush writes what is buffered.
func (w *Writer) Flush() error { return w.bw.Flush() }

// Count is the number of runs written.
func (w *Writer) Count() int { return w.n }

// nonNil is s, or an empty list: a JSON list is never null.
func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
