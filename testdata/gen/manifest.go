package main

import "strings"

// MANIFEST.json: the answer key the tests assert against.

type manifest struct {
	Comment string        `json:"comment"`
	Bucket  string        `json:"bucket"`
	Jobs    []manifestJob `json:"jobs"`
	Runs    []manifestRun `json:"runs"`
}

type manifestJob struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Upgrade     bool   `json:"upgrade"`
	Layout      string `json:"layout"`
	Target      string `json:"target"`
	Runs        int    `json:"runs"`
	Finished    int    `json:"finished"` // success, failure or error: the runs that count for rates
	LatestBuild string `json:"latest_build"`
}

type manifestRun struct {
	Path         string   `json:"path"`
	Job          string   `json:"job"`
	Type         string   `json:"type"`
	PR           int      `json:"pr,omitempty"`
	BuildID      string   `json:"build_id"` // a string: 19 digits do not survive float64
	Started      string   `json:"started"`
	Finished     *string  `json:"finished"`
	Result       string   `json:"result"`        // normalized: success, failure, aborted, pending
	ResultRaw    string   `json:"result_raw"`    // as finished.json spells it; "" when pending
	FromVersion  *string  `json:"from_version"`  // from clusterversion.json; null without it
	ToVersion    *string  `json:"to_version"`    // from clusterversion.json; null without it
	UpgradeState *string  `json:"upgrade_state"` // history[0].state; null without clusterversion.json
	Tag          *string  `json:"tag"`           // prowjob.json release.openshift.io/tag
	FromTag      *string  `json:"from_tag"`      // prowjob.json release.openshift.io/from-tag
	Symptoms     []string `json:"symptoms"`
	// UpgradeBegan is false for a finished run of an upgrade job whose
	// upgrade never began (runs.upgrade_started 0), true for the others of
	// such jobs; null for jobs that do not upgrade and unfinished runs.
	UpgradeBegan *bool     `json:"upgrade_began"`
	FlakyTests   []testRef `json:"flaky_tests"`
	FailedTests  []testRef `json:"failed_tests"` // failed and not passed in the same suite
}

type testRef struct {
	Suite string `json:"suite"`
	Name  string `json:"name"`
}

func strp(s string) *string { return &s }

func (r *run) manifest() manifestRun {
	m := manifestRun{
		Path: r.dir, Job: r.job.name, Type: r.job.typ, PR: r.plan.pr, BuildID: r.id,
		Started: rfc3339(r.start), Result: r.plan.result,
		Symptoms: r.plan.symptoms(), FlakyTests: []testRef{}, FailedTests: []testRef{},
	}
	if m.Symptoms == nil {
		m.Symptoms = []string{}
	}
	if r.job.upgrade && r.finished() {
		began := !r.plan.neverBegan
		m.UpgradeBegan = &began
	}
	if r.finished() {
		m.Finished = strp(rfc3339(r.end))
		m.ResultRaw = r.plan.result
		if !r.plan.crier {
			m.ResultRaw = strings.ToUpper(r.plan.result)
		}
	}
	if r.job.template || r.multiStage() {
		m.ToVersion, m.UpgradeState = strp(r.to), strp("Completed")
		if r.job.upgrade {
			m.FromVersion = strp(r.from)
		}
		if r.plan.neverBegan {
			m.ToVersion, m.FromVersion = strp(r.from), nil
		}
		if r.plan.partial {
			m.UpgradeState = strp("Partial")
		}
	}
	if r.job.typ == "periodic" && !r.plan.noTags {
		m.Tag = strp(r.to)
		if r.from != "" {
			m.FromTag = strp(r.from)
		}
	}
	for _, s := range r.suites {
		passed, failed := map[string]bool{}, map[string]bool{}
		var order []string
		for _, c := range s.Cases {
			if c.Skipped != nil {
				continue
			}
			if !passed[c.Name] && !failed[c.Name] {
				order = append(order, c.Name)
			}
			if c.Failure != nil {
				failed[c.Name] = true
			} else {
				passed[c.Name] = true
			}
		}
		for _, name := range order {
			switch {
			case failed[name] && passed[name]:
				m.FlakyTests = append(m.FlakyTests, testRef{s.Name, name})
			case failed[name]:
				m.FailedTests = append(m.FailedTests, testRef{s.Name, name})
			}
		}
	}
	return m
}

func writeManifest(b *bucket, runs []manifestRun) {
	var jobs []manifestJob
	index := map[string]int{}
	for _, j := range allJobs() {
		layout := "multi-stage"
		if j.template {
			layout = "template"
		}
		index[j.name] = len(jobs)
		jobs = append(jobs, manifestJob{Name: j.name, Type: j.typ, Upgrade: j.upgrade, Layout: layout, Target: j.target})
	}
	for _, r := range runs {
		j := &jobs[index[r.Job]]
		j.Runs++
		if r.Result == success || r.Result == failure {
			j.Finished++
		}
		if j.LatestBuild == "" || mustInt(r.BuildID) > mustInt(j.LatestBuild) {
			j.LatestBuild = r.BuildID
		}
	}
	b.json("MANIFEST.json", manifest{
		Comment: "Answer key for this sample bucket, written by testdata/gen (see its doc comment). " +
			"symptoms are built-in symptom ids; result is normalized; finished counts success, failure and error runs.",
		Bucket: "test-platform-results-public",
		Jobs:   jobs,
		Runs:   runs,
	}, "  ")
}
