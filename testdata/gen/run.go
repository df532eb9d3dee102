package main

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

// snowflakeEpoch is the Twitter snowflake epoch Prow's build ids count from, in ms.
const snowflakeEpoch = 1288834974657

// run is one planned run with everything drawn for it: ids, names, times.
type run struct {
	job  *job
	plan plan
	rng  *rand.Rand

	id         string
	dir        string // run directory, relative to the bucket root
	start, end time.Time
	ns         string // ci-operator work namespace
	cluster    string // cluster name, also the API host prefix
	infra      string // cluster infrastructure id
	prowID     string // ProwJob name
	from, to   string // payload versions

	masters, workers []node
	t                timeline

	events   []event
	backends []backendDisruption
	suites   []suite // every JUnit suite written, for the manifest
}

type node struct{ name, ip string }

// timeline holds the phases of a run. The upgrade window is [upgStart, upgEnd];
// the conformance tests run in [confStart, e2eEnd].
type timeline struct {
	installStart, installEnd time.Time
	e2eStart                 time.Time
	upgStart, upgEnd         time.Time
	confStart, e2eEnd        time.Time
	gatherEnd                time.Time
}

func newRun(j *job, i int, p plan) *run {
	seed := func(salt string) uint64 {
		h := fnv.New64a()
		fmt.Fprintf(h, "%s/%d/%s", j.name, i, salt)
		return h.Sum64()
	}
	r := &run{job: j, plan: p, rng: rand.New(rand.NewPCG(seed("prowcrawl"), seed("testdata")))}
	r.start = r.startTime(p.start)
	if p.id != 0 {
		r.id = strconv.FormatInt(p.id, 10)
	} else {
		ms := r.start.UnixMilli() + int64(r.intn(0, 999))
		r.id = strconv.FormatInt((ms-snowflakeEpoch)<<22|int64(r.intn(0, 15)), 10)
	}
	r.dir = runDir(j, p, r.id)
	r.prowID = r.uuid()
	r.ns = "ci-op-" + r.lower(8)
	r.cluster = r.ns + "-" + r.lower(5)
	r.infra = r.cluster + "-" + r.lower(5)
	if p.seed002 {
		r.ns, r.cluster, r.infra = "ci-op-jbtg7jjb", "ci-op-jbtg7jjb-77109", "ci-op-jbtg7jjb-77109-dx8t6"
	}
	r.from, r.to = p.from, p.to
	if r.to == "" {
		r.from, r.to = j.versions(r)
	}
	r.makeNodes()
	r.makeTimeline()
	return r
}

func runDir(j *job, p plan, id string) string {
	switch {
	case j.typ != "presubmit":
		return "logs/" + j.name + "/" + id
	case p.oldPath:
		return fmt.Sprintf("pr-logs/pull/%d/%s/%s", p.pr, j.name, id)
	default:
		return fmt.Sprintf("pr-logs/pull/openshift_origin/%d/%s/%s", p.pr, j.name, id)
	}
}

// startTime parses a plan's start: a full RFC 3339 time, or a date that gets a
// random time of day.
func (r *run) startTime(s string) time.Time {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC()
	}
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(fmt.Sprintf("plan start %q: %v", s, err))
	}
	return d.Add(time.Duration(r.intn(0, 20*3600)) * time.Second)
}

func (r *run) makeNodes() {
	domain := ".us-east-2.compute.internal"
	if r.job.template {
		domain = ".ec2.internal"
	}
	seen := map[string]bool{}
	ip := func() string {
		for {
			s := fmt.Sprintf("10.0.%d.%d", r.intn(0, 191), r.intn(4, 254))
			if !seen[s] {
				seen[s] = true
				return s
			}
		}
	}
	mk := func(addr string) node {
		return node{name: "ip-" + strings.ReplaceAll(addr, ".", "-") + domain, ip: addr}
	}
	for range 3 {
		r.masters = append(r.masters, mk(ip()))
		r.workers = append(r.workers, mk(ip()))
	}
	if r.plan.etcdIP != "" {
		r.masters[1] = mk(r.plan.etcdIP)
	}
	if r.plan.seed002 {
		r.workers[0] = mk("10.0.157.152")
	}
}

