// Package export writes the crawled runs as newline-delimited JSON, one run
// per line with its tests and symptoms nested, and the BigQuery schema that
// loads it (`bq load --source_format=NEWLINE_DELIMITED_JSON TABLE FILE
// SCHEMA`), for fleets that keep their history in BigQuery. It formats; it
// does not read the database itself.
package export

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
)

// Run is one line of the export. Field names are the BigQuery columns.
type Run struct {
	Job          string    `json:"job"`
	BuildID      int64     `json:"build_id"`
	JobType      string    `json:"job_type,omitempty"`
	Platform     string    `json:"platform,omitempty"`
	Network      string    `json:"network,omitempty"`
	Arch         string    `json:"arch,omitempty"`
	Bucket       string    `json:"bucket"`
	Path         string    `json:"path"`
	URL          string    `json:"url"`
	StartedAt    *string   `json:"started_at,omitempty"`
	FinishedAt   *string   `json:"finished_at,omitempty"`
	Result       string    `json:"result"`
	Release      string    `json:"release,omitempty"`
	FromRelease  string    `json:"from_release,omitempty"`
	Upgrade      string    `json:"upgrade,omitempty"`
	FromVersion  string    `json:"from_version,omitempty"`
	ToVersion    string    `json:"to_version,omitempty"`
	UpgradeState string    `json:"upgrade_state,omitempty"`
	Tag          string    `json:"tag,omitempty"`
	FromTag      string    `json:"from_tag,omitempty"`
	Pull         int       `json:"pull,omitempty"`
	FetchStatus  string    `json:"fetch_status"`
	FetchError   string    `json:"fetch_error,omitempty"`
	CrawledAt    string    `json:"crawled_at"`
	Tests        []Test    `json:"tests"`
	Symptoms     []Symptom `json:"symptoms"`
}

// Test is a test of a run.
type Test struct {
	Suite     string  `json:"suite"`
	Name      string  `json:"name"`
	Status    string  `json:"status"`
	DurationS float64 `json:"duration_s"`
	Message   string  `json:"message,omitempty"`
}

// Symptom is a symptom a run shows, with its first evidence.
type Symptom struct {
	ID      string  `json:"id"`
	Hits    int     `json:"hits"`
	File    string  `json:"file,omitempty"`
	Line    int     `json:"line,omitempty"`
	Excerpt string  `json:"excerpt,omitempty"`
	At      *string `json:"at,omitempty"`
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
	return []Field{
		req("job", "STRING"), req("build_id", "INTEGER"),
		opt("job_type", "STRING"), opt("platform", "STRING"), opt("network", "STRING"), opt("arch", "STRING"),
		req("bucket", "STRING"), req("path", "STRING"), req("url", "STRING"),
		opt("started_at", "TIMESTAMP"), opt("finished_at", "TIMESTAMP"), req("result", "STRING"),
		opt("release", "STRING"), opt("from_release", "STRING"), opt("upgrade", "STRING"),
		opt("from_version", "STRING"), opt("to_version", "STRING"), opt("upgrade_state", "STRING"),
		opt("tag", "STRING"), opt("from_tag", "STRING"), opt("pull", "INTEGER"),
		req("fetch_status", "STRING"), opt("fetch_error", "STRING"), req("crawled_at", "TIMESTAMP"),
		{Name: "tests", Type: "RECORD", Mode: "REPEATED", Fields: []Field{
			req("suite", "STRING"), req("name", "STRING"), req("status", "STRING"),
			req("duration_s", "FLOAT"), opt("message", "STRING"),
		}},
		{Name: "symptoms", Type: "RECORD", Mode: "REPEATED", Fields: []Field{
			req("id", "STRING"), req("hits", "INTEGER"), opt("file", "STRING"), opt("line", "INTEGER"),
			opt("excerpt", "STRING"), opt("at", "TIMESTAMP"),
		}},
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
		Job: j.Name, BuildID: r.BuildID, JobType: j.Type, Platform: j.Platform, Network: j.Network, Arch: j.Arch,
		Bucket: r.Bucket, Path: r.Path, URL: r.URL, StartedAt: stamp(r.StartedAt), FinishedAt: stamp(r.FinishedAt),
		Result: r.Result, Release: r.Release, FromRelease: r.FromRelease, Upgrade: r.Upgrade,
		FromVersion: r.FromVersion, ToVersion: r.ToVersion, UpgradeState: r.UpgradeState, Tag: r.Tag, FromTag: r.FromTag,
		Pull: r.Pull, FetchStatus: r.FetchStatus, FetchError: r.FetchError, CrawledAt: r.CrawledAt.UTC().Format(time.RFC3339),
		Tests: []Test{}, Symptoms: []Symptom{},
	}
	for _, t := range e.Tests {
		out.Tests = append(out.Tests, Test{Suite: t.Suite, Name: t.Name, Status: t.Status, DurationS: t.DurationS, Message: t.Message})
	}
	for _, s := range e.Symptoms {
		out.Symptoms = append(out.Symptoms, Symptom{ID: s.SymptomID, Hits: s.Hits, File: s.File, Line: s.Line, Excerpt: s.Excerpt, At: stamp(s.At)})
	}
	return out
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
