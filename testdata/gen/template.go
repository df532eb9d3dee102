package main

import (
	"fmt"
	"strings"
	"time"
)

// The 2020 template era: ci-operator ran the e2e-aws-upgrade template, the
// test container's output (monitor lines, "failed:" lines) ended up in the
// root build-log.txt, and artifacts sat directly under artifacts/e2e-aws-upgrade.

// seed002Lines are the monitor lines quoted in seed 002 (bug 1791117), from
// release-openshift-origin-installer-e2e-aws-upgrade/14098, verbatim.
var seed002Lines = []string{
	`Jan 12 20:58:46.230 I ns/openshift-sdn daemonset/sdn-controller Deleted pod: sdn-controller-lkj6v`,
	`Jan 12 20:58:46.230 I ns/openshift-sdn pod/sdn-7d6g9 Pulling image "registry.svc.ci.openshift.org/ci-op-jbtg7jjb/stable@sha256:f8de726661ce92ee52c4de8498a9f2868a4569b7ae62e59442d09ccbb78302b5"`,
	`Jan 12 20:58:46.364 W ns/openshift-controller-manager pod/controller-manager-g9tkl network is not ready: runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network`,
	`Jan 12 20:58:48.379 W ns/openshift-controller-manager pod/controller-manager-g9tkl network is not ready: runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network (2 times)`,
	`Jan 12 20:58:48.387 W ns/openshift-machine-api pod/cluster-autoscaler-operator-748f454f48-xlbsk network is not ready: runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network`,
	`Jan 12 20:58:48.701 W ns/openshift-operator-lifecycle-manager pod/catalog-operator-86488444c-v4h5q Readiness probe failed: Get http://10.129.0.46:8080/healthz: net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers) (2 times)`,
	`Jan 12 20:58:49.097 W ns/openshift-apiserver pod/apiserver-zg25k Readiness probe failed: Get https://10.129.0.43:8443/healthz: net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers) (2 times)`,
	`Jan 12 20:58:49.374 W ns/openshift-cluster-node-tuning-operator pod/cluster-node-tuning-operator-5c859c6585-kb6ph network is not ready: runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network`,
	`Jan 12 20:58:49.742 W node/ip-10-0-157-152.ec2.internal condition Ready changed`,
	`Jan 12 20:58:49.745 I node/ip-10-0-157-152.ec2.internal Node ip-10-0-157-152.ec2.internal status is now: NodeReady (2 times)`,
	`Jan 12 20:58:49.882 I ns/openshift-machine-api machine/ci-op-jbtg7jjb-77109-dx8t6-worker-us-east-1b-tn6s4 Updated machine ci-op-jbtg7jjb-77109-dx8t6-worker-us-east-1b-tn6s4 (3 times)`,
	`Jan 12 20:58:50.366 W ns/openshift-ingress-operator pod/ingress-operator-8c8c9579c-hph6g network is not ready: runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network`,
	`Jan 12 20:58:50.373 W ns/openshift-controller-manager pod/controller-manager-g9tkl network is not ready: runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network (3 times)`,
	`Jan 12 20:58:50.381 W ns/openshift-machine-api pod/cluster-autoscaler-operator-748f454f48-xlbsk network is not ready: runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network (2 times)`,
}

// seedTimeline pins run 14098 to the times its seed lines imply.
func seedTimeline(r *run) {
	at := func(h, m, s int) time.Time { return time.Date(2020, 1, 12, h, m, s, 0, time.UTC) }
	r.t = timeline{
		installStart: at(19, 52, 45), installEnd: at(20, 22, 10), e2eStart: at(20, 22, 12),
		upgStart: at(20, 23, 41), upgEnd: at(21, 35, 2), confStart: at(21, 35, 2),
		e2eEnd: at(21, 35, 40), gatherEnd: at(21, 39, 57),
	}
	r.end = at(21, 48, 31)
}

// rawEvent parses a verbatim monitor line; the year comes from the run.
func rawEvent(r *run, line string) event {
	t, err := time.Parse("Jan 02 15:04:05.000", line[:len("Jan 02 15:04:05.000")])
	if err != nil {
		panic(err)
	}
	t = t.AddDate(r.start.Year(), 0, 0)
	return event{from: t, to: t, raw: line}
}

