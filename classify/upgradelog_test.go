package classify

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// upgradeLog returns about size bytes of the openshift-e2e-test step log of
// OpenShift upgrade runs, one run after another, as the real ones read: the
// e2e monitor's lines (kube events with their "(N times)", pod and node
// state, clusteroperator conditions, disruption intervals, e2e test
// intervals), openshift-tests' klog lines (reflector list and watch
// failures, client-side throttling, the upgrade's progress), ginkgo's
// started/passed/failed lines and ci-operator's own. Probe failures,
// client timeouts and connection refusals are as common as in real runs
// of a network rollout: every node's network pod restarts, and the probes
// of the pods behind it fail for a while. Each run plants a few lines of
// each symptom and their near misses (the etcd peer port, node and service
// addresses, probe failures long after the rollout). The same size gives
// the same bytes.
func upgradeLog(size int) []byte {
	g := &upgradeGen{rng: rand.New(rand.NewPCG(14, 5))}
	g.b.Grow(size + 64<<10)
	at := time.Date(2026, 11, 12, 19, 40, 0, 0, time.UTC)
	for g.b.Len() < size {
		g.run(at)
		at = at.Add(3 * time.Hour)
	}
	out := g.b.Bytes()
	return out[:bytes.LastIndexByte(out[:size], '\n')+1]
}

// upgradeGen writes the runs of upgradeLog.
type upgradeGen struct {
	rng   *rand.Rand
	b     bytes.Buffer
	at    time.Time
	infra string // the run's cluster name
	nodes []string
	// pods[i] are the pods of upgradeNamespaces[i]: a pod keeps its name,
	// node and address, and its probe fails again and again.
	pods [][]genPod
}

type genPod struct{ name, node, ip string }

// pod returns a pod of upgradeNamespaces[i]; now and then one is replaced
// by a new one, as a rollout does.
func (g *upgradeGen) pod(i int) genPod {
	ps := g.pods[i]
	k := g.rng.IntN(len(ps))
	if g.rng.IntN(50) == 0 {
		ps[k] = genPod{upgradeNamespaces[i].pod + "-" + g.suffix(5), g.pick(g.nodes), g.podIP()}
		if g.rng.IntN(5) == 0 {
			ps[k].ip = g.nodeIP() // a pod on the host network
		}
	}
	return ps[k]
}

// The namespaces of a cluster's operands, and their pods' ports.
var upgradeNamespaces = []struct{ ns, pod, path string }{
	{"openshift-apiserver", "apiserver-7b9d8c6f4", ":8443/readyz"},
	{"openshift-oauth-apiserver", "apiserver-6f4c8d9b5", ":8443/readyz"},
	{"openshift-authentication", "oauth-openshift-5d8f7c9b6", ":6443/healthz"},
	{"openshift-console", "console-7c6f797fd9", ":8443/health"},
	{"openshift-monitoring", "prometheus-k8s", ":9090/-/ready"},
	{"openshift-monitoring", "thanos-querier-6d9f8b7c5", ":9091/-/ready"},
	{"openshift-ingress", "router-default-6b8f9c7d4", ":1936/healthz/ready"},
	{"openshift-dns", "dns-default", ":8181/ready"},
	{"openshift-image-registry", "image-registry-5f6d7c8b9", ":5000/healthz"},
	{"openshift-marketplace", "redhat-operators", ":50051"},
	{"openshift-operator-lifecycle-manager", "catalog-operator-86488444c", ":8443/healthz"},
	{"openshift-controller-manager", "controller-manager-5b7d9c8f6", ":8443/healthz"},
	{"openshift-route-controller-manager", "route-controller-manager-7c9f6d8b5", ":8443/healthz"},
	{"openshift-kube-storage-version-migrator", "migrator-6c9d8f7b5", ":8443/healthz"},
	{"openshift-network-diagnostics", "network-check-target", ":8080"},
}

const upgradeFrom, upgradeTo = "4.15.38", "4.16.0-0.nightly-2026-11-12-134514"

func (g *upgradeGen) pick(s []string) string { return s[g.rng.IntN(len(s))] }

