package prow

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Disruption is one backend of a backend-disruption_*.json file: how long
// the e2e monitor could not reach it.
type Disruption struct {
	// Name is "<backend>-<connection>-connections", e.g.
	// "kube-api-new-connections".
	Name string
	// Backend is the backend's name, e.g. "kube-api".
	Backend string
	// Connection is "New" or "Reused".
	Connection string
	// Duration is the total time the backend was unreachable.
	Duration time.Duration
	// NoDuration says the entry gave no DisruptedDuration at all, which is
	// not the same as "0s": Duration is then zero but unknown.
	NoDuration bool
	// Messages are the monitor lines of the outages, often in the
	// "Jan 12 20:58:46.230 - 2s E disruption/..." form.
	Messages []string
}

type disruptionListJSON struct {
	BackendDisruptions map[string]*struct {
		Name               jsonString   `json:"Name"`
		BackendName        jsonString   `json:"BackendName"`
		ConnectionType     jsonString   `json:"ConnectionType"`
		DisruptedDuration  jsonString   `json:"DisruptedDuration"`
		DisruptionMessages []jsonString `json:"DisruptionMessages"`
	} `json:"BackendDisruptions"`
}

// ParseDisruption parses a backend-disruption_*.json file, origin's
// BackendDisruptionList:
//
//	{"BackendDisruptions": {"<name>": {"Name": ..., "BackendName": ...,
//	  "ConnectionType": "New", "DisruptedDuration": "2s",
//	  "DisruptionMessages": [...]}}}
//
// DisruptedDuration is a Go duration string; an empty or missing one is zero.
// An entry without a Name takes its key. The result is sorted by Name.
func ParseDisruption(b []byte) ([]Disruption, error) {
	var doc disruptionListJSON
	if err := decodeObject(b, &doc); err != nil {
		return nil, fmt.Errorf("parse backend disruption: %w", err)
	}
	out := make([]Disruption, 0, len(doc.BackendDisruptions))
	// Keys in order, and a stable sort, so that two entries with one Name
	// come out the same way every time.
	for _, key := range slices.Sorted(maps.Keys(doc.BackendDisruptions)) {
		e := doc.BackendDisruptions[key]
		if e == nil {
			continue
		}
		d := Disruption{
			Name:       cmp.Or(strings.TrimSpace(string(e.Name)), key),
			Backend:    strings.TrimSpace(string(e.BackendName)),
			Connection: strings.TrimSpace(string(e.ConnectionType)),
		}
		switch s := strings.TrimSpace(string(e.DisruptedDuration)); {
		case s == "":
			d.NoDuration = true
		case isDigits(s):
			// A bare number: a time.Duration marshalled as nanoseconds.
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("parse backend disruption: %s: DisruptedDuration: %w", d.Name, err)
			}
			d.Duration = time.Duration(n)
		default:
			dur, err := time.ParseDuration(s)
			if err != nil {
				return nil, fmt.Errorf("parse backend disruption: %s: DisruptedDuration: %w", d.Name, err)
			}
			if dur < 0 {
				return nil, fmt.Errorf("parse backend disruption: %s: DisruptedDuration %s is negative", d.Name, s)
			}
			d.Duration = dur
		}
		for _, m := range e.DisruptionMessages {
			d.Messages = append(d.Messages, string(m))
		}
		out = append(out, d)
	}
	slices.SortStableFunc(out, func(a, b Disruption) int { return cmp.Compare(a.Name, b.Name) })
	return out, nil
}

// isDigits says whether s is a non-empty run of ASCII digits.
func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// ConnectionKind is the entry's connection type in lower case, "new" or
// "reused": from ConnectionType, else from the "-new-connections" or
// "-reused-connections" end of its Name; empty when neither says.
func (d Disruption) ConnectionKind() string {
	switch c := strings.ToLower(d.Connection); c {
	case "new", "reused":
		return c
	}
	switch {
	case strings.HasSuffix(d.Name, "-new-connections"):
		return "new"
	case strings.HasSuffix(d.Name, "-reused-connections"):
		return "reused"
	}
	return ""
}

// BackendName is the entry's BackendName, else its Name without the
// "-new-connections" or "-reused-connections" end.
func (d Disruption) BackendName() string {
	if d.Backend != "" {
		return d.Backend
	}
	for _, suffix := range []string{"-new-connections", "-reused-connections"} {
		if b, ok := strings.CutSuffix(d.Name, suffix); ok && b != "" {
			return b
		}
	}
	return ""
}

