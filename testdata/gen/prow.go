package main

import (
	"fmt"
	"strings"
	"time"
)

// Files at the run root, written by Prow's pod utilities and crier, and the
// ci-operator log.

type started struct {
	Timestamp   int64             `json:"timestamp"`
	Pull        string            `json:"pull,omitempty"`
	Repos       map[string]string `json:"repos,omitempty"`
	RepoVersion string            `json:"repo-version,omitempty"`
	RepoCommit  string            `json:"repo-commit,omitempty"`
	Pending     *bool             `json:"Pending,omitempty"` // testgrid's wrapper type leaks this into old files
}

type finished struct {
	Timestamp int64          `json:"timestamp"`
	Passed    bool           `json:"passed"`
	Result    string         `json:"result"`
	Revision  string         `json:"revision,omitempty"`
	Metadata  map[string]any `json:"metadata,omitempty"`
}

// pullRequest describes the pull requests the presubmit runs test.
type pullRequest struct {
	author, title, branch string
}

var pulls = map[int]pullRequest{
	28100: {"ci-dev-omar", "NO-JIRA: bump k8s.io dependencies to v0.27.16", "bump-k8s-0.27.16"},
	28431: {"ci-dev-lena", "OCPBUGS-44121: monitor: record OVN-Kubernetes pod restarts as intervals", "ovn-restart-intervals"},
}

// refs returns the org/repo under test and its Refs.String() form.
func (r *run) refs() (repo, value string) {
	if r.job.typ == "presubmit" {
		return "openshift/origin", fmt.Sprintf("master:%s,%d:%s", r.baseSHA(), r.plan.pr, r.prSHA())
	}
	return "openshift/release", "master"
}

// baseSHA and prSHA are derived from the run id so that every file of a run
// agrees on them without threading them through.
func (r *run) baseSHA() string { return shaFor("base" + r.id) }
func (r *run) prSHA() string   { return shaFor("pull" + r.id) }

func shaFor(s string) string {
	var h uint64 = 14695981039346656037
	var out strings.Builder
	for out.Len() < 40 {
		for _, c := range []byte(s) {
			h ^= uint64(c)
			h *= 1099511628211
		}
		fmt.Fprintf(&out, "%016x", h)
	}
	return out.String()[:40]
}

func writeStarted(b *bucket, r *run) {
	repo, ref := r.refs()
	s := started{
		Timestamp:   r.start.Unix(),
		Repos:       map[string]string{repo: ref},
		RepoVersion: shaFor("release" + r.id),
	}
	if r.plan.pr != 0 {
		s.Pull = fmt.Sprint(r.plan.pr)
		s.RepoVersion = r.prSHA()
	}
	s.RepoCommit = s.RepoVersion
	if r.job.template {
		f := false
		s.Pending, s.RepoCommit = &f, ""
	}
	b.json(r.dir+"/started.json", s, "")
}

func writeFinished(b *bucket, r *run) {
	f := finished{
		Timestamp: r.end.Unix(),
		Passed:    r.plan.result == success,
		Result:    strings.ToUpper(r.plan.result),
		Revision:  "master",
		Metadata:  ciOperatorMetadata(r),
	}
	if r.plan.pr != 0 {
		f.Revision = r.prSHA()
	}
	if r.plan.crier {
		// Crier's fallback: the sidecar never wrote finished.json.
		f.Result, f.Metadata, f.Revision = r.plan.result, nil, ""
	}
	b.json(r.dir+"/finished.json", f, "")
}

// ciOperatorMetadata is artifacts/metadata.json, which the sidecar merges into
// finished.json.
func ciOperatorMetadata(r *run) map[string]any {
	repo, ref := r.refs()
	m := map[string]any{
		"infra-commit":   shaFor("infra" + r.id)[:9],
		"job-version":    "",
		"pod":            r.prowID,
		"repo":           "",
		"repo-commit":    "",
		"repos":          map[string]string{repo: ref},
		"revision":       "1",
		"work-namespace": r.ns,
	}
	if r.plan.pr != 0 {
		m["repo"], m["repo-commit"] = repo, r.prSHA()
	}
	return m
}

