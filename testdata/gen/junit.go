package main

import (
	"encoding/xml"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Test names that plans refer to.
const (
	testKubeAPINew      = "[sig-api-machinery] Kubernetes APIs remain available for new connections"
	testCompletes       = "[sig-cluster-lifecycle] Cluster completes upgrade"
	testCompletesIn     = "[sig-cluster-lifecycle] cluster upgrade should complete in 105.00 minutes"
	testMCPComplete     = "[sig-mco] Machine config pools complete upgrade"
	testLBNew           = "[sig-network-edge] Application behind service load balancer with PDB remains available using new connections"
	testAlerts          = "[sig-arch] Check if alerts are firing during or after upgrade success"
	testUpgradeRun      = "[sig-arch][Feature:ClusterUpgrade] Cluster should remain functional during upgrade [Disruptive] [Serial]"
	testIntraPod        = "[sig-network] Networking Granular Checks: Pods should function for intra-pod communication: http [NodeConformance] [Conformance] [Suite:openshift/conformance/parallel/minimal] [Suite:k8s]"
	testDNSServices     = "[sig-network] DNS should provide DNS for services  [Conformance] [Suite:openshift/conformance/parallel/minimal] [Suite:k8s]"
	testConntrack       = "[sig-network] Conntrack should be able to preserve UDP traffic when server pod cycles for a NodePort service [Suite:openshift/conformance/parallel] [Suite:k8s]"
	testServiceEndpoint = "[sig-network] Services should serve a basic endpoint from pods  [Conformance] [Suite:openshift/conformance/parallel/minimal] [Suite:k8s]"
	testSandbox         = "[sig-network] pods should successfully create sandboxes by other"
	testCSIBlock        = "[sig-storage] CSI Volumes [Driver: ebs.csi.aws.com] [Testpattern: Dynamic PV (block volmode)] volumes should store data [Suite:openshift/conformance/parallel] [Suite:k8s]"
	testMustGather      = "[sig-cli] oc adm must-gather runs successfully [apigroup:config.openshift.io] [Suite:openshift/conformance/parallel]"
	testRollover        = "[sig-apps] Deployment deployment should support rollover [Conformance] [Suite:openshift/conformance/parallel/minimal] [Suite:k8s]"
	testEtcdLeader      = "[sig-etcd] etcd leader changes are not excessive [Late] [Suite:openshift/conformance/parallel]"
	// The failure modes no built-in rule names (plan.fail2), as origin's
	// monitor tests report them.
	testMCODegraded = "[bz-Machine Config Operator] clusteroperator/machine-config should not change condition/Degraded"
	testMCDBackOff  = "[sig-arch] events should not repeat pathologically for ns/openshift-machine-config-operator"

	// 2020 names.
	testUpgrade2020   = "[Disruptive] Cluster upgrade should maintain a functioning cluster [Feature:ClusterUpgrade] [Suite:openshift] [Serial]"
	testKubeAPI2020   = "[sig-api-machinery] Kubernetes APIs remain available"
	testOSAPI2020     = "[sig-api-machinery] OpenShift APIs remain available"
	testFrontends2020 = "[sig-network-edge] Cluster frontend ingress remain available"
)

// conformanceTests is the pool a run's junit_e2e draws from.
var conformanceTests = []string{
	testIntraPod, testDNSServices, testConntrack, testServiceEndpoint, testSandbox, testCSIBlock, testMustGather, testRollover, testEtcdLeader,
	"[sig-api-machinery] Garbage collector should orphan pods created by rc if delete options say so [Conformance] [Suite:k8s]",
	"[sig-api-machinery] ResourceQuota should verify ResourceQuota with terminating scopes. [Conformance] [Suite:k8s]",
	"[sig-api-machinery] Watchers should observe add, update, and delete watch notifications on configmaps [Conformance] [Suite:k8s]",
	"[sig-api-machinery] Servers with support for Table transformation should return pod details [Suite:k8s]",
	"[sig-api-machinery][Feature:APIServer][Late] kubelet terminates kube-apiserver gracefully [Suite:openshift/conformance/parallel]",
	"[sig-apps] Deployment should validate Deployment Status endpoints [Conformance] [Suite:k8s]",
	"[sig-apps] ReplicationController should adopt matching pods on creation [Conformance] [Suite:k8s]",
	"[sig-apps] Job should delete a job [Conformance] [Suite:k8s]",
	"[sig-apps] CronJob should replace jobs when ReplaceConcurrent [Conformance] [Suite:k8s]",
	"[sig-apps] DisruptionController should observe PodDisruptionBudget status updated [Conformance] [Suite:k8s]",
	"[sig-arch] Managed cluster should have no crashlooping pods in core namespaces over four minutes [Suite:openshift/conformance/parallel]",
	"[sig-arch][Early] Managed cluster should start all core operators [Suite:openshift/conformance/parallel]",
	"[sig-auth] ServiceAccounts should mount projected service account token [Conformance] [Suite:k8s]",
	"[sig-auth][Feature:SCC][Early] should not have pod creation failures during install [Suite:openshift/conformance/parallel]",
	"[sig-builds][Feature:Builds] oc new-app should succeed with a --name of 58 characters [Suite:openshift/conformance/parallel]",
	"[sig-cli] Kubectl client Kubectl version should check is all data is printed [Conformance] [Suite:k8s]",
	"[sig-cli] oc explain should contain proper fields description for special types [Suite:openshift/conformance/parallel]",
	"[sig-cluster-lifecycle] Pods cannot access the /config/master API endpoint [Suite:openshift/conformance/parallel]",
	"[sig-imageregistry][Feature:ImageLookup] Image policy should perform lookup when the object has the annotation [Suite:openshift/conformance/parallel]",
	"[sig-instrumentation] Prometheus when installed on the cluster should report telemetry [Late] [Suite:openshift/conformance/parallel]",
	"[sig-instrumentation][Late] OpenShift alerting rules should have description and summary annotations [Suite:openshift/conformance/parallel]",
	"[sig-network] DNS should provide DNS for the cluster [Conformance] [Suite:k8s]",
	"[sig-network] Services should find a service from listing all namespaces [Conformance] [Suite:k8s]",
	"[sig-network] EndpointSlice should have Endpoints and EndpointSlices pointing to API Server [Conformance] [Suite:k8s]",
	"[sig-network] IngressClass API should support creating IngressClass API operations [Conformance] [Suite:k8s]",
	"[sig-network][Feature:Router] The HAProxy router should serve the correct routes when scoped to a single namespace [Suite:openshift/conformance/parallel]",
	"[sig-network-edge][Feature:Idling] Unidling should work with TCP (when fully idled) [Suite:openshift/conformance/parallel]",
	"[sig-node] Pods should be submitted and removed [NodeConformance] [Conformance] [Suite:k8s]",
	"[sig-node] Secrets should be consumable from pods in env vars [NodeConformance] [Conformance] [Suite:k8s]",
	"[sig-node] ConfigMap should be consumable via environment variable [NodeConformance] [Conformance] [Suite:k8s]",
	"[sig-node] Downward API should provide pod UID as env vars [NodeConformance] [Conformance] [Suite:k8s]",
	"[sig-node] PreStop should call prestop when killing a pod [Conformance] [Suite:k8s]",
	"[sig-node] Managed cluster should report ready nodes the entire duration of the test run [Late] [Suite:openshift/conformance/parallel]",
	"[sig-operator] OLM should have imagePullPolicy:IfNotPresent on thier deployments [Suite:openshift/conformance/parallel]",
	"[sig-storage] ConfigMap should be consumable from pods in volume [NodeConformance] [Conformance] [Suite:k8s]",
	"[sig-storage] Projected downwardAPI should provide container's cpu limit [NodeConformance] [Conformance] [Suite:k8s]",
	"[sig-storage] EmptyDir volumes should support (root,0644,tmpfs) [LinuxOnly] [NodeConformance] [Conformance] [Suite:k8s]",
	"[sig-storage] In-tree Volumes [Driver: aws] [Testpattern: Dynamic PV (default fs)] subPath should support existing directory [Suite:k8s]",
	"[sig-storage] Secrets should be immutable if `immutable` field is set [Conformance] [Suite:k8s]",
}

// skippable tests are skipped by the test itself on some clusters.
var skippable = map[string]string{
	"[sig-storage] In-tree Volumes [Driver: aws] [Testpattern: Dynamic PV (default fs)] subPath should support existing directory [Suite:k8s]": "skip [k8s.io/kubernetes/test/e2e/storage/framework/testsuite.go:116]: Driver aws doesn't support DynamicPV -- skipping",
	"[sig-network-edge][Feature:Idling] Unidling should work with TCP (when fully idled) [Suite:openshift/conformance/parallel]":               "skip [github.com/openshift/origin/test/extended/idling/idling.go:231]: idling is not supported with this network plugin",
	"[sig-instrumentation] Prometheus when installed on the cluster should report telemetry [Late] [Suite:openshift/conformance/parallel]":     "skip [github.com/openshift/origin/test/extended/prometheus/prometheus.go:427]: telemetry is disabled on this cluster",
}

type suites struct {
	XMLName xml.Name `xml:"testsuites"`
	Suites  []suite  `xml:"testsuite"`
}

type suite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Props    *properties `xml:"properties,omitempty"`
	Cases    []tcase     `xml:"testcase"`
}

