package prow

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Update states of a ClusterVersion history entry.
const (
	UpdateCompleted = "Completed"
	UpdatePartial   = "Partial"
)

// ClusterVersion is what a run's clusterversion.json (the output of
// "oc get clusterversion -o json", gathered at the end of the run) says
// about the upgrade the run performed.
type ClusterVersion struct {
	// FromVersion is the version the cluster was upgraded from: the newest
	// Completed history entry below the newest one. Empty when there is
	// none, as after a fresh install.
	FromVersion string
	// ToVersion is the version of the newest history entry.
	ToVersion string
	// State is the newest entry's state: "Completed", or "Partial" when
	// the upgrade (or install) never finished.
	State string
	// History is status.history, newest first.
	History []Update
}

// Update is one entry of a ClusterVersion's status.history.
type Update struct {
	// State is "Completed" or "Partial".
	State string
	// Version may be empty when the payload could not be read.
	Version string
	// Image is the release image pull spec.
	Image string
	// StartedTime is when the update began. CompletionTime is zero while
	// the update is in progress or after it failed.
	StartedTime, CompletionTime time.Time
}

type clusterVersionJSON struct {
	Kind     jsonString `json:"kind"`
	Metadata struct {
		Name jsonString `json:"name"`
	} `json:"metadata"`
	Items  []json.RawMessage `json:"items"`
	Status struct {
		History []struct {
			State          jsonString `json:"state"`
			Version        jsonString `json:"version"`
			Image          jsonString `json:"image"`
			StartedTime    jsonString `json:"startedTime"`
			CompletionTime jsonString `json:"completionTime"`
		} `json:"history"`
	} `json:"status"`
}

// ParseClusterVersion parses clusterversion.json: a List whose item named
// "version" (else its first item) is used, or a bare ClusterVersion object.
func ParseClusterVersion(b []byte) (ClusterVersion, error) {
	var doc clusterVersionJSON
	if err := decodeObject(b, &doc); err != nil {
		return ClusterVersion{}, fmt.Errorf("parse clusterversion.json: %w", err)
	}
	if string(doc.Kind) == "List" || doc.Items != nil {
		if len(doc.Items) == 0 {
			return ClusterVersion{}, errors.New("parse clusterversion.json: empty list")
		}
		item := doc.Items[0]
		for _, raw := range doc.Items {
			var named clusterVersionJSON
			if decodeObject(raw, &named) == nil && string(named.Metadata.Name) == "version" {
				item = raw
				break
			}
		}
		doc = clusterVersionJSON{}
		if err := decodeObject(item, &doc); err != nil {
			return ClusterVersion{}, fmt.Errorf("parse clusterversion.json: list item: %w", err)
		}
	}
	if kind := string(doc.Kind); kind != "ClusterVersion" && (kind != "" || doc.Status.History == nil) {
		return ClusterVersion{}, errors.New("parse clusterversion.json: not a ClusterVersion")
	}
	var cv ClusterVersion
	for _, h := range doc.Status.History {
		if err := CheckVersion(strings.TrimSpace(string(h.Version))); err != nil {
			return ClusterVersion{}, fmt.Errorf("parse clusterversion.json: history version %w", err)
		}
		cv.History = append(cv.History, Update{
			State:          strings.TrimSpace(string(h.State)),
			Version:        strings.TrimSpace(string(h.Version)),
			Image:          strings.TrimSpace(string(h.Image)),
			StartedTime:    parseTime(h.StartedTime),
			CompletionTime: parseTime(h.CompletionTime),
		})
	}
	if len(cv.History) > 0 {
		cv.ToVersion, cv.State = cv.History[0].Version, cv.History[0].State
		for _, u := range cv.History[1:] {
			if u.State == UpdateCompleted {
				cv.FromVersion = u.Version
				break
			}
		}
	}
	return cv, nil
}