func monitorLine(t time.Time, level byte, rest string) event {
	return event{from: t, to: t, raw: fmt.Sprintf("%s %c %s", t.Format("Jan 02 15:04:05.000"), level, rest)}
}

// outage is a 2020 availability monitor's start and end lines.
func outage(r *run, from time.Time, d time.Duration, locator, what, url string) []event {
	return []event{
		monitorLine(from, 'E', fmt.Sprintf("%s %s started failing: Get %s: context deadline exceeded (Client.Timeout exceeded while awaiting headers)", locator, what, url)),
		monitorLine(from.Add(d), 'I', fmt.Sprintf("%s %s started responding to GET requests", locator, what)),
	}
}

func (r *run) seedOutages() (kube, openshift []event) {
	t := time.Date(2020, 1, 12, 20, 58, 49, 561e6, time.UTC)
	kube = outage(r, t, 65*time.Second, "kube-apiserver", "Kube API", "https://"+r.apiHost()+":6443/api/v1/namespaces/kube-system?timeout=3s")
	openshift = outage(r, t.Add(551*time.Millisecond), 58*time.Second, "openshift-apiserver", "OpenShift API",
		"https://"+r.apiHost()+":6443/apis/image.openshift.io/v1/namespaces/openshift-apiserver/imagestreams/missing?timeout=3s")
	return kube, openshift
}

func (r *run) frontendOutage() []event {
	from := r.upgradeAt(0.66).Truncate(time.Second)
	url := "https://" + r.appsHost("console-openshift-console")
	return []event{
		monitorLine(from, 'E', "ns/openshift-console route/console Route stopped responding to GET requests over new connections: Get "+url+": EOF"),
		monitorLine(from.Add(123*time.Second), 'I', "ns/openshift-console route/console Route started responding to GET requests over new connections"),
	}
}

// templateEvents are the monitor lines of a 2020 upgrade.
func templateEvents(r *run) []event {
	at := r.upgradeAt
	ev := []event{
		monitorLine(at(0), 'I', "clusterversion/version changed Progressing to True: Working towards "+r.to+": downloading update"),
		monitorLine(at(0.03), 'I', fmt.Sprintf("clusteroperator/kube-apiserver versions: raw-internal %s -> %s", r.from, r.to)),
		monitorLine(at(0.24), 'W', `clusteroperator/network changed Progressing to True: Deploying: DaemonSet "openshift-sdn/sdn" is not available (awaiting 1 nodes)`),
		monitorLine(at(0.24).Add(6*45*time.Second+40*time.Second), 'I', "clusteroperator/network changed Progressing to False"),
	}
	for i := range 6 {
		t := at(0.24).Add(time.Duration(i*45+r.intn(5, 30)) * time.Second)
		ev = append(ev, monitorLine(t, 'I', "ns/openshift-sdn pod/sdn-"+r.sfx()+" Stopping container sdn"))
		if i%3 == 0 {
			ev = append(ev, monitorLine(t.Add(r.dur(15*time.Second, 25*time.Second)), 'I', "ns/openshift-sdn pod/sdn-"+r.sfx()+" Created container sdn"))
		}
	}
	ev = append(ev,
		monitorLine(at(0.3), 'W', "ns/openshift-marketplace pod/redhat-operators-"+r.sfx()+" Back-off restarting failed container"),
		monitorLine(at(0.8), 'I', "ns/openshift-image-registry pod/"+r.deployPod("image-registry")+" Successfully assigned openshift-image-registry/image-registry to "+r.workers[1].name),
	)
	switch {
	case r.plan.partial:
		m := r.masters[1]
		ev = append(ev,
			monitorLine(at(0.40), 'I', "ns/openshift-etcd pod/etcd-member-"+m.name+" Stopping container etcd-member"),
			monitorLine(at(0.50), 'W', `clusteroperator/kube-apiserver changed Degraded to True: NodeInstallerDegraded: 1 nodes are failing on revision 8:\nstatic pod of revision 8 has been installed, but is not ready while new revision 9 is pending`),
			monitorLine(at(0.90), 'E', "clusterversion/version changed Failing to True: Cluster operator kube-apiserver is still updating"),
		)
		return ev
	}
	for i, rb := range []struct {
		n    node
		role string
		f    float64
	}{{r.masters[1], "master", 0.38}, {r.workers[0], "worker", 0.41}, {r.workers[2], "worker", 0.66}} {
		t := at(rb.f)
		ev = append(ev,
			monitorLine(t, 'I', "node/"+rb.n.name+" Draining node to update config."),
			monitorLine(t.Add(40*time.Second), 'I', "node/"+rb.n.name+" Node will reboot into config rendered-"+rb.role+"-"+r.hex(32)),
		)
		if r.plan.seed002 && i == 1 {
			continue // the seed's own lines show this node coming back
		}
		ev = append(ev,
			monitorLine(t.Add(70*time.Second), 'W', "node/"+rb.n.name+" condition Ready changed"),
			monitorLine(t.Add(4*time.Minute), 'I', "node/"+rb.n.name+" Node "+rb.n.name+" status is now: NodeReady"),
		)
	}
	ev = append(ev, monitorLine(r.t.upgEnd.Add(-r.dur(20*time.Second, 90*time.Second)), 'I', "clusterversion/version changed Progressing to False: Cluster version is "+r.to))
	if r.plan.seed002 {
		for _, l := range seed002Lines {
			ev = append(ev, rawEvent(r, l))
		}
		kube, openshift := r.seedOutages()
		ev = append(append(ev, kube...), openshift...)
	}
	if r.plan.fail == testFrontends2020 {
		ev = append(ev, r.frontendOutage()...)
	}
	return ev
}

