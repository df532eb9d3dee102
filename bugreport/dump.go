package bugreport

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/openshift-eng/prowcrawl/prow"
)

// Dump is what an `oc get clusterversion` dump in a bug says of the
// upgrade, derived as from a run's clusterversion.json
// (prow.ParseClusterVersion).
type Dump struct {
	FromVersion string `json:"from_version,omitempty"`
	ToVersion   string `json:"to_version"`
	// State is history[0].state: Completed or Partial.
	State string `json:"state"`
	// At is the number, from 1, of the text's line of history[0].state.
	At int `json:"line"`
	// Line is that line, as the text has it.
	Line    string `json:"-"`
	Started string `json:"started_at,omitempty"`
	cv      prow.ClusterVersion
}

// dumpStart is the first line of a dump: the command, or the first line
// of its YAML.
var dumpStart = regexp.MustCompile(`^(?:[$#] )?oc get (?:clusterversions?|cv)\b|^apiVersion: (?:v1|config\.openshift\.io/v1)$|^kind: ClusterVersion$`)

// dumpLines marks the lines of the text's clusterversion dumps: from the
// command (or the YAML's first line) to the next blank line. oc writes no
// blank line in YAML, and the dump's lines are no log lines, even where
// a wrap broke them.
func dumpLines(clean []string) []bool {
	in := make([]bool, len(clean))
	on := false
	for i, s := range clean {
		t := strings.TrimSpace(s)
		switch {
		case dumpStart.MatchString(t):
			on = true
		case t == "":
			on = false
		}
		in[i] = on
	}
	return in
}

// historyEntry is one status.history entry as YAML or JSON lines give it.
type historyEntry struct {
	State          string `json:"state"`
	Version        string `json:"version"`
	Image          string `json:"image"`
	StartedTime    string `json:"startedTime,omitempty"`
	CompletionTime string `json:"completionTime,omitempty"`
	line           int
	text           string
}

// parseDump reads the first dump with a history: the entries of
// status.history, from `oc get clusterversion -o yaml` or -o json, read
// line by line (a wrapped message elsewhere in the dump breaks its YAML),
// then derived by prow.ParseClusterVersion.
func parseDump(clean []string, in []bool) *Dump {
	for i := 0; i < len(clean); i++ {
		if !in[i] {
			continue
		}
		key := strings.TrimSpace(clean[i])
		// jq '.status.history' (or .items[].status.history) prints the
		// history's bare list under the command.
		jqList := key == "[" && i > 0 && in[i-1] && strings.Contains(clean[i-1], "history")
		if key != "history:" && !strings.HasPrefix(key, `"history": [`) && !jqList {
			continue
		}
		if d := dumpOf(historyOf(clean, in, i)); d != nil {
			return d
		}
	}
	return workingTowards(clean)
}

// workingTowards is what `oc adm upgrade` says of an upgrade in progress
// ("info: An upgrade is in progress. Working towards 4.11.0-...: 4 of 810
// done (0% complete)"), when the text has no history: its target, not
// reached (Partial).
func workingTowards(clean []string) *Dump {
	for i, s := range clean {
		m := towards.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		d := dumpOf([]historyEntry{{State: "Partial", Version: m[1], line: i + 1, text: strings.TrimSpace(s)}})
		if d != nil {
			return d
		}
	}
	return nil
}

// towards is the progress line of `oc adm upgrade` and of the cluster
// version operator's Progressing condition.
var towards = regexp.MustCompile(`Working towards (\d+\.\d+\.\S+?):? \d+ of \d+ done`)

// dumpOf derives a dump from history entries, newest first; nil when they
// name no target.
func dumpOf(entries []historyEntry) *Dump {
	if len(entries) == 0 {
		return nil
	}
	var doc struct {
		Kind   string `json:"kind"`
		Status struct {
			History []historyEntry `json:"history"`
		} `json:"status"`
	}
	doc.Kind, doc.Status.History = "ClusterVersion", entries
	b, err := json.Marshal(doc)
	if err != nil {
		return nil
	}
	cv, err := prow.ParseClusterVersion(b)
	if err != nil || cv.ToVersion == "" || len(cv.History) == 0 {
		return nil
	}
	d := &Dump{FromVersion: cv.FromVersion, ToVersion: cv.ToVersion, State: cv.State,
		At: entries[0].line, Line: entries[0].text, cv: cv}
	if t := cv.History[0].StartedTime; !t.IsZero() {
		d.Started = t.UTC().Format("2006-01-02T15:04:05Z")
	}
	return d
}

// historyField is a "key: value" of a history entry, in YAML ("- state:
// Partial", "  version: 4.4.18") or JSON ("\"state\": \"Partial\",").
var historyField = regexp.MustCompile(`^(-\s+)?"?(state|version|image|startedTime|completionTime)"?\s*:\s*"?([^"]*?)"?,?$`)

// historyOf reads the entries of the history that starts below line i.
func historyOf(clean []string, in []bool, i int) []historyEntry {
	indent := len(clean[i]) - len(strings.TrimLeft(clean[i], " "))
	itemIndent := -1
	var out []historyEntry
	var cur *historyEntry
	for j := i + 1; j < len(clean) && in[j]; j++ {
		s := clean[j]
		t := strings.TrimSpace(s)
		ind := len(s) - len(strings.TrimLeft(s, " "))
		item := strings.HasPrefix(t, "- ") || t == "{"
		if ind < indent || ind == indent && !item || t == "]" || t == "]," {
			break
		}
		if item && itemIndent < 0 {
			itemIndent = ind
		}
		if item && ind == itemIndent {
			out = append(out, historyEntry{})
			cur = &out[len(out)-1]
		}
		m := historyField.FindStringSubmatch(t)
		if m == nil || cur == nil {
			continue
		}
		v := strings.TrimSpace(m[3])
		if v == "null" {
			v = ""
		}
		switch m[2] {
		case "state":
			cur.State, cur.line, cur.text = v, j+1, t
		case "version":
			cur.Version = v
		case "image":
			cur.Image = v
		case "startedTime":
			cur.StartedTime = v
		case "completionTime":
			cur.CompletionTime = v
		}
	}
	return out
}