// podIP returns an address on the default cluster network, 10.128.0.0/14.
func (g *upgradeGen) podIP() string {
	return fmt.Sprintf("10.%d.%d.%d", 128+g.rng.IntN(4), g.rng.IntN(3)*2, 2+g.rng.IntN(80))
}

func (g *upgradeGen) nodeIP() string {
	return fmt.Sprintf("10.0.%d.%d", g.rng.IntN(256), 2+g.rng.IntN(250))
}

func (g *upgradeGen) suffix(n int) string {
	const alnum = "bcdfghjklmnpqrstvwxz2456789"
	var s strings.Builder
	for range n {
		s.WriteByte(alnum[g.rng.IntN(len(alnum))])
	}
	return s.String()
}

func (g *upgradeGen) times() string {
	if n := g.rng.IntN(12); n > 1 {
		return fmt.Sprintf(" (%d times)", n)
	}
	return ""
}

// tick moves the clock on by up to max.
func (g *upgradeGen) tick(max time.Duration) {
	g.at = g.at.Add(time.Duration(g.rng.Int64N(int64(max))))
}

func (g *upgradeGen) stamp() string { return g.at.Format("Jan 02 15:04:05.000") }

func (g *upgradeGen) klogStamp(sev byte) string {
	return fmt.Sprintf("%c%s %8d", sev, g.at.Format("0102 15:04:05.000000"), 247)
}

// monitor writes a monitor line.
func (g *upgradeGen) monitor(level byte, locator, msg string) {
	fmt.Fprintf(&g.b, "%s %c %s %s\n", g.stamp(), level, locator, msg)
}

// interval writes a monitor interval.
func (g *upgradeGen) interval(d time.Duration, level byte, locator, msg string) {
	l := fmt.Sprintf("%ds", int(d.Seconds()))
	if d < time.Second {
		l = fmt.Sprintf("%dms", d.Milliseconds())
	}
	fmt.Fprintf(&g.b, "%s - %-5s %c %s %s\n", g.stamp(), l, level, locator, msg)
}

// run writes one upgrade run's step log, starting at start.
func (g *upgradeGen) run(start time.Time) {
	g.at = start
	g.infra = "ci-op-" + g.suffix(8) + "-" + g.suffix(5)
	g.nodes = g.nodes[:0]
	for range 6 {
		g.nodes = append(g.nodes, fmt.Sprintf("ip-10-0-%d-%d.us-east-2.compute.internal", g.rng.IntN(256), 2+g.rng.IntN(250)))
	}
	g.pods = make([][]genPod, len(upgradeNamespaces))
	for i, o := range upgradeNamespaces {
		for range 3 {
			p := genPod{o.pod + "-" + g.suffix(5), g.pick(g.nodes), g.podIP()}
			if g.rng.IntN(5) == 0 {
				p.ip = g.nodeIP()
			}
			g.pods[i] = append(g.pods[i], p)
		}
	}
	fmt.Fprintf(&g.b, "INFO[%s] Running step e2e-aws-ovn-upgrade-openshift-e2e-test.\n", g.at.Format(time.RFC3339))
	g.b.WriteString("Using shared dir /var/run/secrets/ci.openshift.io/multi-stage\n+ export PATH=/usr/libexec/origin:$PATH\n")
	fmt.Fprintf(&g.b, "Setting up upgrade: from %s to %s\n", upgradeFrom, upgradeTo)
	fmt.Fprintf(&g.b, "+ openshift-tests run-upgrade all --to-image registry.build05.ci.openshift.org/%s/release:latest --options '' -o /logs/artifacts/e2e.log --junit-dir /logs/artifacts/junit\n", g.infra)
	fmt.Fprintf(&g.b, "%s test_context.go:567] Tolerating taints \"node-role.kubernetes.io/control-plane\" when considering if nodes are ready\n", g.klogStamp('I'))
	g.monitor('I', "clusterversion/cluster", "reason/UpgradeStarted Working towards "+upgradeTo+": 0 of 863 done (0% complete)")
	// The upgrade: the operators roll out in turn; the network operator
	// restarts every node's network pod, then the nodes reboot.
	for phase := 0; phase < 40; phase++ {
		n := 150 + g.rng.IntN(150)
		rollout := phase%8 == 3
		for i := 0; i < n; i++ {
			g.tick(400 * time.Millisecond)
			if rollout && i%30 == 0 {
				g.networkPod()
				continue
			}
			g.line(rollout)
		}
		g.progress(phase)
	}
	g.planted()
	g.tick(time.Minute)
	fmt.Fprintf(&g.b, "passed: (1h12m31s) %s \"[sig-arch][Feature:ClusterUpgrade] Cluster should remain functional during upgrade [Disruptive] [Serial]\"\n", g.at.Format("2006-01-02T15:04:05"))
	fmt.Fprintf(&g.b, "INFO[%s] Step e2e-aws-ovn-upgrade-openshift-e2e-test succeeded after 1h20m4s.\n", g.at.Format(time.RFC3339))
}