type properties struct {
	Property []property `xml:"property"`
}

type property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type tcase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *skipped      `xml:"skipped,omitempty"`

	start, end time.Time // for the step log; not serialized
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",cdata"`
}

type skipped struct {
	Message string `xml:"message,attr"`
}

func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Round(time.Millisecond).Seconds(), 'f', -1, 64)
}

func (s *suite) add(name, class string, start, end time.Time, f *junitFailure) {
	s.Cases = append(s.Cases, tcase{Name: name, Classname: class, Time: seconds(end.Sub(start)), Failure: f, start: start, end: end})
}

// count fills in the totals and the time.
func (s *suite) count(d time.Duration) {
	s.Tests, s.Failures, s.Skipped = len(s.Cases), 0, 0
	for _, c := range s.Cases {
		if c.Failure != nil {
			s.Failures++
		}
		if c.Skipped != nil {
			s.Skipped++
		}
	}
	s.Time = seconds(d)
}

func writeJUnit(b *bucket, name string, v any) {
	data, err := xml.MarshalIndent(v, "", "  ")
	if err != nil {
		if b.err == nil {
			b.err = fmt.Errorf("encode %s: %w", name, err)
		}
		return
	}
	b.write(name, append([]byte(xml.Header), append(data, '\n')...))
}

// conformanceSuite is junit_e2e: 40-41 conformance tests, the plan's failures
// and, for an e2e flake, a failed attempt plus the passing retry at the end.
func conformanceSuite(r *run) suite {
	p := r.plan
	var must []string
	podNetFails := p.podNet != "" && p.result == failure && !p.noNetTest
	if podNetFails {
		must = append(must, testIntraPod)
	}
	for _, t := range []string{p.fail, p.fail2, p.e2eFlake} {
		if t != "" {
			must = append(must, t)
		}
	}
	names := slices.Clone(must)
	n := r.intn(40, 41)
	for _, i := range r.rng.Perm(len(conformanceTests)) {
		if len(names) >= n {
			break
		}
		if !slices.Contains(names, conformanceTests[i]) {
			names = append(names, conformanceTests[i])
		}
	}
	r.rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })

	version := "v4.1.0-" + strconv.Itoa(r.intn(7000, 9000)) + "-g" + shaFor("origin" + r.job.kube)[:9]
	s := suite{Name: "openshift-tests", Props: &properties{[]property{{"TestVersion", version}}}}
	span := r.t.e2eEnd.Sub(r.t.confStart) - 3*time.Minute
	var last time.Time
	for i, name := range names {
		start := r.t.confStart.Add(span*time.Duration(i)/time.Duration(len(names)) + r.dur(0, 20*time.Second))
		end := start.Add(r.dur(800*time.Millisecond, 95*time.Second))
		var f *junitFailure
		switch {
		case name == p.fail || name == p.e2eFlake || (podNetFails && name == testIntraPod):
			f = failureFor(r, name, end)
		case name == p.fail2:
			f = aside(r, "fail2", func() *junitFailure { return failureFor(r, name, end) })
		}
		s.add(name, "", start, end, f)
		if msg, ok := skippable[name]; ok && f == nil {
			c := &s.Cases[len(s.Cases)-1]
			c.Skipped, c.Time = &skipped{Message: msg}, "0"
			c.end = c.start
		}
		if end.After(last) {
			last = end
		}
	}
	if p.e2eFlake != "" {
		start := last.Add(r.dur(5*time.Second, 20*time.Second))
		s.add(p.e2eFlake, "", start, start.Add(r.dur(20*time.Second, 80*time.Second)), nil)
	}
	s.count(r.t.e2eEnd.Sub(r.t.confStart))
	return s
}

// upgradeSuite is junit_upgrade: the "Cluster upgrade" suite with the
// disruption tests, the cluster-level checks and one test per operator. A
// flake is written the way origin writes it: the failure, then a passing
// duplicate at the end.
func upgradeSuite(r *run) suite {
	p := r.plan
	s := suite{Name: "Cluster upgrade"}
	up, down := r.t.upgStart, r.t.upgEnd
	fail := func(name string) *junitFailure {
		if name == p.flake || (p.apiDown && name == testKubeAPINew) {
			return failureFor(r, name, down)
		}
		if p.partial && slices.Contains([]string{testCompletes, testCompletesIn, testMCPComplete, "Operator upgrade network", "Operator upgrade machine-config"}, name) {
			return failureFor(r, name, down)
		}
		return nil
	}
	s.add("upgrade", "upgrade", up, down, nil)
	for _, name := range []string{
		testKubeAPINew,
		"[sig-api-machinery] Kubernetes APIs remain available with reused connections",
		"[sig-api-machinery] OpenShift APIs remain available for new connections",
		"[sig-api-machinery] OpenShift APIs remain available with reused connections",
		"[sig-api-machinery] OAuth APIs remain available for new connections",
		"[sig-api-machinery] OAuth APIs remain available with reused connections",
		testLBNew,
		"[sig-imageregistry] Image registry remains available using reused connections",
		testAlerts,
		"[sig-apps] deployment-upgrade",
		"[sig-apps] job-upgrade",
	} {
		s.add(name, "disruption_tests", up, down.Add(r.dur(time.Second, 25*time.Second)), fail(name))
	}
	s.add("[sig-apps] statefulset-upgrade", "disruption_tests", up, up, nil)
	s.Cases[len(s.Cases)-1].Skipped = &skipped{Message: "skipping test: statefulset upgrade is covered by the conformance suite"}
	ack := up.Add(r.dur(8*time.Second, 40*time.Second))
	var noAck *junitFailure
	if p.neverBegan {
		noAck = &junitFailure{Message: "cluster version operator did not acknowledge the upgrade request", Body: "Timed out waiting for cluster to acknowledge upgrade: timed out waiting for the condition"}
	}
	s.add("[sig-cluster-lifecycle] Cluster version operator acknowledges upgrade", "", up, ack, noAck)
	s.add(testCompletesIn, "", up, down, fail(testCompletesIn))
	s.add(testCompletes, "", ack, down, fail(testCompletes))
	s.add(testMCPComplete, "", down.Add(-r.dur(2*time.Minute, 9*time.Minute)), down, fail(testMCPComplete))
	if !p.partial {
		s.add("[sig-cluster-lifecycle] ClusterOperators are available and not degraded after upgrade", "", down, down.Add(r.dur(time.Second, 3*time.Second)), nil)
	}
	for _, op := range []string{"authentication", "console", "dns", "etcd", "image-registry", "ingress", "kube-apiserver", "machine-config", "monitoring", "network", "openshift-apiserver"} {
		s.add("Operator upgrade "+op, "", down, down, fail("Operator upgrade "+op))
	}
	if p.flake != "" {
		s.add(p.flake, "disruption_tests", up, down.Add(r.dur(time.Second, 25*time.Second)), nil)
	}
	s.count(down.Sub(up))
	return s
}

// operatorSuites is ci-operator's junit_operator.xml.
func operatorSuites(r *run) suites {
	t, j := r.t, r.job
	s := suite{Name: "operator"}
	begin := r.start.Add(5 * time.Second)
	s.add("Find the input image origin-centos-8 and tag it into the pipeline", "", begin, begin.Add(time.Second), nil)
	if r.from != "" {
		s.add(`Import the release payload "initial" from an external source`, "", begin, begin.Add(r.dur(8*time.Second, 20*time.Second)), nil)
	}
	if j.typ == "presubmit" {
		s.add(`Create the release image "latest" containing all images built by this job`, "", begin, begin.Add(r.dur(50*time.Second, 90*time.Second)), nil)
	} else {
		s.add(`Import the release payload "latest" from an external source`, "", begin, begin.Add(r.dur(8*time.Second, 20*time.Second)), nil)
	}
	stepName := func(step string) string {
		return fmt.Sprintf("Run multi-stage test %s - %s-%s container test", j.target, j.target, step)
	}
	conf := begin.Add(15 * time.Second)
	s.add("Run multi-stage test pre phase", "", conf, t.installEnd, nil)
	s.add(stepName("ipi-conf"), "", conf, conf.Add(17*time.Second), nil)
	s.add(stepName("ipi-conf-aws"), "", conf.Add(18*time.Second), conf.Add(31*time.Second), nil)
	s.add(stepName("ipi-install-install"), "", t.installStart, t.installEnd, nil)
	var f, g *junitFailure
	if r.plan.result == failure {
		d := t.e2eEnd.Sub(t.e2eStart).Round(time.Second)
		msg := fmt.Sprintf("could not watch pod: the pod %s/%s-openshift-e2e-test failed after %s (failed containers: test): ContainerFailed one or more containers exited", r.ns, j.target, d)
		f = &junitFailure{Message: msg, Type: "", Body: msg + "\n\nContainer test exited with code 1, reason Error\n"}
		g = &junitFailure{Message: "test phase failed", Body: fmt.Sprintf("%q test steps failed", j.target)}
	}
	s.add("Run multi-stage test test phase", "", t.e2eStart, t.e2eEnd, g)
	s.add(stepName("openshift-e2e-test"), "", t.e2eStart, t.e2eEnd, f)
	s.add("Run multi-stage test post phase", "", t.e2eEnd, r.end.Add(-20*time.Second), nil)
	s.add(stepName("gather-extra"), "", t.e2eEnd.Add(5*time.Second), t.gatherEnd, nil)
	s.add(stepName("ipi-deprovision-deprovision"), "", t.gatherEnd.Add(5*time.Second), r.end.Add(-20*time.Second), nil)
	s.count(r.end.Sub(r.start))
	return suites{Suites: []suite{s}}
}

// e2eStepLog is the openshift-e2e-test step's build-log.txt: openshift-tests
// output with the monitor lines of the upgrade, then the conformance run.
func e2eStepLog(r *run, conf suite) string {
	t := r.t
	type item struct {
		at     time.Time
		render func() string
	}
	var items []item
	failed, startedN, total := 0, 0, 0
	add := func(at time.Time, s string) { items = append(items, item{at, func() string { return s }}) }
	provider := `{"type":"aws","region":"us-east-2","zone":"us-east-2a","multizone":true,"multimaster":true}`

	add(t.e2eStart, "Using shared dir /var/run/secrets/ci.openshift.io/multi-stage")
	add(t.e2eStart, "+ export PATH=/usr/libexec/origin:$PATH")
	if r.job.upgrade {
		add(t.e2eStart, fmt.Sprintf("Setting up upgrade: from %s to %s", r.from, r.to))
		add(t.e2eStart, fmt.Sprintf("+ openshift-tests run-upgrade all --to-image %s --options '' --provider '%s' -o /logs/artifacts/e2e.log --junit-dir /logs/artifacts/junit", r.releaseImage(r.to), provider))
		add(t.upgStart.Add(-2*time.Second), fmt.Sprintf("I%s     %d test_context.go:567] Tolerating taints \"node-role.kubernetes.io/control-plane\" when considering if nodes are ready", t.upgStart.Add(-2*time.Second).Format("0102 15:04:05.000000"), r.intn(200, 400)))
		add(t.upgStart, fmt.Sprintf("started: (0/1/1) %q", testUpgradeRun))
		verb := "passed"
		for _, s := range r.suites {
			for _, c := range s.Cases {
				if s.Name == "Cluster upgrade" && c.Failure != nil && c.Name != r.plan.flake {
					verb = "failed"
					add(t.upgEnd, c.Failure.Message)
				}
			}
		}
		add(t.upgEnd, fmt.Sprintf("%s: (%s) %s %q", verb, t.upgEnd.Sub(t.upgStart).Round(100*time.Millisecond), t.upgEnd.Format("2006-01-02T15:04:05"), testUpgradeRun))
		if verb == "failed" {
			add(t.upgEnd, "error: 1 fail, 0 pass, 0 skip ("+t.upgEnd.Sub(t.upgStart).Round(time.Second).String()+")")
		} else {
			add(t.upgEnd, "1 pass, 0 skip ("+t.upgEnd.Sub(t.upgStart).Round(time.Second).String()+")")
		}
	}
	for _, e := range r.events {
		add(e.from, e.line())
	}
	if len(conf.Cases) > 0 {
		add(t.confStart, fmt.Sprintf("+ openshift-tests run openshift/conformance/parallel --provider '%s' -o /logs/artifacts/e2e.log --junit-dir /logs/artifacts/junit", provider))
		total = len(conf.Cases)
		seen := map[string]bool{}
		var flaky []string
		for _, c := range conf.Cases {
			if seen[c.Name] {
				total--
				flaky = append(flaky, c.Name)
			}
			seen[c.Name] = true
			items = append(items, item{c.start, func() string {
				startedN++
				return fmt.Sprintf("started: (%d/%d/%d) %q", failed, startedN, total, c.Name)
			}})
			items = append(items, item{c.end, func() string {
				d := c.end.Sub(c.start).Round(100 * time.Millisecond)
				ts := c.end.Format("2006-01-02T15:04:05")
				switch {
				case c.Failure != nil:
					failed++
					return fmt.Sprintf("%s\n\n%s\n\nfailed: (%s) %s %q", c.Failure.Body, c.Failure.Message, d, ts, c.Name)
				case c.Skipped != nil:
					return fmt.Sprintf("skipped: (%s) %s %q", d, ts, c.Name)
				}
				return fmt.Sprintf("passed: (%s) %s %q", d, ts, c.Name)
			}})
		}
		end := t.e2eEnd.Add(-time.Second)
		items = append(items, item{end, func() string {
			var b strings.Builder
			if len(flaky) > 0 {
				fmt.Fprintf(&b, "Flaky tests:\n\n%s\n\n", strings.Join(flaky, "\n"))
			}
			fmt.Fprintf(&b, "Writing JUnit report to /logs/artifacts/junit/junit_e2e_%s.xml\n\n", t.e2eEnd.Format("20060102-150405"))
			fails := failed - len(flaky)
			summary := fmt.Sprintf("%d pass, %d skip (%s)", conf.Tests-conf.Failures-conf.Skipped-len(flaky), conf.Skipped, t.e2eEnd.Sub(t.confStart).Round(time.Second))
			if len(flaky) > 0 {
				summary = fmt.Sprintf("%d pass, %d flaky, %d skip (%s)", conf.Tests-conf.Failures-conf.Skipped-len(flaky), len(flaky), conf.Skipped, t.e2eEnd.Sub(t.confStart).Round(time.Second))
			}
			if fails > 0 {
				summary = fmt.Sprintf("error: %d fail, %s", fails, summary)
			}
			b.WriteString(summary)
			return b.String()
		}})
	}
	slices.SortStableFunc(items, func(a, b item) int { return a.at.Compare(b.at) })
	var b strings.Builder
	for _, it := range items {
		b.WriteString(it.render())
		b.WriteByte('\n')
	}
	return b.String()
}

// failureFor is the failure text of a test, as openshift-tests records it.
func failureFor(r *run, name string, at time.Time) *junitFailure {
	stamp := func(d time.Duration) string { return at.Add(-d).Format("Jan _2 15:04:05.000") }
	ns := func(prefix string) string { return fmt.Sprintf("e2e-%s-%d", prefix, r.intn(1000, 9999)) }
	switch name {
	case testIntraPod:
		src, dst := r.podIP(), r.podIP()
		return &junitFailure{
			Message: fmt.Sprintf("fail [k8s.io/kubernetes/test/e2e/common/network/networking.go:93]: failed dialing endpoint, did not find expected responses... \nTries 46\nCommand curl -g -q -s 'http://%s:9080/dial?request=hostname&protocol=http&host=%s&port=8083&tries=1'\nretrieved map[]\nexpected map[netserver-%d:{}]", src, dst, r.intn(0, 2)),
			Body: fmt.Sprintf("%s: INFO: encountered error during dial (did not find expected responses... \nTries 1\nCommand curl -g -q -s 'http://%s:9080/dial?request=hostname&protocol=http&host=%s&port=8083&tries=1'\nretrieved map[]\nexpected map[netserver-1:{}])\n%s: INFO: Get \"http://%s:8083/hostname\": dial tcp %s:8083: i/o timeout",
				stamp(90*time.Second), src, dst, stamp(60*time.Second), dst, dst),
		}
	case testMustGather:
		return &junitFailure{
			Message: "fail [github.com/openshift/origin/test/extended/cli/mustgather.go:72]: Unexpected error:\n    <*exec.ExitError | 0xc0016a2f40>: \n    exit status 1\noccurred",
			Body:    fmt.Sprintf("%s: INFO: Running 'oc --kubeconfig=/tmp/kubeconfig adm must-gather --dest-dir /tmp/must-gather'\nerror: gather did not start for pod must-gather-%s: unable to pull image: ImagePullBackOff", stamp(3*time.Minute), r.sfx()),
		}
	case testDNSServices:
		n := ns("dns")
		return &junitFailure{
			Message: "fail [k8s.io/kubernetes/test/e2e/network/dns_common.go:455]: Unexpected error:\n    <*errors.errorString | 0xc000352ba0>: \n    timed out waiting for the condition\noccurred",
			Body:    fmt.Sprintf("%s: INFO: Unable to read wheezy_udp@dns-test-service.%s.svc.cluster.local from pod %s/dns-test-%s: the server could not find the requested resource (get pods dns-test-%s)", stamp(70*time.Second), n, n, r.uuid(), r.sfx()),
		}
	case testConntrack:
		return &junitFailure{
			Message: "fail [k8s.io/kubernetes/test/e2e/network/conntrack.go:277]: Failed to connect to backend 2",
			Body:    fmt.Sprintf("%s: INFO: Pod client logs: Connection to %s 31471 port [udp/*] succeeded!\n%s: INFO: expected backend pod-server-2, got pod-server-1", stamp(40*time.Second), r.workers[0].ip, stamp(20*time.Second)),
		}
	case testServiceEndpoint:
		n := ns("services")
		return &junitFailure{
			Message: fmt.Sprintf("fail [k8s.io/kubernetes/test/e2e/network/service.go:787]: failed to validate endpoints for service endpoint-test2 in namespace: %[1]s: Timed out waiting for service endpoint-test2 in namespace %[1]s to expose endpoints map[pod1:[80]] (1m0s elapsed)", n),
			Body:    fmt.Sprintf("%s: INFO: successfully validated that service endpoint-test2 in namespace %s exposes endpoints map[]", stamp(65*time.Second), n),
		}
	case testSandbox:
		n, pod := ns("sched-pred"), "filler-pod-"+r.uuid()
		return &junitFailure{
			Message: "1 failures to create the sandbox",
			Body: fmt.Sprintf("ns/%s pod/%s node/%s - %.2f seconds after deletion - reason/FailedCreatePodSandBox Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create pod network sandbox k8s_%s_%s_%s_0(%s): error adding pod %s_%s to CNI network \"multus-cni-network\": plugin type=\"multus\" name=\"multus-cni-network\" failed (add): Multus: [%s/%s/%s]: have you checked that your default network is ready? still waiting for readinessindicatorfile @ /var/run/multus/cni/net.d/80-openshift-network.conf. pollimmediate error: timed out waiting for the condition",
				n, pod, r.workers[2].name, 40+r.rng.Float64()*20, pod, n, r.uuid(), r.hex(64), n, pod, n, pod, r.uuid()),
		}
	case testCSIBlock:
		return &junitFailure{
			Message: fmt.Sprintf("fail [k8s.io/kubernetes/test/e2e/storage/framework/volume_resource.go:252]: Unexpected error:\n    <*errors.errorString | 0xc001f1e6a0>: \n    PersistentVolumeClaims [ebs.csi.aws.com%s] not all in phase Bound within 5m0s\noccurred", r.sfx()),
			Body:    fmt.Sprintf("%s: INFO: PersistentVolumeClaim ebs.csi.aws.com%s found but phase is Pending instead of Bound.", stamp(30*time.Second), r.sfx()),
		}
	case testRollover:
		return &junitFailure{
			Message: "fail [k8s.io/kubernetes/test/e2e/apps/deployment.go:882]: Unexpected error:\n    <*errors.errorString | 0xc0025c2a10>: \n    error waiting for deployment \"test-rollover-deployment\" status to match expectation: timed out waiting for the condition\noccurred",
			Body:    fmt.Sprintf("%s: INFO: deployment status: v1.DeploymentStatus{ObservedGeneration:2, Replicas:2, UpdatedReplicas:1, ReadyReplicas:1, AvailableReplicas:1, UnavailableReplicas:1}", stamp(10*time.Second)),
		}
	case testMCODegraded:
		from := r.t.upgStart.Add(r.dur(25*time.Minute, 40*time.Minute)).Truncate(time.Second)
		pool := []string{"master", "worker"}[r.intn(0, 1)]
		return &junitFailure{
			Message: fmt.Sprintf("1 unexpected clusteroperator state transitions during e2e test run \n\n%s - %ds   E clusteroperator/machine-config condition/Degraded reason/RequiredPoolsFailed status/True Unable to apply %s: error during syncRequiredMachineConfigPools: [context deadline exceeded, error MachineConfigPool %s is not ready, retrying. Status: (pool degraded: true total: 3, ready 2, updated: 2, unavailable: 1)]",
				from.Format("Jan _2 15:04:05.000"), r.intn(600, 1800), r.to, pool),
		}
	case testMCDBackOff:
		w := r.workers[r.intn(0, len(r.workers)-1)]
		pod := "machine-config-daemon-" + r.sfx()
		times := r.intn(21, 40)
		from := r.t.upgStart.Add(r.dur(10*time.Minute, 30*time.Minute))
		return &junitFailure{
			Message: fmt.Sprintf("1 events happened too frequently\n\nevent happened %d times, something is wrong: namespace/openshift-machine-config-operator node/%s pod/%s hmsg/%s - reason/BackOff Back-off restarting failed container machine-config-daemon in pod %s_openshift-machine-config-operator(%s) From: %s To: %s result=reject ",
				times, w.name, pod, r.hex(10), pod, r.uuid(), from.Format("15:04:05Z"), from.Add(r.dur(5*time.Minute, 20*time.Minute)).Format("15:04:05Z")),
		}
	case testEtcdLeader:
		return &junitFailure{
			Message: "fail [github.com/openshift/origin/test/extended/etcd/leader_changes.go:57]: Leader changes observed during test run: 4",
			Body:    fmt.Sprintf("%s: INFO: etcd_server_leader_changes_seen_total increased by 4 over the test run", stamp(5*time.Second)),
		}
	case testLBNew:
		elb := r.lower(32) + "-" + strconv.Itoa(r.intn(100000000, 999999999)) + ".us-east-2.elb.amazonaws.com"
		from := at.Add(-r.dur(20*time.Minute, 40*time.Minute)).Truncate(time.Second)
		line := fmt.Sprintf("%s - 2s    E backend-disruption-name/service-load-balancer-with-pdb-new-connections connection/new disruption/service-load-balancer-with-pdb reason/DisruptionBegan service-load-balancer-with-pdb-new-connections stopped responding to GET requests over new connections: Get \"http://%s:80/echo?msg=Hello\": read tcp %s:41188->%s:80: read: connection reset by peer",
			from.Format("Jan 02 15:04:05.000"), elb, r.workers[0].ip, "3.142."+strconv.Itoa(r.intn(1, 254))+"."+strconv.Itoa(r.intn(1, 254)))
		return &junitFailure{
			Message: fmt.Sprintf("Service was unreachable during disruption for at least 2s of %s (0%%):", r.t.upgEnd.Sub(r.t.upgStart).Round(time.Second)),
			Body:    "Service was unreachable during disruption for at least 2s:\n\n" + line,
		}
	case testAlerts:
		return &junitFailure{
			Message: "Unexpected alert behavior during upgrade:",
			Body:    fmt.Sprintf("Unexpected alert behavior during upgrade:\n\nalert KubePodNotReady pending for %d seconds with labels: {namespace=\"openshift-marketplace\", pod=\"redhat-operators-%s\", severity=\"warning\"} result=reject", r.intn(100, 400), r.sfx()),
		}
	case testKubeAPINew:
		msgs := r.backend("kube-api-new-connections").DisruptionMessages
		return &junitFailure{
			Message: fmt.Sprintf("API \"kubernetes-api-available-new-connections\" was unreachable during disruption for at least 14s of %s (maxAllowed=4s):", r.t.upgEnd.Sub(r.t.upgStart).Round(time.Second)),
			Body:    "API \"kubernetes-api-available-new-connections\" was unreachable during disruption for at least 14s (maxAllowed=4s):\n\n" + strings.Join(msgs, "\n"),
		}
	case testCompletes, testCompletesIn:
		msg := fmt.Sprintf("during upgrade to %s: the cluster failed to reach the desired version: Cluster did not complete upgrade: timed out waiting for the condition: Working towards %s: 673 of 863 done (77%% complete), waiting on network", r.releaseImage(r.to), r.to)
		if name == testCompletesIn {
			msg = fmt.Sprintf("upgrade to %s did not complete within 105.00 minutes", r.to)
		}
		return &junitFailure{Message: msg, Body: msg}
	case testMCPComplete:
		return &junitFailure{Message: "Pools did not complete upgrade: timed out waiting for the condition", Body: "Pools did not complete upgrade: timed out waiting for the condition"}
	case "Operator upgrade network":
		msg := `Failed to upgrade network, operator was degraded (RolloutHung): DaemonSet "/openshift-ovn-kubernetes/ovnkube-node" rollout is not making progress`
		return &junitFailure{Message: msg, Body: msg}
	case "Operator upgrade machine-config":
		msg := "Failed to upgrade machine-config, operator was not available (NotAvailable): Cluster not available for [{operator " + r.from + "}]"
		return &junitFailure{Message: msg, Body: msg}
	}
	panic("no failure text for " + name)
}
