package prow

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Finished is the part of a run's finished.json that the crawler uses. Its
// absence means the run is still going (or died without uploading).
type Finished struct {
	// Timestamp is when the run ended, in seconds since the Unix epoch; 0
	// when the file does not say.
	Timestamp int64
	// Passed is nil when the file holds null or no value.
	Passed *bool
	// Result is the normalized result (see NormalizeResult): "success",
	// "failure", "aborted", "error", another lower-case word, or "" when
	// neither result nor passed is present.
	Result string
	// Revision is the deprecated revision field (a commit or a base ref).
	Revision string
}

type finishedJSON struct {
	Timestamp jsonInt         `json:"timestamp"`
	Passed    json.RawMessage `json:"passed"`
	Result    jsonString      `json:"result"`
	Revision  jsonString      `json:"revision"`
	// metadata is left out on purpose: its shape differs between writers
	// and eras, and nothing downstream needs it.
}

// ParseFinished parses finished.json. It fails only when b is not a JSON
// object; fields of an unexpected type are left empty.
func ParseFinished(b []byte) (Finished, error) {
	var raw finishedJSON
	if err := decodeObject(b, &raw); err != nil {
		return Finished{}, fmt.Errorf("parse finished.json: %w", err)
	}
	f := Finished{
		Timestamp: max(int64(raw.Timestamp), 0),
		Passed:    jsonBool(raw.Passed),
		Result:    NormalizeResult(string(raw.Result)),
		Revision:  strings.TrimSpace(string(raw.Revision)),
	}
	if f.Result == "" && f.Passed != nil {
		f.Result = "failure"
		if *f.Passed {
			f.Result = "success"
		}
	}
	return f, nil
}

// NormalizeResult maps a run result as the sidecar writes it ("SUCCESS") or
// as crier writes it ("success") to one lower-case, trimmed spelling.
func NormalizeResult(s string) string {
	return strings.ToLower(strings.TrimSpace(s))
}

// jsonBool returns a JSON true or false, or nil for anything else: a
// pointer decoded by encoding/json is allocated even when the value then
// turns out to be of the wrong type.
func jsonBool(raw json.RawMessage) *bool {
	var b bool
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		b = true
	case "false":
	default:
		return nil
	}
	return &b
}