func templateUpgradeSuite(r *run) suite {
	s := suite{Name: "Cluster upgrade"}
	up, down := r.t.upgStart, r.t.upgEnd
	lines := func(ev []event) string {
		var out []string
		for _, e := range ev {
			out = append(out, e.line())
		}
		return strings.Join(out, "\n")
	}
	kube, openshift := r.seedOutages()
	fail := func(name string) *junitFailure {
		switch {
		case r.plan.seed002 && name == testKubeAPI2020:
			return &junitFailure{Message: "API was unreachable during upgrade for at least 1m5s:", Body: "API was unreachable during upgrade for at least 1m5s:\n\n" + lines(kube)}
		case r.plan.seed002 && name == testOSAPI2020:
			return &junitFailure{Message: "API was unreachable during upgrade for at least 58s:", Body: "API was unreachable during upgrade for at least 58s:\n\n" + lines(openshift)}
		case r.plan.fail == testFrontends2020 && name == testFrontends2020:
			msg := fmt.Sprintf("Frontends were unreachable during disruption for at least 2m3s of %s (3%%):", down.Sub(up).Round(time.Second))
			return &junitFailure{Message: msg, Body: msg + "\n\n" + lines(r.frontendOutage())}
		case r.plan.partial && (name == testCompletes || name == "Operator upgrade kube-apiserver"):
			msg := fmt.Sprintf("during upgrade to %s: Cluster did not complete upgrade: timed out waiting for the condition: Cluster operator kube-apiserver is still updating", r.releaseImage(r.to))
			if name != testCompletes {
				msg = "Failed to upgrade kube-apiserver, operator was degraded (NodeInstaller_InstallerPodFailed): NodeInstallerDegraded: 1 nodes are failing on revision 8"
			}
			return &junitFailure{Message: msg, Body: msg}
		}
		return nil
	}
	for _, name := range []string{testKubeAPI2020, testOSAPI2020, testFrontends2020, "[sig-apps] deployment-upgrade", "[sig-apps] daemonset-upgrade"} {
		s.add(name, "", up, down.Add(r.dur(time.Second, 20*time.Second)), fail(name))
	}
	ack := up.Add(r.dur(8*time.Second, 40*time.Second))
	s.add("[sig-cluster-lifecycle] Cluster version operator acknowledges upgrade", "", up, ack, nil)
	s.add(testCompletes, "", ack, down, fail(testCompletes))
	for _, op := range []string{"authentication", "console", "dns", "ingress", "kube-apiserver", "machine-config", "network", "openshift-apiserver"} {
		s.add("Operator upgrade "+op, "", down, down, fail("Operator upgrade "+op))
	}
	s.count(down.Sub(up))
	return s
}

