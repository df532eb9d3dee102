package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// event is one monitor interval. It renders both as an openshift-tests
// monitor line and as an item of e2e-events_*.json, the current schema.
type event struct {
	from, to time.Time
	level    byte   // I, W or E
	source   string // interval source
	locType  string // locator type
	keys     []kv   // locator keys, in the order the line shows them
	ann      []kv   // message annotations, shown as key/value before the message
	msg      string // human message
	display  bool   // shown on the spyglass timeline
	raw      string // a verbatim line (template era): no JSON form
}

type kv struct{ k, v string }

// line renders e the way monitorapi.Interval.String does: no year, UTC.
func (e event) line() string {
	if e.raw != "" {
		return e.raw
	}
	var loc, msg []string
	for _, p := range e.keys {
		k := p.k
		if k == "namespace" {
			k = "ns"
		}
		loc = append(loc, k+"/"+p.v)
	}
	for _, p := range e.ann {
		msg = append(msg, p.k+"/"+p.v)
	}
	if e.msg != "" {
		msg = append(msg, e.msg)
	}
	ts := e.from.Format("Jan 02 15:04:05.000")
	if e.to.After(e.from) {
		return fmt.Sprintf("%s - %-5s %c %s %s", ts, shortDur(e.to.Sub(e.from)), e.level, strings.Join(loc, " "), strings.Join(msg, " "))
	}
	return fmt.Sprintf("%s %c %s %s", ts, e.level, strings.Join(loc, " "), strings.Join(msg, " "))
}

func shortDur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%dms", d.Milliseconds())
	}
	return fmt.Sprintf("%ds", int(d.Seconds()))
}

func sortEvents(ev []event) {
	slices.SortStableFunc(ev, func(a, b event) int { return a.from.Compare(b.from) })
}

func podEvent(at time.Time, level byte, ns, pod string, n node, reason, msg string) event {
	keys := []kv{{"namespace", ns}, {"pod", pod}}
	if n.name != "" {
		keys = append(keys, kv{"node", n.name})
	}
	return event{from: at, to: at, level: level, source: "KubeEvent", locType: "Pod", keys: keys, ann: []kv{{"reason", reason}}, msg: msg}
}

func nodeEvent(at time.Time, level byte, n node, role, reason, msg string) event {
	return event{from: at, to: at, level: level, source: "NodeState", locType: "Node", keys: []kv{{"node", n.name}},
		ann: []kv{{"reason", reason}, {"roles", role}}, msg: msg, display: reason == "NotReady"}
}

func operatorEvent(at time.Time, level byte, op, cond, status, reason, msg string) event {
	return event{from: at, to: at, level: level, source: "OperatorState", locType: "ClusterOperator", keys: []kv{{"clusteroperator", op}},
		ann: []kv{{"condition", cond}, {"status", status}, {"reason", reason}}, msg: msg, display: true}
}

func versionEvent(at time.Time, level byte, reason, msg string) event {
	return event{from: at, to: at, level: level, source: "VersionState", locType: "ClusterVersion", keys: []kv{{"clusterversion", "cluster"}},
		ann: []kv{{"reason", reason}}, msg: msg, display: true}
}

func disruptionEvent(from, to time.Time, b backendDisruption, msg string) event {
	return event{from: from, to: to, level: 'E', source: "Disruption", locType: "Disruption",
		keys: []kv{{"backend-disruption-name", b.Name}, {"connection", strings.ToLower(b.ConnectionType)}, {"disruption", b.BackendName}},
		ann:  []kv{{"reason", "DisruptionBegan"}}, msg: msg, display: true}
}

