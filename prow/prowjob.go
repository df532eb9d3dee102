package prow

import (
	"cmp"
	"fmt"
	"strings"
	"time"
)

// Annotation and label keys read from prowjob.json.
const (
	annotationJob     = "prow.k8s.io/job"
	labelBuildID      = "prow.k8s.io/build-id"
	labelType         = "prow.k8s.io/type"
	annotationTag     = "release.openshift.io/tag"
	annotationFromTag = "release.openshift.io/from-tag"
)

// ProwJob is the part of a run's prowjob.json (the ProwJob custom resource
// that crier uploads) that the crawler uses.
type ProwJob struct {
	// Job is the full job name (spec.job).
	Job string
	// Type is presubmit, postsubmit, periodic or batch.
	Type string
	// State is the Prow state: triggered, pending, success, failure,
	// aborted or error.
	State string
	// Tag is the release payload under test (annotation
	// release.openshift.io/tag), set on jobs the release controller starts.
	Tag string
	// FromTag is the payload an upgrade job starts from (annotation
	// release.openshift.io/from-tag).
	FromTag string
	// URL is the run's Prow view link.
	URL string
	// BuildID is the run's build id as text.
	BuildID string
	// Target is ci-operator's --target, the name of the run's
	// artifacts/<target>/ directory.
	Target string
	// StartTime and CompletionTime are zero when absent or unparsable.
	StartTime, CompletionTime time.Time
}

type prowJobJSON struct {
	Metadata struct {
		Labels      map[string]jsonString `json:"labels"`
		Annotations map[string]jsonString `json:"annotations"`
	} `json:"metadata"`
	Spec struct {
		Type    jsonString `json:"type"`
		Job     jsonString `json:"job"`
		PodSpec struct {
			Containers []struct {
				Args []jsonString `json:"args"`
			} `json:"containers"`
		} `json:"pod_spec"`
	} `json:"spec"`
	Status struct {
		StartTime      jsonString `json:"startTime"`
		CompletionTime jsonString `json:"completionTime"`
		State          jsonString `json:"state"`
		URL            jsonString `json:"url"`
		BuildID        jsonString `json:"build_id"`
	} `json:"status"`
}

// ParseProwJob parses prowjob.json. It fails when b is not a JSON object;
// missing or mistyped fields are left empty. A payload tag that is not a
// version (CheckVersion) is left empty too, and said by an error that
// wraps ErrBadVersion, returned with the rest of the ProwJob, which holds.
func ParseProwJob(b []byte) (ProwJob, error) {
	var raw prowJobJSON
	if err := decodeObject(b, &raw); err != nil {
		return ProwJob{}, fmt.Errorf("parse prowjob.json: %w", err)
	}
	labels, annotations := raw.Metadata.Labels, raw.Metadata.Annotations
	pj := ProwJob{
		// The label of the same name is cut to 63 characters, so only the
		// annotation may stand in for spec.job.
		Job:            firstNonEmpty(string(raw.Spec.Job), string(annotations[annotationJob])),
		Type:           firstNonEmpty(string(raw.Spec.Type), string(labels[labelType])),
		State:          strings.TrimSpace(string(raw.Status.State)),
		Tag:            strings.TrimSpace(string(annotations[annotationTag])),
		FromTag:        strings.TrimSpace(string(annotations[annotationFromTag])),
		URL:            strings.TrimSpace(string(raw.Status.URL)),
		BuildID:        firstNonEmpty(string(raw.Status.BuildID), string(labels[labelBuildID])),
		StartTime:      parseTime(raw.Status.StartTime),
		CompletionTime: parseTime(raw.Status.CompletionTime),
	}
	for _, c := range raw.Spec.PodSpec.Containers {
		if pj.Target = targetArg(c.Args); pj.Target != "" {
			break
		}
	}
	var bad error
	for _, t := range []*string{&pj.Tag, &pj.FromTag} {
		if err := CheckVersion(*t); err != nil {
			bad = cmp.Or(bad, err)
			*t = ""
		}
	}
	if bad != nil {
		return pj, fmt.Errorf("parse prowjob.json: release tag %w", bad)
	}
	return pj, nil
}

// targetArg returns the value of ci-operator's --target flag in either of
// its spellings, "--target=X" or "--target X".
func targetArg(args []jsonString) string {
	for i, a := range args {
		s := strings.TrimSpace(string(a))
		if v, ok := strings.CutPrefix(s, "--target="); ok {
			return strings.TrimSpace(v)
		}
		if s == "--target" && i+1 < len(args) {
			return strings.TrimSpace(string(args[i+1]))
		}
	}
	return ""
}

// firstNonEmpty returns the first of values that is not blank, trimmed.
func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
