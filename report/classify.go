package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// Classified is what `prowcrawl classify` found in one run or file.
type Classified struct {
	Path     string    // what was classified
	Started  time.Time // zero when the run's started.json is not there
	Result   string    // "" when finished.json is not there
	Matches  []prowcrawl.RunSymptom
	Problems []prowcrawl.RunError // artifacts that could not be read or parsed
}

// Classification writes what classify found: as text, one block per run or file
// with each symptom's evidence, or (format "json") as a list of objects
// with path, started, result, symptoms and problems. In the text every
// path, object name, excerpt and message is one safe line (safe.Line).
func Classification(w io.Writer, findings []Classified, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(findingsJSON(findings))
	}
	for i, f := range findings {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeFinding(w, f)
	}
	return nil
}

func writeFinding(w io.Writer, f Classified) {
	head := f.Path
	if !f.Started.IsZero() {
		head += ", started " + f.Started.Format(time.RFC3339)
	}
	if f.Result != "" {
		head += ", " + f.Result
	}
	fmt.Fprintln(w, safe.Line(head))
	if len(f.Matches) == 0 {
		fmt.Fprintln(w, "  no symptom found")
	}
	for _, m := range f.Matches {
		where := m.File
		if m.Line > 0 {
			where = fmt.Sprintf("%s:%d", m.File, m.Line)
		}
		if where == "" {
			where = "run metadata"
		}
		at := ""
		if !m.At.IsZero() {
			at = " at " + m.At.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  %s: %d hits, first in %s%s\n", safe.Line(m.SymptomID), m.Hits, safe.Line(where), at)
		if m.Excerpt != "" {
			fmt.Fprintf(w, "    %s\n", safe.Line(m.Excerpt))
		}
	}
	for _, p := range f.Problems {
		fmt.Fprintf(w, "  could not use %s (%s): %s\n", safe.Line(p.Object), safe.Line(string(p.Kind)), safe.Line(p.Message))
	}
}

type matchJSON struct {
	Symptom string    `json:"symptom"`
	Hits    int       `json:"hits"`
	File    string    `json:"file,omitempty"`
	Line    int       `json:"line,omitempty"`
	Excerpt string    `json:"excerpt,omitempty"`
	At      time.Time `json:"at,omitzero"`
}

type findingJSON struct {
	Path     string      `json:"path"`
	Started  time.Time   `json:"started,omitzero"`
	Result   string      `json:"result,omitempty"`
	Symptoms []matchJSON `json:"symptoms"`
	Problems []string    `json:"problems,omitempty"`
}

func findingsJSON(fs []Classified) []findingJSON {
	out := make([]findingJSON, 0, len(fs))
	for _, f := range fs {
		j := findingJSON{Path: f.Path, Started: f.Started, Result: f.Result, Symptoms: []matchJSON{}}
		for _, m := range f.Matches {
			j.Symptoms = append(j.Symptoms, matchJSON{Symptom: m.SymptomID, Hits: m.Hits, File: m.File, Line: m.Line, Excerpt: m.Excerpt, At: m.At})
		}
		for _, p := range f.Problems {
			j.Problems = append(j.Problems, p.Object+": "+p.Message)
		}
		out = append(out, j)
	}
	return out
}