// backgroundEvents are what every upgrade shows: operators and static pods
// rolling out, the network daemonset restarting on each node, nodes rebooting
// into new configs, a little noise. None of them matches a symptom, and no
// readiness probe fails within minutes of the network rollout.
func backgroundEvents(r *run) []event {
	ev := noiseEvents(r)
	if !r.job.upgrade {
		return ev
	}
	at := r.upgradeAt
	ev = append(ev, versionEvent(at(0), 'I', "UpgradeStarted", "Working towards "+r.to+": 0 of 863 done (0% complete)"))
	for i, m := range r.masters {
		ev = append(ev, podEvent(at(0.12+0.03*float64(i)), 'I', "openshift-kube-apiserver", "kube-apiserver-"+m.name, m, "Killing", "Stopping container kube-apiserver"))
	}
	ev = append(ev, networkRollout(r, at(0.24))...)
	if r.plan.partial {
		return ev // the upgrade stalls on the network operator, before the nodes update
	}
	ev = append(ev, nodeReboots(r)...)
	end := r.t.upgEnd.Add(-time.Duration(r.intn(5, 40)) * time.Second)
	ev = append(ev, versionEvent(end, 'I', "UpgradeComplete", "Cluster version is "+r.to))
	return ev
}

// networkRollout restarts the OVN-Kubernetes or openshift-sdn daemonset pod
// on every node, about 45 s apart.
func networkRollout(r *run, t time.Time) []event {
	ns, ds, ctr := "openshift-ovn-kubernetes", "ovnkube-node", "ovnkube-controller"
	if r.job.network == "sdn" {
		ns, ds, ctr = "openshift-sdn", "sdn", "sdn"
	}
	ev := []event{operatorEvent(t, 'W', "network", "Progressing", "True", "Deploying",
		fmt.Sprintf("changed: DaemonSet %q is not available (awaiting 1 nodes)", "/"+ns+"/"+ds))}
	nodes := slices.Concat(r.masters, r.workers)
	r.rng.Shuffle(len(nodes), func(i, j int) { nodes[i], nodes[j] = nodes[j], nodes[i] })
	for i, n := range nodes {
		at := t.Add(time.Duration(i*45+r.intn(5, 30))*time.Second + time.Duration(r.intn(0, 999))*time.Millisecond)
		ev = append(ev, podEvent(at, 'I', ns, ds+"-"+r.sfx(), n, "Killing", "Stopping container "+ctr))
		if i == 0 {
			ev = append(ev, podEvent(at.Add(r.dur(15*time.Second, 25*time.Second)), 'I', ns, ds+"-"+r.sfx(), n, "Started", "Started container "+ctr))
		}
	}
	done := t.Add(time.Duration(len(nodes)*45+40) * time.Second)
	return append(ev, operatorEvent(done, 'I', "network", "Progressing", "False", "AsExpected", "changed: Deployed"))
}

// reboot is a node the machine-config operator drains and reboots.
type reboot struct {
	n    node
	role string
	at   time.Time
}

// reboots lists the nodes that reboot during the upgrade: one master (never
// masters[0], whose kube-apiserver log is gathered) and one worker.
func (r *run) reboots() []reboot {
	at := func(f float64) time.Time {
		return r.t.upgStart.Add(time.Duration(float64(r.t.upgEnd.Sub(r.t.upgStart)) * f)).Truncate(time.Second)
	}
	return []reboot{
		{r.masters[1], "master", at(0.45)},
		{r.workers[2], "worker", at(0.68)},
	}
}

func nodeReboots(r *run) []event {
	var ev []event
	for _, rb := range r.reboots() {
		cfg := "rendered-" + rb.role + "-" + r.hex(32)
		ms := time.Duration(r.intn(0, 999)) * time.Millisecond
		ev = append(ev,
			nodeEvent(rb.at.Add(ms), 'I', rb.n, rb.role, "Drain", "Draining node to update config."),
			nodeEvent(rb.at.Add(40*time.Second+ms), 'I', rb.n, rb.role, "Reboot", "Node will reboot into config "+cfg),
			nodeEvent(rb.at.Add(70*time.Second+ms), 'W', rb.n, rb.role, "NotReady", "Node is not ready"),
			nodeEvent(rb.at.Add(4*time.Minute+ms), 'I', rb.n, rb.role, "NodeReady", "Node "+rb.n.name+" status is now: NodeReady"),
		)
	}
	return ev
}

