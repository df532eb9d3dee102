package prow

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
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
		if s := strings.TrimSpace(string(e.DisruptedDuration)); s != "" {
			dur, err := time.ParseDuration(s)
			if err != nil {
				return nil, fmt.Errorf("parse backend disruption: %s: DisruptedDuration: %w", d.Name, err)
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