func (r *run) makeTimeline() {
	t := &r.t
	s := r.start
	t.installStart = s.Add(r.dur(90*time.Second, 3*time.Minute))
	t.installEnd = t.installStart.Add(r.dur(33*time.Minute, 44*time.Minute))
	t.e2eStart = t.installEnd.Add(r.dur(40*time.Second, 90*time.Second))
	switch {
	case !r.job.upgrade:
		t.upgStart, t.upgEnd = t.e2eStart, t.e2eStart
		t.confStart = t.e2eStart.Add(r.dur(50*time.Second, 80*time.Second))
		t.e2eEnd = t.confStart.Add(r.dur(38*time.Minute, 52*time.Minute))
	case r.plan.partial:
		// The upgrade test gives up after its timeout; conformance never starts.
		t.upgStart = t.e2eStart.Add(r.dur(50*time.Second, 80*time.Second))
		t.upgEnd = t.upgStart.Add(r.dur(105*time.Minute, 108*time.Minute))
		t.confStart = t.upgEnd
		t.e2eEnd = t.upgEnd.Add(r.dur(15*time.Second, 40*time.Second))
	default:
		t.upgStart = t.e2eStart.Add(r.dur(50*time.Second, 80*time.Second))
		t.upgEnd = t.upgStart.Add(r.dur(55*time.Minute, 75*time.Minute))
		t.confStart = t.upgEnd.Add(r.dur(30*time.Second, 70*time.Second))
		if r.job.template {
			t.confStart = t.upgEnd // template-era upgrade jobs ran no conformance suite
		}
		t.e2eEnd = t.confStart.Add(r.dur(18*time.Minute, 28*time.Minute))
		if r.job.template {
			t.e2eEnd = t.upgEnd.Add(r.dur(20*time.Second, 60*time.Second))
		}
	}
	t.gatherEnd = t.e2eEnd.Add(r.dur(2*time.Minute, 4*time.Minute))
	r.end = t.gatherEnd.Add(r.dur(8*time.Minute, 12*time.Minute))
	switch r.plan.result {
	case aborted:
		r.end = t.installStart.Add(r.dur(18*time.Minute, 26*time.Minute))
	case pending:
		r.end = time.Time{}
	}
}

// upgradeAt is the time a fraction f of the way through the upgrade window, or
// of the conformance window in a job that does not upgrade.
func (r *run) upgradeAt(f float64) time.Time {
	from, to := r.t.upgStart, r.t.upgEnd
	if !r.job.upgrade {
		from, to = r.t.confStart, r.t.e2eEnd
	}
	d := time.Duration(float64(to.Sub(from)) * f)
	return from.Add(d).Truncate(time.Second).Add(time.Duration(r.intn(0, 999)) * time.Millisecond)
}

func (r *run) finished() bool { return r.plan.result != pending }

// multiStage reports whether the run has the full ci-operator multi-stage artifacts.
func (r *run) multiStage() bool {
	return !r.job.template && r.plan.result != pending && r.plan.result != aborted
}

// Random helpers. Every draw comes from the run's own RNG.

func (r *run) intn(lo, hi int) int { return lo + r.rng.IntN(hi-lo+1) }

// aside calls f with an RNG of its own, named by salt, so that what f
// draws leaves the run's other draws as they were.
func aside[T any](r *run, salt string, f func() T) T {
	saved := r.rng
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%s", r.job.name, r.id, salt)
	r.rng = rand.New(rand.NewPCG(h.Sum64(), 15))
	defer func() { r.rng = saved }()
	return f()
}