// line writes one ordinary line of the upgrade; rollout says whether the
// network is being rolled out, when probes fail most.
func (g *upgradeGen) line(rollout bool) {
	probes := 10
	if rollout {
		probes = 28
	}
	switch r := g.rng.IntN(100); {
	case r < probes:
		g.probeFailure()
	case r < probes+14:
		g.podEvent()
	case r < probes+28:
		g.klogLine()
	case r < probes+34:
		g.operatorLine()
	case r < probes+38:
		g.nodeLine()
	case r < probes+41:
		g.disruption()
	case r < probes+48:
		g.testLine()
	default:
		g.podState()
	}
}

// probeFailure is a kubelet probe event: mostly client timeouts and
// refusals against pod addresses, some against node addresses
// (host-network pods), some HTTP errors.
func (g *upgradeGen) probeFailure() {
	oi := g.rng.IntN(len(upgradeNamespaces))
	o, p := upgradeNamespaces[oi], g.pod(oi)
	kind := "Readiness"
	if g.rng.IntN(4) == 0 {
		kind = "Liveness"
	}
	ip := p.ip
	scheme := "https"
	if strings.HasSuffix(o.path, ":8080") || strings.Contains(o.path, ":8181") || strings.Contains(o.path, ":1936") {
		scheme = "http"
	}
	url := scheme + "://" + ip + o.path
	var why string
	switch r := g.rng.IntN(10); {
	case r < 4:
		why = fmt.Sprintf("Get %q: context deadline exceeded (Client.Timeout exceeded while awaiting headers)", url)
	case r < 6:
		port := o.path[1:]
		if i := strings.IndexByte(port, '/'); i >= 0 {
			port = port[:i]
		}
		why = fmt.Sprintf("Get %q: dial tcp %s:%s: connect: connection refused", url, ip, port)
	case r < 7:
		why = fmt.Sprintf("Get %q: net/http: request canceled while waiting for connection (Client.Timeout exceeded while awaiting headers)", url)
	case r < 8:
		why = "HTTP probe failed with statuscode: 500"
	case r < 9:
		why = fmt.Sprintf(`Get %q: read tcp %s:%d->%s: read: connection reset by peer`, url, g.nodeIP(), 30000+g.rng.IntN(30000), ip+o.path[:strings.IndexAny(o.path[1:]+"/", "/")+1])
	default:
		why = fmt.Sprintf("%s probe error: Get %q: dial tcp %s: connect: no route to host\nbody: \n", kind, url, ip+o.path[:strings.IndexAny(o.path[1:]+"/", "/")+1])
		why = strings.ReplaceAll(why, "\n", `\n`)
	}
	reason := "Unhealthy"
	msg := kind + " probe failed: " + why
	if strings.Contains(why, " probe error: ") {
		reason, msg = "ProbeError", why
	} else if g.rng.IntN(3) == 0 {
		reason, msg = "ProbeError", kind+" probe error: "+why+`\nbody: \n`
	}
	g.monitor('W', "ns/"+o.ns+" pod/"+p.name+" node/"+p.node, "reason/"+reason+" "+msg+g.times())
}