// The ProwJob custom resource as crier uploads it (prowjob.json).

type prowJob struct {
	Kind       string       `json:"kind"`
	APIVersion string       `json:"apiVersion"`
	Metadata   objectMeta   `json:"metadata"`
	Spec       prowJobSpec  `json:"spec"`
	Status     prowJobState `json:"status"`
}

type objectMeta struct {
	Name              string            `json:"name"`
	Namespace         string            `json:"namespace"`
	ResourceVersion   string            `json:"resourceVersion"`
	CreationTimestamp string            `json:"creationTimestamp"`
	Labels            map[string]string `json:"labels"`
	Annotations       map[string]string `json:"annotations"`
}

type prowJobSpec struct {
	Type             string           `json:"type"`
	Agent            string           `json:"agent"`
	Cluster          string           `json:"cluster"`
	Namespace        string           `json:"namespace"`
	Job              string           `json:"job"`
	Refs             *refs            `json:"refs,omitempty"`
	ExtraRefs        []refs           `json:"extra_refs,omitempty"`
	Report           bool             `json:"report,omitempty"`
	Context          string           `json:"context,omitempty"`
	RerunCommand     string           `json:"rerun_command,omitempty"`
	PodSpec          podSpec          `json:"pod_spec"`
	DecorationConfig decorationConfig `json:"decoration_config"`
}

type refs struct {
	Org       string `json:"org"`
	Repo      string `json:"repo"`
	RepoLink  string `json:"repo_link,omitempty"`
	BaseRef   string `json:"base_ref"`
	BaseSHA   string `json:"base_sha,omitempty"`
	BaseLink  string `json:"base_link,omitempty"`
	Pulls     []pull `json:"pulls,omitempty"`
	PathAlias string `json:"path_alias,omitempty"`
}

type pull struct {
	Number     int    `json:"number"`
	Author     string `json:"author"`
	SHA        string `json:"sha"`
	Title      string `json:"title"`
	HeadRef    string `json:"head_ref"`
	Link       string `json:"link"`
	CommitLink string `json:"commit_link"`
	AuthorLink string `json:"author_link"`
}

type podSpec struct {
	Containers         []container `json:"containers"`
	ServiceAccountName string      `json:"serviceAccountName"`
}

type container struct {
	Name    string   `json:"name"`
	Image   string   `json:"image"`
	Command []string `json:"command"`
	Args    []string `json:"args"`
	Env     []envVar `json:"env,omitempty"`
}

type envVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type decorationConfig struct {
	Timeout          string            `json:"timeout"`
	GracePeriod      string            `json:"grace_period"`
	UtilityImages    map[string]string `json:"utility_images"`
	GCSConfiguration gcsConfiguration  `json:"gcs_configuration"`
	GCSCredentials   string            `json:"gcs_credentials_secret"`
}

type gcsConfiguration struct {
	Bucket       string `json:"bucket"`
	PathStrategy string `json:"path_strategy"`
	DefaultOrg   string `json:"default_org"`
	DefaultRepo  string `json:"default_repo"`
}

type prowJobState struct {
	StartTime        string            `json:"startTime"`
	PendingTime      string            `json:"pendingTime,omitempty"`
	CompletionTime   string            `json:"completionTime,omitempty"`
	State            string            `json:"state"`
	Description      string            `json:"description"`
	URL              string            `json:"url"`
	PodName          string            `json:"pod_name"`
	BuildID          string            `json:"build_id"`
	PrevReportStates map[string]string `json:"prev_report_states,omitempty"`
}

