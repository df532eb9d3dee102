package prow

import (
	"strconv"
	"strings"
)

// Run types a run path can tell apart.
const (
	RunPeriodic  = "periodic"  // logs/...: periodics and postsubmits
	RunPresubmit = "presubmit" // pr-logs/pull/...
	RunBatch     = "batch"     // pr-logs/pull/batch/...
)

// RunPath is a run's directory in a results bucket, taken apart.
type RunPath struct {
	// Job is the job name.
	Job string
	// BuildID is the run's build id.
	BuildID int64
	// Type is RunPeriodic for logs/ (periodics and postsubmits share it;
	// prowjob.json tells them apart), RunPresubmit or RunBatch.
	Type string
	// Org and Repo are a presubmit's repository. Org is empty when the path
	// has no org (Prow's legacy path strategy), and both are empty when it
	// has no repository segment at all (the oldest form).
	Org, Repo string
	// Pull is a presubmit's pull request number.
	Pull int
	// Prefix is the run's object prefix in the bucket, without a trailing
	// slash: "logs/<job>/<id>" or "pr-logs/pull/...".
	Prefix string
}

// ParseRunPath parses a run directory in one of the forms Prow writes:
//
//	logs/<job>/<id>
//	pr-logs/pull/<org>_<repo>/<pr>/<job>/<id>
//	pr-logs/pull/<pr>/<job>/<id>
//	pr-logs/pull/batch/<job>/<id>
//
// optionally after "gs://<bucket>/" and with a trailing slash. It reports
// false for anything else, including paths below a run directory.
func ParseRunPath(p string) (RunPath, bool) {
	if rest, ok := strings.CutPrefix(p, "gs://"); ok {
		_, p, ok = strings.Cut(rest, "/")
		if !ok {
			return RunPath{}, false
		}
	}
	p = strings.TrimSuffix(p, "/")
	segs := strings.Split(p, "/")
	for _, s := range segs {
		if !isPathName(s) {
			return RunPath{}, false
		}
	}
	var rp RunPath
	switch {
	case len(segs) == 3 && segs[0] == "logs":
		rp.Type = RunPeriodic
	case len(segs) == 5 && segs[0] == "pr-logs" && segs[1] == "pull" && segs[2] == "batch":
		rp.Type = RunBatch
	case len(segs) == 5 && segs[0] == "pr-logs" && segs[1] == "pull":
		rp.Type = RunPresubmit
		if rp.Pull = pullNumber(segs[2]); rp.Pull == 0 {
			return RunPath{}, false
		}
	case len(segs) == 6 && segs[0] == "pr-logs" && segs[1] == "pull":
		rp.Type = RunPresubmit
		if rp.Pull = pullNumber(segs[3]); rp.Pull == 0 {
			return RunPath{}, false
		}
		if org, repo, ok := strings.Cut(segs[2], "_"); ok {
			rp.Org, rp.Repo = org, repo
		} else {
			rp.Repo = segs[2]
		}
	default:
		return RunPath{}, false
	}
	id, ok := ParseBuildID(segs[len(segs)-1])
	if !ok {
		return RunPath{}, false
	}
	rp.Job, rp.BuildID, rp.Prefix = segs[len(segs)-2], id, p
	return rp, true
}

// pullNumber parses a positive pull request number, or returns 0.
func pullNumber(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// isPathName reports whether s can be one segment of a run path: job, repo
// and id segments only use letters, digits, '-', '_' and '.', and "." and
// ".." would escape the bucket layout.
func isPathName(s string) bool {
	if s == "" || s == "." || s == ".." {
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// ViewURL returns the Prow page of the run stored under prefix in bucket.
func ViewURL(bucket, prefix string) string {
	return "https://prow.ci.openshift.org/view/gs/" + strings.Trim(bucket, "/") + "/" + strings.Trim(prefix, "/")
}