// DisruptionIntervals sums the disruption intervals of events files into
// seconds per backend, for a run that wrote no backend-disruption file
// (origin computes that file from the same intervals). Feed it every event
// with Add and read the totals with Disruptions.
//
// A disruption interval is one that names a backend in its locator
// ("backend-disruption-name/kube-api-new-connections", or, in older files,
// "disruption/kube-api connection/new") and comes from the Disruption
// monitor, or carries no source (the oldest files). Its reason says what it
// is: DisruptionBegan is an outage, DisruptionEnded the backend answering
// again (it is counted as monitored, for zero seconds), and
// DisruptionSamplerOutageBegan the test's own sampler losing contact, which
// is not the backend's fault and is left out, as origin leaves it out. An
// interval without a reason is an outage when its level is Error. Overlapping
// outages of one backend count once.
type DisruptionIntervals struct {
	byName map[string]*backendIntervals
}

type backendIntervals struct {
	d     Disruption
	spans [][2]time.Time
}

// Add takes one event and reports whether it was a disruption interval.
func (di *DisruptionIntervals) Add(ev Event) bool {
	if ev.Source != "" && ev.Source != "Disruption" {
		return false
	}
	name := tokenValue(ev.Locator, "backend-disruption-name/")
	backend := tokenValue(ev.Locator, "disruption/")
	conn := strings.ToLower(tokenValue(ev.Locator, "connection/"))
	if name == "" && backend == "" {
		return false
	}
	if name == "" {
		if conn == "" {
			name = backend
		} else {
			name = backend + "-" + conn + "-connections"
		}
	}
	outage := false
	switch ev.Reason {
	case "DisruptionBegan":
		outage = true
	case "DisruptionEnded":
	case "":
		outage = ev.Level == "Error"
	default:
		return false
	}
	if di.byName == nil {
		di.byName = map[string]*backendIntervals{}
	}
	b := di.byName[name]
	if b == nil {
		b = &backendIntervals{d: Disruption{Name: name, Backend: backend, Connection: conn}}
		di.byName[name] = b
	}
	if b.d.Backend == "" {
		b.d.Backend = backend
	}
	if b.d.Connection == "" {
		b.d.Connection = conn
	}
	if outage && !ev.From.IsZero() && ev.To.After(ev.From) {
		b.spans = append(b.spans, [2]time.Time{ev.From, ev.To})
		if len(b.d.Messages) < 8 {
			b.d.Messages = append(b.d.Messages, ev.From.Format("Jan 02 15:04:05.000")+" - "+ev.To.Sub(ev.From).String()+" "+ev.Locator+" "+ev.Message)
		}
	}
	return true
}

// Disruptions are the backends seen, sorted by Name, each with the total
// time of its outages (overlaps merged).
func (di *DisruptionIntervals) Disruptions() []Disruption {
	out := make([]Disruption, 0, len(di.byName))
	for _, name := range slices.Sorted(maps.Keys(di.byName)) {
		b := di.byName[name]
		slices.SortFunc(b.spans, func(x, y [2]time.Time) int { return x[0].Compare(y[0]) })
		var total time.Duration
		var end time.Time
		for _, s := range b.spans {
			from := s[0]
			if from.Before(end) {
				from = end
			}
			if s[1].After(from) {
				total += s[1].Sub(from)
			}
			if s[1].After(end) {
				end = s[1]
			}
		}
		d := b.d
		d.Duration = total
		out = append(out, d)
	}
	return out
}

// DisruptionEventFiles picks, of a run's object names, the events files to
// read disruption intervals from when the run has no backend-disruption
// file. The same intervals are written several times (all of them in
// e2e-events, the non-instant ones in e2e-intervals, renderings for the
// timelines), so only one family is read: the first of e2e-events_*,
// e2e-intervals_<time>, e2e-intervals_everything_*, e2e-timelines_everything_*
// that the run has. A family has one file per test phase (upgrade, then
// conformance), and each is returned, in the order given.
func DisruptionEventFiles(names []string) []string {
	families := []func(base string) bool{
		func(b string) bool { return strings.HasPrefix(b, "e2e-events") },
		func(b string) bool {
			rest, ok := strings.CutPrefix(b, "e2e-intervals")
			rest = strings.TrimPrefix(strings.TrimSuffix(rest, ".json"), "_")
			return ok && (rest == "" || rest[0] >= '0' && rest[0] <= '9')
		},
		func(b string) bool { return strings.HasPrefix(b, "e2e-intervals_everything") },
		func(b string) bool { return strings.HasPrefix(b, "e2e-timelines_everything") },
	}
	for _, in := range families {
		var out []string
		for _, n := range names {
			base := n[strings.LastIndexByte(n, '/')+1:]
			if strings.HasSuffix(base, ".json") && in(base) {
				out = append(out, n)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// IsBackendDisruptionFile says whether an object name is a
// backend-disruption_*.json file.
func IsBackendDisruptionFile(name string) bool {
	base := name[strings.LastIndexByte(name, '/')+1:]
	return strings.HasPrefix(base, "backend-disruption") && strings.HasSuffix(base, ".json")
}