func (r *run) dur(lo, hi time.Duration) time.Duration {
	return (lo + time.Duration(r.rng.Int64N(int64(hi-lo)+1))).Truncate(time.Millisecond)
}

func (r *run) pick(xs ...string) string { return xs[r.rng.IntN(len(xs))] }

func (r *run) chance(p float64) bool { return r.rng.Float64() < p }

// micros is sub-millisecond jitter for log formats that print microseconds.
func (r *run) micros() time.Duration { return time.Duration(r.intn(0, 999)) * time.Microsecond }

const (
	kubeAlphabet = "bcdfghjklmnpqrstvwxz2456789" // k8s generated-name suffixes
	lowerAlnum   = "abcdefghijklmnopqrstuvwxyz0123456789"
	hexDigits    = "0123456789abcdef"
)

func (r *run) draw(alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.rng.IntN(len(alphabet))]
	}
	return string(b)
}

func (r *run) sfx() string               { return r.draw(kubeAlphabet, 5) }
func (r *run) rsHash() string            { return r.draw(kubeAlphabet, r.intn(9, 10)) }
func (r *run) lower(n int) string        { return r.draw(lowerAlnum, n) }
func (r *run) hex(n int) string          { return r.draw(hexDigits, n) }
func (r *run) digest() string            { return "sha256:" + r.hex(64) }
func (r *run) deployPod(p string) string { return p + "-" + r.rsHash() + "-" + r.sfx() }

func (r *run) uuid() string {
	h := r.hex(32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-a" + h[17:20] + "-" + h[20:]
}

// podIP is an address in the default cluster network 10.128.0.0/14, where
// OVN and SDN give each node a /23.
func (r *run) podIP() string {
	return fmt.Sprintf("10.%d.%d.%d", r.intn(128, 131), 2*r.intn(0, 3), r.intn(5, 90))
}

func (r *run) node() node   { return slices.Concat(r.masters, r.workers)[r.rng.IntN(6)] }
func (r *run) worker() node { return r.workers[r.rng.IntN(3)] }
func (r *run) master() node { return r.masters[r.rng.IntN(3)] }

// apiHost is the cluster's external API name.
func (r *run) apiHost() string {
	if r.job.template {
		return "api." + r.cluster + ".origin-ci-int-aws.dev.rhcloud.com"
	}
	return "api." + r.cluster + ".aws-2.ci.openshift.org"
}

func (r *run) appsHost(name string) string {
	if r.job.template {
		return name + ".apps." + r.cluster + ".origin-ci-int-aws.dev.rhcloud.com"
	}
	return name + ".apps." + r.cluster + ".aws-2.ci.openshift.org"
}

// releaseImage is the pull spec a payload version was published under.
func (r *run) releaseImage(version string) string {
	switch {
	case r.job.template:
		return "registry.svc.ci.openshift.org/ocp/release:" + version
	case strings.Contains(version, "ci.test"):
		return "registry.build05.ci.openshift.org/" + r.ns + "/release:latest"
	case strings.Contains(version, "-0."):
		return "registry.ci.openshift.org/ocp/release:" + version
	default:
		return "quay.io/openshift-release-dev/ocp-release:" + version + "-x86_64"
	}
}

// releaseDigest is the by-digest pull spec clusterversion records.
func (r *run) releaseDigest(version string) string {
	switch {
	case r.job.template:
		return "registry.svc.ci.openshift.org/ocp/release@" + r.digest()
	case strings.Contains(version, "-0."):
		return "registry.build05.ci.openshift.org/" + r.ns + "/release@" + r.digest()
	default:
		return "quay.io/openshift-release-dev/ocp-release@" + r.digest()
	}
}

// writeJob writes every run of a job, its latest-build.txt and, for
// presubmits, the pr-logs/directory link files.
func writeJob(b *bucket, j *job) []manifestRun {
	var entries []manifestRun
	var runs []*run
	for i, p := range j.plans {
		r := newRun(j, i, p)
		runs = append(runs, r)
		if j.template {
			writeTemplateRun(b, r)
		} else {
			writeMultiStageRun(b, r)
		}
		entries = append(entries, r.manifest())
	}
	newest := func(rs []*run) string {
		best := rs[0]
		for _, r := range rs[1:] {
			if mustInt(r.id) > mustInt(best.id) {
				best = r
			}
		}
		return best.id
	}
	if j.typ != "presubmit" {
		b.text("logs/"+j.name+"/latest-build.txt", newest(runs))
		return entries
	}
	b.text("pr-logs/directory/"+j.name+"/latest-build.txt", newest(runs))
	byPR := map[string][]*run{}
	var prDirs []string
	for _, r := range runs {
		b.text("pr-logs/directory/"+j.name+"/"+r.id+".txt", "gs://test-platform-results-public/"+r.dir)
		d := r.dir[:strings.LastIndex(r.dir, "/")]
		if byPR[d] == nil {
			prDirs = append(prDirs, d)
		}
		byPR[d] = append(byPR[d], r)
	}
	for _, d := range prDirs {
		b.text(d+"/latest-build.txt", newest(byPR[d]))
	}
	return entries
}

func mustInt(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		panic(err)
	}
	return n
}