func templateE2ESuite(r *run) suite {
	s := suite{Name: "openshift-tests"}
	var f *junitFailure
	if r.plan.result == failure {
		var cause string
		switch {
		case r.plan.seed002:
			cause = "API was unreachable during upgrade for at least 1m5s"
		case r.plan.partial:
			cause = "Cluster did not complete upgrade: timed out waiting for the condition: Cluster operator kube-apiserver is still updating"
		default:
			cause = "Frontends were unreachable during disruption for at least 2m3s"
		}
		msg := fmt.Sprintf("fail [github.com/openshift/origin/test/e2e/upgrade/upgrade.go:138]: during upgrade to %s\nUnexpected error:\n    <*errors.errorString | 0xc002b6c8a0>: {\n        s: %q,\n    }\n    %s\noccurred", r.releaseImage(r.to), cause, cause)
		f = &junitFailure{Message: msg, Body: msg}
	}
	s.add(testUpgrade2020, "", r.t.upgStart, r.t.upgEnd, f)
	s.count(r.t.upgEnd.Sub(r.t.upgStart))
	return s
}

// templateTestOutput is the test container's output, also saved as e2e.log.
func templateTestOutput(r *run, e2e suite) string {
	t := r.t
	var b strings.Builder
	fmt.Fprintf(&b, "%s: INFO: Fetching cloud provider for %q\n", t.e2eStart.Add(40*time.Second+317*time.Millisecond).Format("Jan _2 15:04:05.000"), "aws")
	fmt.Fprintf(&b, "I%s     %d test_context.go:419] Tolerating taints \"node-role.kubernetes.io/master\" when considering if nodes are ready\n",
		t.e2eStart.Add(41*time.Second+52718*time.Microsecond).Format("0102 15:04:05.000000"), r.intn(200, 400))
	fmt.Fprintf(&b, "started: (0/1/1) %q\n\n", testUpgrade2020)
	for _, e := range r.events {
		b.WriteString(e.line())
		b.WriteByte('\n')
	}
	c := e2e.Cases[0]
	d := t.upgEnd.Sub(t.upgStart).Round(100 * time.Millisecond)
	verb, summary := "passed", "1 pass, 0 skip"
	if c.Failure != nil {
		fmt.Fprintf(&b, "\n%s\n\n", c.Failure.Message)
		verb, summary = "failed", "error: 1 fail, 0 pass, 0 skip"
	}
	fmt.Fprintf(&b, "%s: (%s) %s %q\n\n", verb, d, t.upgEnd.Format("2006-01-02T15:04:05"), testUpgrade2020)
	fmt.Fprintf(&b, "Writing JUnit report to /tmp/artifacts/junit/junit_e2e_%s.xml\n\n", t.e2eEnd.Format("20060102-150405"))
	fmt.Fprintf(&b, "%s (%s)\n", summary, t.upgEnd.Sub(t.upgStart).Round(time.Second))
	return b.String()
}