// networkPod is an event of a node's network pod, in the order a rollout
// has them.
func (g *upgradeGen) networkPod() {
	ns, pod, ctr := "openshift-ovn-kubernetes", "ovnkube-node-"+g.suffix(5), "ovnkube-controller"
	if g.rng.IntN(4) == 0 {
		ns, pod, ctr = "openshift-multus", "multus-"+g.suffix(5), "kube-multus"
	}
	loc := "ns/" + ns + " pod/" + pod + " node/" + g.pick(g.nodes)
	switch g.rng.IntN(4) {
	case 0:
		g.monitor('I', loc, "reason/Killing Stopping container "+ctr)
	case 1:
		g.monitor('I', loc, fmt.Sprintf("reason/Pulling Pulling image \"quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:%s\"", g.suffix(32)))
	case 2:
		g.monitor('I', loc, "reason/Started Started container "+ctr)
	default:
		g.monitor('I', "ns/"+ns+" daemonset/ovnkube-node", "reason/SuccessfulDelete Deleted pod: "+pod)
	}
}

// podEvent is one of the kube events of pods being replaced.
func (g *upgradeGen) podEvent() {
	oi := g.rng.IntN(len(upgradeNamespaces))
	o, p := upgradeNamespaces[oi], g.pod(oi)
	pod := p.name
	loc := "ns/" + o.ns + " pod/" + pod + " node/" + p.node
	ctr := o.pod[:strings.IndexByte(o.pod+"-", '-')]
	switch g.rng.IntN(9) {
	case 0:
		g.monitor('I', loc, "reason/Killing Stopping container "+ctr)
	case 1:
		g.monitor('I', loc, fmt.Sprintf("reason/Pulled Successfully pulled image \"quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:%s\" in 1.2s (1.2s including waiting)", g.suffix(32)))
	case 2:
		g.monitor('I', loc, "reason/Created Created container "+ctr)
	case 3:
		g.monitor('I', loc, "reason/Started Started container "+ctr)
	case 4:
		g.monitor('I', "ns/"+o.ns+" pod/"+pod, "reason/Scheduled Successfully assigned "+o.ns+"/"+pod+" to "+g.pick(g.nodes))
	case 5:
		g.monitor('W', "ns/"+o.ns+" pod/"+pod, "reason/FailedScheduling 0/6 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match pod anti-affinity rules, 3 node(s) had untolerated taint {node-role.kubernetes.io/master: }. preemption: 0/6 nodes are available: 2 No preemption victims found for incoming pod, 4 Preemption is not helpful for scheduling.."+g.times())
	case 6:
		g.monitor('W', loc, "reason/BackOff Back-off restarting failed container "+ctr+" in pod "+pod+"_"+o.ns+"("+g.suffix(8)+"-"+g.suffix(4)+")"+g.times())
	case 7:
		g.monitor('I', "ns/"+o.ns+" replicaset/"+o.pod, "reason/SuccessfulCreate Created pod: "+pod)
	default:
		g.monitor('W', loc, fmt.Sprintf("reason/FailedCreatePodSandBox Failed to create pod sandbox: rpc error: code = Unknown desc = failed to create pod network sandbox k8s_%s_%s_%s_0(%s): error adding pod %s_%s to CNI network \"multus-cni-network\": plugin type=\"multus-shim\" name=\"multus-cni-network\" failed (add): CmdAdd (shim): CNI request failed with status 400: 'ContainerID:\"%s\" Netns:\"/var/run/netns/%s\"'", pod, o.ns, g.suffix(8), g.suffix(16), o.ns, pod, g.suffix(24), g.suffix(12)))
	}
}