// noiseEvents are ordinary warnings that match no symptom.
func noiseEvents(r *run) []event {
	w := r.worker()
	pool := []func(time.Time) event{
		func(t time.Time) event {
			pod := "redhat-operators-" + r.sfx()
			return podEvent(t, 'W', "openshift-marketplace", pod, w, "BackOff",
				"Back-off restarting failed container registry-server in pod "+pod+"_openshift-marketplace("+r.uuid()+")")
		},
		func(t time.Time) event {
			return podEvent(t, 'W', "openshift-monitoring", "prometheus-k8s-1", node{}, "FailedScheduling",
				"0/6 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match pod anti-affinity rules, 3 node(s) had untolerated taint {node-role.kubernetes.io/master: }.")
		},
		func(t time.Time) event {
			return operatorEvent(t, 'W', "authentication", "Progressing", "True", "OAuthServerDeployment_PodsUpdating",
				"changed: OAuthServerDeploymentProgressing: deployment/oauth-openshift.openshift-authentication: 1/3 pods have been updated to the latest generation")
		},
		func(t time.Time) event {
			pod := r.deployPod("image-registry")
			return podEvent(t, 'I', "openshift-image-registry", pod, w, "Scheduled", "Successfully assigned openshift-image-registry/"+pod+" to "+w.name)
		},
		func(t time.Time) event {
			return event{from: t, to: t.Add(r.dur(40*time.Second, 150*time.Second)).Truncate(time.Second), level: 'W', source: "Alert", locType: "Alert",
				keys: []kv{{"alert", "KubeDeploymentReplicasMismatch"}, {"namespace", "openshift-ingress"}},
				ann:  []kv{{"alertstate", "pending"}, {"severity", "warning"}}, msg: `deployment="router-default"`, display: true}
		},
		func(t time.Time) event {
			n := r.node()
			return podEvent(t, 'I', "openshift-machine-config-operator", "machine-config-daemon-"+r.sfx(), n, "Killing", "Stopping container machine-config-daemon")
		},
	}
	idx := r.rng.Perm(len(pool))[:r.intn(1, 2)]
	slices.Sort(idx)
	var ev []event
	for _, i := range idx {
		ev = append(ev, pool[i](r.upgradeAt(0.15+0.8*r.rng.Float64())))
	}
	return ev
}

// plantedEvents are the monitor lines behind the plan's symptoms and near-misses.
func plantedEvents(r *run) []event {
	p := r.plan
	var ev []event
	if p.podNet != "" {
		ev = append(ev, podNetworkEvents(r)...)
	}
	if p.sdnSeq {
		ev = append(ev, sdnRestart(r, r.upgradeAt(0.62), r.dur(8*time.Second, 12*time.Second), true)...)
	}
	if p.sdnLate {
		ev = append(ev, sdnRestart(r, r.upgradeAt(0.64), 90*time.Second, false)...)
	}
	if p.cni && !p.sdnSeq {
		ev = append(ev, cniAfterReboot(r)...)
	}
	if p.nearMiss&nearServiceNet != 0 {
		ev = append(ev, operatorEvent(r.upgradeAt(0.52), 'E', "console", "Degraded", "True", "RouteHealth_FailedGet",
			fmt.Sprintf(`changed: RouteHealthDegraded: failed to GET route (https://%s): Get "https://172.30.0.10:443/health": dial tcp 172.30.0.10:443: i/o timeout`,
				r.appsHost("console-openshift-console"))))
	}
	if p.nearMiss&nearProbe500 != 0 {
		ev = append(ev, podEvent(r.upgradeAt(0.76), 'W', "openshift-oauth-apiserver", r.deployPod("apiserver"), r.masters[1], "Unhealthy",
			"Readiness probe failed: HTTP probe failed with statuscode: 500"))
	}
	if p.partial {
		ev = append(ev,
			operatorEvent(r.upgradeAt(0.36), 'E', "network", "Degraded", "True", "RolloutHung",
				`changed: DaemonSet "/openshift-ovn-kubernetes/ovnkube-node" rollout is not making progress - pod ovnkube-node-`+r.sfx()+` is in CrashLoopBackOff State`),
			versionEvent(r.upgradeAt(0.9), 'W', "ClusterOperatorDegraded", "changed: Cluster operator network is degraded"),
		)
		ev[len(ev)-1].ann = []kv{{"condition", "Failing"}, {"status", "True"}, {"reason", "ClusterOperatorDegraded"}}
	}
	return ev
}