func writeProwJob(b *bucket, r *run) {
	j := r.job
	labelJob := j.name
	if len(labelJob) > 63 { // label values are capped; the annotation keeps the full name
		labelJob = strings.TrimRight(labelJob[:63], ".-")
	}
	labels := map[string]string{
		"created-by-prow":      "true",
		"prow.k8s.io/build-id": r.id,
		"prow.k8s.io/id":       r.prowID,
		"prow.k8s.io/job":      labelJob,
		"prow.k8s.io/type":     j.typ,
	}
	annotations := map[string]string{"prow.k8s.io/job": j.name}
	if j.variant != "" {
		labels["ci-operator.openshift.io/variant"] = j.variant
		labels["ci.openshift.io/generator"] = "prowgen"
	}
	if j.typ == "periodic" && !r.plan.noTags {
		labels["release.openshift.io/verify"] = "true"
		annotations["release.openshift.io/source"] = "ocp/" + releaseOf(r.to)
		annotations["release.openshift.io/tag"] = r.to
		if r.from != "" {
			annotations["release.openshift.io/from-tag"] = r.from
		}
	}

	bucketName, cluster, view := "test-platform-results-public", "build05", "https://prow.ci.openshift.org/view/gs/test-platform-results-public/"
	utility := "us-docker.pkg.dev/k8s-infra-prow/images/%s:v20261109-5d0c3e9a1"
	if j.template {
		bucketName, cluster, view = "origin-ci-test", "api.ci", "https://prow.svc.ci.openshift.org/view/gcs/origin-ci-test/"
		utility = "gcr.io/k8s-prow/%s:v20191230-7c3e1aa8f"
	}
	strategy := "single"
	if j.typ == "presubmit" && !r.plan.oldPath {
		strategy = "explicit"
	}

	spec := prowJobSpec{
		Type: j.typ, Agent: "kubernetes", Cluster: cluster, Namespace: "ci", Job: j.name,
		PodSpec: podSpec{
			Containers:         []container{ciOperatorContainer(r)},
			ServiceAccountName: "ci-operator",
		},
		DecorationConfig: decorationConfig{
			Timeout: "4h0m0s", GracePeriod: "1h0m0s",
			UtilityImages: map[string]string{
				"clonerefs":  fmt.Sprintf(utility, "clonerefs"),
				"entrypoint": fmt.Sprintf(utility, "entrypoint"),
				"initupload": fmt.Sprintf(utility, "initupload"),
				"sidecar":    fmt.Sprintf(utility, "sidecar"),
			},
			GCSConfiguration: gcsConfiguration{Bucket: bucketName, PathStrategy: strategy, DefaultOrg: "openshift", DefaultRepo: "origin"},
			GCSCredentials:   "gce-sa-credentials-gcs-publisher",
		},
	}
	if j.typ == "presubmit" {
		pr := pulls[r.plan.pr]
		spec.Refs = &refs{
			Org: "openshift", Repo: "origin", RepoLink: "https://github.com/openshift/origin",
			BaseRef: "master", BaseSHA: r.baseSHA(),
			BaseLink: "https://github.com/openshift/origin/commit/" + r.baseSHA(),
			Pulls: []pull{{
				Number: r.plan.pr, Author: pr.author, SHA: r.prSHA(), Title: pr.title, HeadRef: pr.branch,
				Link:       fmt.Sprintf("https://github.com/openshift/origin/pull/%d", r.plan.pr),
				CommitLink: fmt.Sprintf("https://github.com/openshift/origin/pull/%d/commits/%s", r.plan.pr, r.prSHA()),
				AuthorLink: "https://github.com/" + pr.author,
			}},
			PathAlias: "github.com/openshift/origin",
		}
		spec.Report = true
		spec.Context = "ci/prow/" + j.target
		spec.RerunCommand = "/test " + j.target
		labels["prow.k8s.io/refs.org"] = "openshift"
		labels["prow.k8s.io/refs.repo"] = "origin"
		labels["prow.k8s.io/refs.base_ref"] = "master"
		labels["prow.k8s.io/refs.pull"] = fmt.Sprint(r.plan.pr)
		labels["prow.k8s.io/context"] = j.target
		annotations["prow.k8s.io/context"] = spec.Context
	} else if !j.template {
		spec.ExtraRefs = []refs{{Org: "openshift", Repo: "release", BaseRef: "master"}}
	}

	status := prowJobState{
		StartTime:   rfc3339(r.start),
		PendingTime: rfc3339(r.start),
		State:       r.plan.result,
		URL:         view + r.dir,
		PodName:     r.prowID,
		BuildID:     r.id,
	}
	switch r.plan.result {
	case success:
		status.Description = "Job succeeded."
	case failure:
		status.Description = "Job failed."
	case aborted:
		status.Description = "Job aborted."
	case pending:
		status.Description = "Job triggered."
	}
	if r.finished() {
		status.CompletionTime = rfc3339(r.end.Add(4 * time.Second))
		if j.typ == "presubmit" {
			status.PrevReportStates = map[string]string{"gcsk8sreporter": r.plan.result, "gcsreporter": r.plan.result, "github-reporter": r.plan.result}
		}
	}

	pj := prowJob{
		Kind: "ProwJob", APIVersion: "prow.k8s.io/v1",
		Metadata: objectMeta{
			Name: r.prowID, Namespace: "ci", ResourceVersion: fmt.Sprint(r.intn(100000000, 999999999)),
			CreationTimestamp: rfc3339(r.start), Labels: labels, Annotations: annotations,
		},
		Spec: spec, Status: status,
	}
	b.json(r.dir+"/prowjob.json", pj, "\t")
}