// podState is a line of the pod monitor: containers and pods coming and
// going, with the newer structured annotations.
func (g *upgradeGen) podState() {
	oi := g.rng.IntN(len(upgradeNamespaces))
	o, p := upgradeNamespaces[oi], g.pod(oi)
	ctr := o.pod[:strings.IndexByte(o.pod+"-", '-')]
	loc := fmt.Sprintf("ns/%s pod/%s node/%s", o.ns, p.name, p.node)
	switch g.rng.IntN(5) {
	case 0:
		g.monitor('I', loc+" container/"+ctr, "reason/ContainerStart cause/ duration/3.00s")
	case 1:
		g.monitor('I', loc+" container/"+ctr, "reason/Ready")
	case 2:
		g.interval(time.Duration(1+g.rng.IntN(40))*time.Second, 'W', loc+" container/"+ctr, "constructed/pod-lifecycle-constructor reason/NotReady")
	case 3:
		g.monitor('E', loc+" container/"+ctr, "reason/ContainerExit code/1 cause/Error "+ctr+" exited with code 1")
	default:
		g.monitor('I', loc, "reason/GracefulDelete duration/30s")
	}
}

// klogLine is a line of openshift-tests' own klog output: most are the
// informers' failures while the API servers roll out.
func (g *upgradeGen) klogLine() {
	api := "https://api." + g.infra + ".aws-2.ci.openshift.org:6443"
	res := []string{"pods", "events", "nodes", "namespaces", "configmaps", "endpoints"}[g.rng.IntN(6)]
	rv := 100000 + g.rng.IntN(900000)
	var cause string
	switch g.rng.IntN(5) {
	case 0:
		cause = fmt.Sprintf("dial tcp 3.%d.%d.%d:6443: connect: connection refused", g.rng.IntN(256), g.rng.IntN(256), g.rng.IntN(256))
	case 1:
		cause = "net/http: TLS handshake timeout"
	case 2:
		cause = "http2: client connection lost"
	case 3:
		cause = fmt.Sprintf("dial tcp 3.%d.%d.%d:6443: i/o timeout", g.rng.IntN(256), g.rng.IntN(256), g.rng.IntN(256))
	default:
		cause = "context deadline exceeded (Client.Timeout exceeded while awaiting headers)"
	}
	switch g.rng.IntN(6) {
	case 0:
		fmt.Fprintf(&g.b, "%s reflector.go:539] k8s.io/client-go@v0.29.0/tools/cache/reflector.go:229: failed to list *v1.%s: Get \"%s/api/v1/%s?resourceVersion=%d\": %s\n", g.klogStamp('W'), strings.TrimSuffix(strings.ToUpper(res[:1])+res[1:], "s"), api, res, rv, cause)
	case 1:
		fmt.Fprintf(&g.b, "%s reflector.go:147] k8s.io/client-go@v0.29.0/tools/cache/reflector.go:229: Failed to watch *v1.%s: failed to list *v1.%s: Get \"%s/api/v1/%s?resourceVersion=%d\": %s\n", g.klogStamp('E'), strings.TrimSuffix(strings.ToUpper(res[:1])+res[1:], "s"), strings.TrimSuffix(strings.ToUpper(res[:1])+res[1:], "s"), api, res, rv, cause)
	case 2:
		fmt.Fprintf(&g.b, "%s request.go:697] Waited for 1.%03ds due to client-side throttling, not priority and fairness, request: GET:%s/api/v1/namespaces/openshift-etcd/%s\n", g.klogStamp('I'), g.rng.IntN(1000), api, res)
	case 3:
		fmt.Fprintf(&g.b, "%s trace.go:236] Trace[%d]: \"Reflector ListAndWatch\" name:k8s.io/client-go@v0.29.0/tools/cache/reflector.go:229 (12-Nov-2026 %s) (total time: 10001ms):\n", g.klogStamp('I'), g.rng.IntN(1<<30), g.at.Format("15:04:05.000"))
	case 4:
		fmt.Fprintf(&g.b, "%s disruption_backend_sampler.go:496] disruption/%s connection/%s producer sampler error: Get \"%s/api/v1/namespaces/default\": %s\n", g.klogStamp('E'), g.pick([]string{"kube-api", "openshift-api", "oauth-api", "cache-kube-api"}), g.pick([]string{"new", "reused"}), api, cause)
	default:
		fmt.Fprintf(&g.b, "%s event.go:364] \"Event occurred\" object=\"openshift-e2e-loki/loki-promtail-%s\" fieldPath=\"\" kind=\"Pod\" apiVersion=\"v1\" type=\"Normal\" reason=\"Scheduled\" message=\"Successfully assigned openshift-e2e-loki/loki-promtail-%s to %s\"\n", g.klogStamp('I'), g.suffix(5), g.suffix(5), g.pick(g.nodes))
	}
}