// probeTarget is a pod-network pod whose readiness probe the kubelet runs.
type probeTarget struct {
	ns, pod, scheme, port, path string
	master                      bool
}

func probeTargets(r *run) []probeTarget {
	return []probeTarget{
		{"openshift-apiserver", r.deployPod("apiserver"), "https", "8443", "/healthz", true},
		{"openshift-oauth-apiserver", r.deployPod("apiserver"), "https", "8443", "/readyz", true},
		{"openshift-monitoring", "prometheus-k8s-" + r.pick("0", "1"), "http", "9090", "/-/ready", false},
		{"openshift-dns", "dns-default-" + r.sfx(), "http", "8181", "/ready", false},
		{"openshift-console", r.deployPod("console"), "https", "8443", "/health", true},
		{"openshift-operator-lifecycle-manager", r.deployPod("catalog-operator"), "http", "8443", "/healthz", true},
	}
}

// podNetworkEvents plant pod-network-cross-node: readiness probes to pod IPs
// in 10.128.0.0/14 that time out, well away from the network rollout.
func podNetworkEvents(r *run) []event {
	targets := probeTargets(r)
	order := r.rng.Perm(len(targets))
	n := r.intn(3, 4)
	var ev []event
	for i := range n {
		tg := targets[order[i]]
		nd := r.worker()
		if tg.master {
			nd = r.master()
		}
		ip := r.podIP()
		u := tg.scheme + "://" + ip + ":" + tg.port + tg.path
		flavour := r.plan.podNet
		if flavour == podNetMixed {
			flavour = []string{podNetTimeout, podNetClient}[i%2]
		}
		level, msg := byte('E'), fmt.Sprintf("Get %q: dial tcp %s:%s: i/o timeout", u, ip, tg.port)
		if flavour == podNetClient {
			level, msg = 'W', fmt.Sprintf("Get %q: context deadline exceeded (Client.Timeout exceeded while awaiting headers)", u)
		}
		if r.chance(0.4) {
			msg += fmt.Sprintf(" (%d times)", r.intn(2, 4))
		}
		e := podEvent(r.upgradeAt(0.50+0.09*float64(i)+0.03*r.rng.Float64()), level, tg.ns, tg.pod, nd, "ReadinessFailed", msg)
		e.source, e.display = "PodMonitor", true
		ev = append(ev, e)
	}
	if r.plan.podNet != podNetClient {
		src, dst := r.worker(), r.master()
		ip := r.podIP()
		ev = append(ev, podEvent(r.upgradeAt(0.57), 'E', "openshift-network-diagnostics", r.deployPod("network-check-source"), src, "ConnectivityOutageDetected",
			fmt.Sprintf("Connectivity outage detected: network-check-target-%s: failed to establish a TCP connection to %s:8080: dial tcp %s:8080: i/o timeout", dst.name, ip, ip)))
	}
	return ev
}

// sdnRestart plants the seed-002 sequence: the openshift-sdn pod on a master
// is replaced, optionally the node loses its CNI config for a moment, and gap
// later openshift-apiserver's readiness probe fails. With a gap over 30 s it
// is a near-miss for sdn-rollout-readiness-loss.
func sdnRestart(r *run, t time.Time, gap time.Duration, cni bool) []event {
	m := r.master()
	ms := func(lo, hi int) time.Duration { return time.Duration(r.intn(lo, hi)) * time.Millisecond }
	ev := []event{
		podEvent(t, 'I', "openshift-sdn", "sdn-"+r.sfx(), m, "Killing", "Stopping container sdn"),
		podEvent(t.Add(ms(60, 300)), 'I', "openshift-sdn", "sdn-"+r.sfx(), m, "Pulling",
			fmt.Sprintf("Pulling image %q", "registry.build05.ci.openshift.org/"+r.ns+"/stable@"+r.digest())),
	}
	if cni {
		ev = append(ev, cniEvents(r, t.Add(ms(100, 400)), m)...)
	}
	return append(ev, podEvent(t.Add(gap), 'W', "openshift-apiserver", r.deployPod("apiserver"), m, "Unhealthy",
		"Readiness probe failed: HTTP probe failed with statuscode: 500"))
}