// writeMultiStageRun writes a ci-operator multi-stage run (2023 onwards).
func writeMultiStageRun(b *bucket, r *run) {
	writeStarted(b, r)
	writeProwJob(b, r)
	if !r.finished() {
		return // still running: only what initupload and crier wrote so far
	}
	writeFinished(b, r)
	b.text(r.dir+"/build-log.txt", ciOperatorLog(r))
	b.json(r.dir+"/artifacts/metadata.json", ciOperatorMetadata(r), "")
	if !r.multiStage() {
		return
	}
	r.events = backgroundEvents(r)
	r.events = append(r.events, plantedEvents(r)...)
	var disruptions []event
	r.backends, disruptions = backendDisruptions(r)
	r.events = append(r.events, disruptions...)
	sortEvents(r.events)

	step := r.dir + "/artifacts/" + r.job.target + "/openshift-e2e-test"
	junitDir := step + "/artifacts/junit"
	var conf suite
	if !r.plan.partial {
		conf = conformanceSuite(r)
		writeJUnit(b, junitDir+"/junit_e2e_"+r.t.e2eEnd.Format("20060102-150405")+".xml", &conf)
		r.suites = append(r.suites, conf)
	}
	if r.job.upgrade {
		up := upgradeSuite(r)
		writeJUnit(b, fmt.Sprintf("%s/junit_upgrade_%d.xml", junitDir, r.t.upgEnd.Unix()), &up)
		r.suites = append(r.suites, up)
	}
	b.text(step+"/build-log.txt", e2eStepLog(r, conf))
	stamp := r.t.upgEnd.Format("20060102-150405")
	if !r.job.upgrade {
		stamp = r.t.e2eEnd.Format("20060102-150405")
	}
	writeIntervals(b, r, junitDir, stamp)
	writeBackendDisruption(b, r, junitDir+"/backend-disruption_"+stamp+".json")

	gather := r.dir + "/artifacts/" + r.job.target + "/gather-extra/artifacts"
	b.json(gather+"/clusterversion.json", clusterVersion(r), "    ")
	kas := r.masters[0]
	b.gzipped(gather+"/pods/openshift-kube-apiserver_kube-apiserver-"+kas.name+"_kube-apiserver.log", kubeAPIServerLog(r, kas))
	b.gzipped(gather+"/pods/openshift-etcd_etcd-"+r.masters[2].name+"_etcd.log", etcdLog(r, r.masters[2]))

	op := operatorSuites(r)
	writeJUnit(b, r.dir+"/artifacts/junit_operator.xml", &op)
	r.suites = append(r.suites, op.Suites...)
}
