package prow

import (
	"errors"
	"fmt"
	"strings"
)

// Started is the part of a run's started.json that the crawler uses. Prow's
// pod utilities write it when the run starts.
type Started struct {
	// Timestamp is when the run started, in seconds since the Unix epoch.
	Timestamp int64
	// Pull is the pull request number of a presubmit, empty otherwise.
	Pull string
	// Repos maps "org/repo" to the refs that were checked out, in Prow's
	// "base_ref[:base_sha][,pr:sha]..." form.
	Repos map[string]string
	// RepoCommit is the resolved commit of the main repository, when known.
	RepoCommit string
}

type startedJSON struct {
	Timestamp   jsonInt               `json:"timestamp"`
	Pull        jsonString            `json:"pull"`
	Repos       map[string]jsonString `json:"repos"`
	RepoCommit  jsonString            `json:"repo-commit"`
	RepoVersion jsonString            `json:"repo-version"`
}

// ParseStarted parses started.json. It fails when b is not a JSON object or
// has no positive timestamp: without a start time a run cannot be placed.
func ParseStarted(b []byte) (Started, error) {
	var raw startedJSON
	if err := decodeObject(b, &raw); err != nil {
		return Started{}, fmt.Errorf("parse started.json: %w", err)
	}
	if raw.Timestamp <= 0 {
		return Started{}, errors.New("parse started.json: no positive timestamp")
	}
	s := Started{
		Timestamp:  int64(raw.Timestamp),
		Pull:       strings.TrimSpace(string(raw.Pull)),
		RepoCommit: strings.TrimSpace(string(raw.RepoCommit)),
	}
	// Before repo-commit existed, pod utilities put the same commit in
	// repo-version; bootstrap-era files put a version string there instead.
	if s.RepoCommit == "" && isCommitSHA(string(raw.RepoVersion)) {
		s.RepoCommit = string(raw.RepoVersion)
	}
	if len(raw.Repos) > 0 {
		s.Repos = make(map[string]string, len(raw.Repos))
		for k, v := range raw.Repos {
			s.Repos[k] = string(v)
		}
	}
	return s, nil
}

// isCommitSHA reports whether s looks like a full git commit id.
func isCommitSHA(s string) bool {
	if len(s) != 40 {
		return false
	}
	for _, c := range []byte(s) {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