func ciOperatorContainer(r *run) container {
	j := r.job
	if j.template {
		return container{
			Name: "", Image: "ci-operator:latest", Command: []string{"ci-operator"},
			Args: []string{
				"--artifact-dir=$(ARTIFACTS)", "--give-pr-author-access-to-namespace=true",
				"--kubeconfig=/etc/apici/kubeconfig", "--secret-dir=/usr/local/e2e-aws-upgrade-cluster-profile",
				"--target=" + j.target, "--template=/usr/local/e2e-aws-upgrade",
			},
			Env: []envVar{
				{"CLUSTER_TYPE", "aws"},
				{"JOB_NAME_SAFE", j.target},
				{"RELEASE_IMAGE_INITIAL", r.releaseImage(r.from)},
				{"RELEASE_IMAGE_LATEST", r.releaseImage(r.to)},
				{"TEST_COMMAND", "TEST_SUITE=all run-upgrade-tests"},
			},
		}
	}
	args := []string{
		"--gcs-upload-secret=/secrets/gcs/service-account.json",
		"--image-import-pull-secret=/etc/pull-secret/.dockerconfigjson",
		"--lease-server-credentials-file=/etc/boskos/credentials",
		"--report-credentials-file=/etc/report/credentials",
		"--secret-dir=/secrets/ci-pull-credentials",
		"--target=" + j.target,
	}
	if j.variant != "" {
		args = append(args, "--variant="+j.variant)
	}
	return container{Name: "", Image: "ci-operator:latest", Command: []string{"ci-operator"}, Args: args}
}

// releaseOf is the X.Y of a payload version.
func releaseOf(version string) string {
	parts := strings.SplitN(version, ".", 3)
	return parts[0] + "." + parts[1]
}