// operatorLine is a clusteroperator condition change.
func (g *upgradeGen) operatorLine() {
	op := g.pick([]string{"network", "kube-apiserver", "openshift-apiserver", "authentication", "etcd", "dns", "machine-config", "monitoring", "ingress", "console"})
	switch g.rng.IntN(4) {
	case 0:
		g.monitor('W', "clusteroperator/"+op, "condition/Progressing status/True reason/Deploying changed: DaemonSet \"/openshift-ovn-kubernetes/ovnkube-node\" is not available (awaiting 1 nodes)")
	case 1:
		g.monitor('W', "clusteroperator/"+op, fmt.Sprintf("condition/Degraded status/True reason/APIServerDeployment_UnavailablePod changed: APIServerDeploymentDegraded: 1 of 3 requested instances are unavailable for apiserver.openshift-%s ()", op))
	case 2:
		g.monitor('W', "clusteroperator/"+op, "condition/Available status/False reason/APIServices_Error changed: APIServicesAvailable: \"apps.openshift.io.v1\" is not ready: an attempt failed with statusCode = 503, err = the server is currently unable to handle the request")
	default:
		g.monitor('I', "clusteroperator/"+op, "condition/Progressing status/False changed: ")
	}
}

// nodeLine is a node's update or reboot.
func (g *upgradeGen) nodeLine() {
	n := g.pick(g.nodes)
	switch g.rng.IntN(4) {
	case 0:
		g.monitor('I', "node/"+n, "roles/worker reason/NodeUpdate phase/Update config/rendered-worker-"+g.suffix(32))
	case 1:
		g.monitor('W', "node/"+n, "roles/worker reason/NodeNotReady Node "+n+" status is now: NodeNotReady")
	case 2:
		g.monitor('I', "node/"+n, "roles/master reason/Reboot Node will reboot into config rendered-master-"+g.suffix(32))
	default:
		g.monitor('W', "node/"+n, "roles/worker reason/NodeHasNoDiskPressure Node "+n+" status is now: NodeHasNoDiskPressure"+g.times())
	}
}

// disruption is an interval of a disruption backend.
func (g *upgradeGen) disruption() {
	b := g.pick([]string{"kube-api", "openshift-api", "oauth-api", "ingress-to-console", "ingress-to-oauth-server", "image-registry", "service-load-balancer-with-pdb"})
	c := g.pick([]string{"new", "reused"})
	host := "https://api." + g.infra + ".aws-2.ci.openshift.org:6443"
	if strings.HasPrefix(b, "ingress") || b == "image-registry" {
		host = "https://console-openshift-console.apps." + g.infra + ".aws-2.ci.openshift.org"
	}
	var msg string
	switch g.rng.IntN(3) {
	case 0:
		msg = fmt.Sprintf("Get %q: dial tcp 3.%d.%d.%d:443: connect: connection refused", host+"/healthz", g.rng.IntN(256), g.rng.IntN(256), g.rng.IntN(256))
	case 1:
		msg = fmt.Sprintf("Get %q: net/http: timeout awaiting response headers", host+"/api/v1/namespaces/default")
	default:
		msg = fmt.Sprintf("Get %q: context deadline exceeded (Client.Timeout exceeded while awaiting headers)", host+"/apis/image.openshift.io/v1/namespaces/default/imagestreams")
	}
	g.interval(time.Duration(1+g.rng.IntN(20))*time.Second, 'E', "disruption/"+b+" connection/"+c,
		fmt.Sprintf("reason/DisruptionBegan %s-%s-connections stopped responding to GET requests over %s connections: %s", b, c, c, msg))
}