// cniEvents are the kubelet's NetworkPluginNotReady warnings for pods on n.
func cniEvents(r *run, t time.Time, n node) []event {
	const msg = "network is not ready: runtime network not ready: NetworkReady=false reason:NetworkPluginNotReady message:Network plugin returns error: Missing CNI default network"
	victims := []kv{
		{"openshift-controller-manager", r.deployPod("controller-manager")},
		{"openshift-machine-api", r.deployPod("cluster-autoscaler-operator")},
		{"openshift-cluster-node-tuning-operator", r.deployPod("cluster-node-tuning-operator")},
		{"openshift-ingress-operator", r.deployPod("ingress-operator")},
	}
	var ev []event
	for i, v := range victims[:r.intn(2, 4)] {
		at := t.Add(time.Duration(i*r.intn(900, 1500)) * time.Millisecond)
		ev = append(ev, podEvent(at, 'W', v.k, v.v, n, "NetworkNotReady", msg))
		if i == 0 {
			ev = append(ev, podEvent(at.Add(2*time.Second+time.Duration(r.intn(0, 99))*time.Millisecond), 'W', v.k, v.v, n, "NetworkNotReady", msg+" (2 times)"))
		}
	}
	return ev
}

// cniAfterReboot plants CNI warnings while a rebooted worker comes back.
func cniAfterReboot(r *run) []event {
	rb := r.reboots()[1]
	return cniEvents(r, rb.at.Add(100*time.Second+time.Duration(r.intn(0, 999))*time.Millisecond), rb.n)
}

// backendDisruption is one entry of backend-disruption_*.json.
type backendDisruption struct {
	Name               string
	BackendName        string
	ConnectionType     string
	DisruptedDuration  string
	DisruptionMessages []string
	LoadBalancerType   string
	Protocol           string
	TargetAPI          string
}

// backendDisruptions draws the disruption each backend saw and the intervals
// behind it. Pod-network backends stay at 0s unless the plan says otherwise.
func backendDisruptions(r *run) ([]backendDisruption, []event) {
	lbIP := fmt.Sprintf("%d.%d.%d.%d", r.pick2(3, 18), r.intn(1, 254), r.intn(1, 254), r.intn(1, 254))
	mk := func(name, backend, conn, lb, target string) backendDisruption {
		return backendDisruption{Name: name, BackendName: backend, ConnectionType: conn, LoadBalancerType: lb, Protocol: "http1", TargetAPI: target}
	}
	all := []backendDisruption{
		mk("kube-api-new-connections", "kube-api", "New", "external-lb", "kube-api"),
		mk("kube-api-reused-connections", "kube-api", "Reused", "external-lb", "kube-api"),
		mk("openshift-api-new-connections", "openshift-api", "New", "external-lb", "openshift-api"),
		mk("ingress-to-console-new-connections", "ingress-to-console", "New", "", ""),
		mk("pod-to-pod-new-connections", "pod-to-pod", "New", "", ""),
		mk("ci-cluster-network-liveness-new-connections", "ci-cluster-network-liveness", "New", "", ""),
	}
	var ev []event
	outages := map[string][]time.Duration{} // backend name -> outage lengths
	switch {
	case r.plan.apiDown:
		outages["kube-api-new-connections"] = []time.Duration{9 * time.Second, 5 * time.Second}
	case r.chance(0.3):
		outages["kube-api-new-connections"] = []time.Duration{time.Second}
	}
	if r.chance(0.35) {
		outages["ingress-to-console-new-connections"] = []time.Duration{time.Duration(r.intn(1, 2)) * time.Second}
	}
	if r.plan.podNetBackend {
		outages["pod-to-pod-new-connections"] = []time.Duration{time.Duration(r.intn(3, 9)) * time.Second}
	}
	for i := range all {
		b := &all[i]
		var total time.Duration
		for k, d := range outages[b.Name] {
			f := 0.14 + 0.06*float64(k)
			switch b.BackendName {
			case "ingress-to-console":
				f = 0.8
			case "pod-to-pod":
				f = 0.55
			}
			from := r.upgradeAt(f).Truncate(time.Second)
			e := disruptionEvent(from, from.Add(d), *b, disruptionMessage(r, *b, lbIP))
			ev = append(ev, e)
			b.DisruptionMessages = append(b.DisruptionMessages, e.line())
			total += d
		}
		b.DisruptedDuration = total.String()
	}
	return all, ev
}