func rfc3339(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// ciOperatorLog is the root build-log.txt of a multi-stage run.
func ciOperatorLog(r *run) string {
	j, t := r.job, r.t
	var b strings.Builder
	at := r.start.Add(4 * time.Second)
	line := func(ts time.Time, level, format string, args ...any) {
		fmt.Fprintf(&b, "%s[%s] %s\n", level, ts.UTC().Format(time.RFC3339), fmt.Sprintf(format, args...))
	}
	step := func(name string, from, to time.Time, ok bool) {
		line(from, "INFO", "Running step %s-%s.", j.target, name)
		verb := "succeeded"
		if !ok {
			verb = "failed"
		}
		line(to, "INFO", "Step %s-%s %s after %s.", j.target, name, verb, to.Sub(from).Round(time.Second))
	}
	line(at, "INFO", "ci-operator version v%s-%s", at.AddDate(0, 0, -2).Format("20060102"), shaFor("ci-operator" + at.Format("2006-01-02"))[:9])
	if j.variant != "" {
		line(at, "INFO", "Loading configuration from https://config.ci.openshift.org for openshift/release@master [%s]", j.variant)
	} else {
		line(at, "INFO", "Loading configuration from https://config.ci.openshift.org for openshift/origin@master")
		line(at.Add(time.Second), "INFO", "Resolved source https://github.com/openshift/origin to master@%s, merging: #%d %s @%s",
			r.baseSHA()[:8], r.plan.pr, r.prSHA()[:7], pulls[r.plan.pr].author)
	}
	if r.from != "" {
		line(at.Add(2*time.Second), "INFO", "Resolved release initial to %s", r.releaseImage(r.from))
	}
	if j.typ != "presubmit" {
		line(at.Add(2*time.Second), "INFO", "Resolved release latest to %s", r.releaseImage(r.to))
	}
	line(at.Add(3*time.Second), "INFO", "Using namespace https://console-openshift-console.apps.build05.l9oh.p1.openshiftapps.com/k8s/cluster/projects/%s", r.ns)
	line(at.Add(3*time.Second), "INFO", "Running [input:origin-centos-8], [release:initial], [release:latest], [images], %s", j.target)
	lease := fmt.Sprintf("us-east-2--aws-quota-slice-%02d", r.intn(0, 59))
	line(at.Add(15*time.Second), "INFO", "Acquiring leases for test %s: [aws-quota-slice]", j.target)
	line(at.Add(16*time.Second), "INFO", "Acquired 1 lease(s) for aws-quota-slice: [%s]", lease)
	line(at.Add(16*time.Second), "INFO", "Running multi-stage test %s", j.target)
	confStart := at.Add(20 * time.Second)
	step("ipi-conf", confStart, confStart.Add(17*time.Second), true)
	step("ipi-conf-aws", confStart.Add(18*time.Second), confStart.Add(31*time.Second), true)
	if r.plan.result == aborted {
		line(t.installStart, "INFO", "Running step %s-ipi-install-install.", j.target)
		line(r.end.Add(-40*time.Second), "INFO", "Received signal: terminated")
		line(r.end.Add(-40*time.Second), "WARN", "error: Process interrupted with signal terminated, cancelling execution...")
		line(r.end.Add(-38*time.Second), "INFO", "cleanup: Deleting test pod %s-ipi-install-install", j.target)
		line(r.end.Add(-5*time.Second), "INFO", "Releasing leases for test %s", j.target)
		line(r.end, "INFO", "Ran for %s", r.end.Sub(r.start).Round(time.Second))
		line(r.end, "ERRO", "Some steps failed:")
		line(r.end, "ERRO", "  * could not run steps: execution cancelled")
		return b.String()
	}
	ok := r.plan.result == success
	step("ipi-install-install", t.installStart, t.installEnd, true)
	line(t.installEnd, "INFO", "Step phase pre succeeded after %s.", t.installEnd.Sub(confStart).Round(time.Second))
	step("openshift-e2e-test", t.e2eStart, t.e2eEnd, ok)
	verb := "succeeded"
	if !ok {
		verb = "failed"
	}
	line(t.e2eEnd, "INFO", "Step phase test %s after %s.", verb, t.e2eEnd.Sub(t.e2eStart).Round(time.Second))
	step("gather-extra", t.e2eEnd.Add(5*time.Second), t.gatherEnd, true)
	step("ipi-deprovision-deprovision", t.gatherEnd.Add(5*time.Second), r.end.Add(-20*time.Second), true)
	line(r.end.Add(-20*time.Second), "INFO", "Step phase post succeeded after %s.", r.end.Add(-20*time.Second).Sub(t.e2eEnd).Round(time.Second))
	line(r.end.Add(-15*time.Second), "INFO", "Releasing leases for test %s", j.target)
	line(r.end, "INFO", "Ran for %s", r.end.Sub(r.start).Round(time.Second))
	if !ok {
		d := t.e2eEnd.Sub(t.e2eStart).Round(time.Second)
		line(r.end, "INFO", "Reporting job state 'failed' with reason 'executing_graph:step_failed:utilizing_lease:executing_test:executing_multi_stage_test'")
		line(r.end, "ERRO", "Some steps failed:")
		line(r.end, "ERRO", "  * could not run steps: step %[1]s failed: %[1]q test steps failed: %[1]q pod \"%[1]s-openshift-e2e-test\" failed: could not watch pod: the pod %[2]s/%[1]s-openshift-e2e-test failed after %[3]s (failed containers: test): ContainerFailed one or more containers exited", j.target, r.ns, d)
	} else {
		line(r.end, "INFO", "Reporting job state 'succeeded'")
	}
	return b.String()
}