// testLine is a line of the e2e tests that run during the upgrade.
func (g *upgradeGen) testLine() {
	names := []string{
		"[sig-network] pods should successfully create sandboxes by adding pod to network",
		"[sig-api-machinery] Kubernetes APIs remain available for new connections",
		"[sig-api-machinery] OpenShift APIs remain available with reused connections",
		"[sig-network-edge] Application behind service load balancer with PDB remains available using new connections",
		"[sig-node] static pods should start after being created",
		"[sig-arch] Check if alerts are firing during or after upgrade success",
	}
	name := g.pick(names)
	switch g.rng.IntN(4) {
	case 0:
		g.interval(time.Duration(g.rng.IntN(300))*time.Second, 'I', fmt.Sprintf("e2e-test/%q", name), "status/Passed")
	case 1:
		fmt.Fprintf(&g.b, "%s: INFO: cluster upgrade is Progressing: Working towards %s: %d of 863 done (%d%% complete), waiting on network\n", g.at.Format("Jan _2 15:04:05.000"), upgradeTo, g.rng.IntN(863), g.rng.IntN(100))
	case 2:
		fmt.Fprintf(&g.b, "started: (0/%d/%d) %q\n", g.rng.IntN(30), 30, name)
	default:
		fmt.Fprintf(&g.b, "passed: (%d.%ds) %s %q\n", g.rng.IntN(60), g.rng.IntN(10), g.at.Format("2006-01-02T15:04:05"), name)
	}
}

// progress is the upgrade's progress after a phase.
func (g *upgradeGen) progress(phase int) {
	g.monitor('I', "clusterversion/cluster", fmt.Sprintf("reason/UpgradeProgressing Working towards %s: %d of 863 done (%d%% complete)", upgradeTo, phase*21, phase*21*100/863))
}

// planted writes the lines of the symptoms and their near misses.
func (g *upgradeGen) planted() {
	node := g.pick(g.nodes)
	g.tick(time.Second)
	fmt.Fprintf(&g.b, "%s clientconn.go:1331] [core] [Channel #%d SubChannel #%d] grpc: addrConn.createTransport failed to connect to {Addr: \"%s:2379\", ServerName: \"%s:2379\", }. Err: connection error: desc = \"transport: Error while dialing: dial tcp %s:2379: connect: connection refused\"\n",
		g.klogStamp('W'), g.rng.IntN(99), g.rng.IntN(99), g.nodeIP(), g.nodeIP(), g.nodeIP())
	fmt.Fprintf(&g.b, "%s clientconn.go:1331] grpc: addrConn.createTransport failed to connect to {Addr: \"%s:2380\"}. Err: connection error: desc = \"transport: Error while dialing: dial tcp %s:2380: connect: connection refused\"\n",
		g.klogStamp('W'), g.nodeIP(), g.nodeIP())
	fmt.Fprintf(&g.b, "%s controlbuf.go:580] [transport] [server-transport %#x] loopyWriter exiting with error: transport closed by client\n", g.klogStamp('I'), g.rng.Uint32())
	fmt.Fprintf(&g.b, "%s status.go:71] apiserver received an error that is not an metav1.Status: rpc error: code = Unavailable desc = transport is closing\n", g.klogStamp('E'))
	g.monitor('W', "ns/openshift-console pod/console-"+g.suffix(10)+" node/"+node, "reason/FailedCreatePodSandBox network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network")
	g.monitor('W', "node/"+node, "reason/NetworkNotReady network is not ready: container runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: No CNI configuration file in /etc/kubernetes/cni/net.d/. Has your network provider started?")
	fmt.Fprintf(&g.b, "%s sampler.go:124] pod-network-to-pod-network: Get \"http://%s:8080/\": dial tcp %s:8080: i/o timeout\n", g.klogStamp('E'), g.podIP(), g.podIP())
	fmt.Fprintf(&g.b, "%s sampler.go:124] service-to-service: Get \"http://172.30.%d.%d:80/\": dial tcp 172.30.%d.%d:80: i/o timeout\n", g.klogStamp('E'), g.rng.IntN(256), g.rng.IntN(256), g.rng.IntN(256), g.rng.IntN(256))
	fmt.Fprintf(&g.b, "%s sampler.go:124] host-to-host: read tcp %s:%d->%s:9000: i/o timeout\n", g.klogStamp('E'), g.nodeIP(), 40000+g.rng.IntN(20000), g.nodeIP())
}