func (r *run) pick2(a, b int) int {
	if r.chance(0.5) {
		return a
	}
	return b
}

func disruptionMessage(r *run, b backendDisruption, lbIP string) string {
	head := b.Name + " stopped responding to GET requests over new connections: "
	switch b.BackendName {
	case "kube-api":
		return head + fmt.Sprintf(`Get "https://%s:6443/api/v1/namespaces/default": dial tcp %s:6443: connect: connection refused`, r.apiHost(), lbIP)
	case "ingress-to-console":
		return head + fmt.Sprintf(`Get "https://%s/healthz": EOF`, r.appsHost("console-openshift-console"))
	default: // pod-to-pod
		ip := r.podIP()
		return head + fmt.Sprintf(`Get "http://%s:8080/health": dial tcp %s:8080: i/o timeout`, ip, ip)
	}
}

func (r *run) backend(name string) backendDisruption {
	for _, b := range r.backends {
		if b.Name == name {
			return b
		}
	}
	return backendDisruption{}
}

// The current interval schema of e2e-events_*.json and e2e-timelines_*.json.

type interval struct {
	Level   string          `json:"level"`
	Display bool            `json:"display"`
	Source  string          `json:"source"`
	Locator intervalLocator `json:"locator"`
	Message intervalMessage `json:"message"`
	From    string          `json:"from"`
	To      string          `json:"to"`
}

type intervalLocator struct {
	Type string            `json:"type"`
	Keys map[string]string `json:"keys"`
}

type intervalMessage struct {
	Reason       string            `json:"reason"`
	Cause        string            `json:"cause"`
	HumanMessage string            `json:"humanMessage"`
	Annotations  map[string]string `json:"annotations"`
}

func (e event) interval() interval {
	keys := map[string]string{}
	for _, p := range e.keys {
		keys[p.k] = p.v
	}
	ann := map[string]string{}
	reason := ""
	for _, p := range e.ann {
		ann[p.k] = p.v
		if p.k == "reason" {
			reason = p.v
		}
	}
	level := map[byte]string{'I': "Info", 'W': "Warning", 'E': "Error"}[e.level]
	return interval{
		Level: level, Display: e.display, Source: e.source,
		Locator: intervalLocator{Type: e.locType, Keys: keys},
		Message: intervalMessage{Reason: reason, HumanMessage: e.msg, Annotations: ann},
		From:    rfc3339(e.from), To: rfc3339(e.to),
	}
}

// writeIntervals writes e2e-events (every interval) and the spyglass timeline
// (the ones shown on the chart), one interval per line.
func writeIntervals(b *bucket, r *run, dir, stamp string) {
	var all, shown []interval
	for _, e := range r.events {
		all = append(all, e.interval())
		if e.display {
			shown = append(shown, e.interval())
		}
	}
	b.write(dir+"/e2e-events_"+stamp+".json", intervalsJSON(b, all))
	b.write(dir+"/e2e-timelines_spyglass_"+stamp+".json", intervalsJSON(b, shown))
}

func intervalsJSON(b *bucket, items []interval) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"items":[`)
	for i, it := range items {
		if i > 0 {
			buf.WriteByte(',')
		}
		data, err := json.Marshal(it)
		if err != nil && b.err == nil {
			b.err = err
		}
		buf.WriteByte('\n')
		buf.Write(data)
	}
	buf.WriteString("\n]}\n")
	return buf.Bytes()
}

func writeBackendDisruption(b *bucket, r *run, name string) {
	m := map[string]backendDisruption{}
	for _, d := range r.backends {
		m[d.Name] = d
	}
	b.json(name, map[string]any{"BackendDisruptions": m}, "  ")
}