// templateCIOperatorLog is the root build-log.txt of a template-era run: the
// ci-operator log with the test container's output.
func templateCIOperatorLog(r *run, testOutput string) string {
	t, target := r.t, r.job.target
	var b strings.Builder
	line := func(at time.Time, format string, args ...any) {
		fmt.Fprintf(&b, "%s %s\n", at.Format("2006/01/02 15:04:05"), fmt.Sprintf(format, args...))
	}
	at := r.start.Add(4 * time.Second)
	line(at, "ci-operator version v%s-%s", at.AddDate(0, 0, -3).Format("20060102"), shaFor("ci-operator" + at.Format("2006-01"))[:7])
	line(at, "No source defined")
	line(at, "Resolved release initial to %s", r.releaseImage(r.from))
	line(at, "Resolved release latest to %s", r.releaseImage(r.to))
	line(at.Add(time.Second), "Using namespace %s", r.ns)
	line(at.Add(time.Second), "Running [release-inputs], [release:latest], [release:initial], %s", target)
	line(at.Add(2*time.Second), "Creating namespace %s", r.ns)
	line(at.Add(3*time.Second), "Setting a soft TTL of 1h0m0s for the namespace")
	line(at.Add(3*time.Second), "Setting a hard TTL of 12h0m0s for the namespace")
	line(at.Add(4*time.Second), "Setting up pipeline imagestream for the test")
	line(at.Add(5*time.Second), "Acquiring lease for %q", "aws-quota-slice")
	line(at.Add(6*time.Second), "Acquired lease %q for %q", r.uuid(), "aws-quota-slice")
	line(at.Add(6*time.Second), "Executing template %s", target)
	line(at.Add(6*time.Second), "Creating or restarting template instance")
	line(at.Add(6*time.Second), "Waiting for template instance to be ready")
	line(t.installStart, "Running pod %s", target)
	line(t.installEnd, "Container setup in pod %s completed successfully", target)
	ok := r.plan.result == success
	if ok {
		line(t.e2eEnd, "Container test in pod %s completed successfully", target)
	} else {
		line(t.e2eEnd, "Container test in pod %s failed, exit code 1, reason Error", target)
	}
	b.WriteString(testOutput)
	line(r.end.Add(-5*time.Second), "Container teardown in pod %s completed successfully", target)
	podDur := r.end.Add(-5 * time.Second).Sub(t.installStart).Round(time.Second)
	if ok {
		line(r.end.Add(-5*time.Second), "Pod %s succeeded after %s", target, podDur)
	} else {
		line(r.end.Add(-5*time.Second), "Pod %s failed after %s (failed containers: test)", target, podDur)
	}
	line(r.end.Add(-2*time.Second), "Releasing lease for %q", "aws-quota-slice")
	line(r.end, "Ran for %s", r.end.Sub(r.start).Round(time.Second))
	if !ok {
		fmt.Fprintf(&b, "error: could not run steps: step %[1]s failed: template pod %[1]q failed: the pod %[2]s/%[1]s failed after %[3]s (failed containers: test): ContainerFailed one or more containers exited\n", target, r.ns, podDur)
	}
	return b.String()
}

func templateOperatorSuites(r *run) suites {
	s := suite{Name: "operator"}
	t, target := r.t, r.job.target
	name := func(c string) string { return fmt.Sprintf("Run template %s - %s container %s", target, target, c) }
	s.add(name("setup"), "", t.installStart, t.installEnd, nil)
	var f *junitFailure
	if r.plan.result == failure {
		msg := fmt.Sprintf("the pod %s/%s failed after %s (failed containers: test): ContainerFailed one or more containers exited", r.ns, target, r.end.Sub(t.installStart).Round(time.Second))
		f = &junitFailure{Message: msg, Body: msg}
	}
	s.add(name("test"), "", t.e2eStart, t.e2eEnd, f)
	s.add(name("teardown"), "", t.e2eEnd, r.end.Add(-5*time.Second), nil)
	s.count(r.end.Sub(r.start))
	return suites{Suites: []suite{s}}
}

func writeTemplateRun(b *bucket, r *run) {
	if r.plan.seed002 {
		seedTimeline(r)
	}
	writeStarted(b, r)
	writeProwJob(b, r)
	writeFinished(b, r)

	r.events = templateEvents(r)
	sortEvents(r.events)
	e2e, up, op := templateE2ESuite(r), templateUpgradeSuite(r), templateOperatorSuites(r)
	r.suites = append([]suite{e2e, up}, op.Suites...)
	out := templateTestOutput(r, e2e)
	b.text(r.dir+"/build-log.txt", templateCIOperatorLog(r, out))

	art := r.dir + "/artifacts/" + r.job.target
	b.text(art+"/e2e.log", out)
	writeJUnit(b, art+"/junit/junit_e2e_"+r.t.e2eEnd.Format("20060102-150405")+".xml", &e2e)
	writeJUnit(b, fmt.Sprintf("%s/junit/junit_upgrade_%d.xml", art, r.t.upgEnd.Unix()), &up)
	b.json(art+"/clusterversion.json", clusterVersion(r), "    ")
	b.gzipped(art+"/pods/openshift-kube-apiserver_kube-apiserver-"+r.masters[0].name+"_kube-apiserver.log", kubeAPIServerLog(r, r.masters[0]))
	writeJUnit(b, r.dir+"/artifacts/junit_operator.xml", &op)
}
