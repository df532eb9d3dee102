package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// clusterVersion is `oc get clusterversion -o json`: a List with the one
// ClusterVersion. status.history is newest first; an upgrade run has the
// to-version (Completed or Partial) above the installed from-version.
func clusterVersion(r *run) map[string]any {
	t := r.t
	installStarted := t.installStart.Add(r.dur(9*time.Minute, 14*time.Minute)).Truncate(time.Second)
	installDone := t.installEnd.Add(-r.dur(2*time.Minute, 6*time.Minute)).Truncate(time.Second)
	entry := func(version, image string, started, completed time.Time, state string) map[string]any {
		var done any
		if !completed.IsZero() {
			done = rfc3339(completed)
		}
		return map[string]any{
			"completionTime": done, "image": image, "startedTime": rfc3339(started),
			"state": state, "verified": false, "version": version,
		}
	}
	toImage := r.releaseDigest(r.to)
	history := []any{}
	available := r.to
	progressing := map[string]any{"type": "Progressing", "status": "False", "message": "Cluster version is " + r.to, "lastTransitionTime": rfc3339(installDone)}
	failing := map[string]any{"type": "Failing", "status": "False", "lastTransitionTime": rfc3339(installDone)}
	if r.job.upgrade && r.plan.neverBegan {
		// Installed, and the upgrade never taken on: one entry.
		history = append(history, entry(r.from, r.releaseDigest(r.from), installStarted, installDone, "Completed"))
		available = r.from
	} else if r.job.upgrade {
		upStarted := t.upgStart.Add(10 * time.Second).Truncate(time.Second)
		if r.plan.partial {
			history = append(history, entry(r.to, toImage, upStarted, time.Time{}, "Partial"))
			available = r.from
			op := "network"
			if r.job.template {
				op = "kube-apiserver"
			}
			progressing = map[string]any{"type": "Progressing", "status": "True", "reason": "ClusterOperatorsDegraded",
				"message":            fmt.Sprintf("Unable to apply %s: wait has exceeded 40 minutes for these operators: %s", r.to, op),
				"lastTransitionTime": rfc3339(upStarted)}
			failing = map[string]any{"type": "Failing", "status": "True", "reason": "ClusterOperatorDegraded",
				"message":            fmt.Sprintf("Cluster operator %s is degraded", op),
				"lastTransitionTime": rfc3339(r.upgradeAt(0.9).Truncate(time.Second))}
		} else {
			done := t.upgEnd.Add(-r.dur(30*time.Second, 3*time.Minute)).Truncate(time.Second)
			history = append(history, entry(r.to, toImage, upStarted, done, "Completed"))
			progressing["lastTransitionTime"] = rfc3339(done)
		}
		history = append(history, entry(r.from, r.releaseDigest(r.from), installStarted, installDone, "Completed"))
	} else {
		history = append(history, entry(r.to, toImage, installStarted, installDone, "Completed"))
	}

	channel := ""
	retrieved := map[string]any{"type": "RetrievedUpdates", "status": "False", "reason": "NoChannel",
		"message": "The update channel has not been configured.", "lastTransitionTime": rfc3339(installStarted)}
	if r.job.template {
		channel = "stable-4.4"
		retrieved["reason"] = "VersionNotFound"
		retrieved["message"] = fmt.Sprintf("Unable to retrieve available updates: currently installed version %s not found in the %q channel", r.to, channel)
	}
	conditions := []any{
		map[string]any{"type": "Available", "status": "True", "message": "Done applying " + available, "lastTransitionTime": rfc3339(installDone)},
		failing, progressing, retrieved,
	}
	if !r.job.template {
		conditions = append(conditions, map[string]any{"type": "ReleaseAccepted", "status": "True", "reason": "PayloadLoaded",
			"message":            fmt.Sprintf("Payload loaded version=%q image=%q architecture=%q", r.to, toImage, "amd64"),
			"lastTransitionTime": rfc3339(installStarted)})
	}
	spec := map[string]any{"channel": channel, "clusterID": r.uuid()}
	if r.job.template {
		spec["upstream"] = "https://api.openshift.com/api/upgrades_info/v1/graph"
	}
	generation := 1
	if r.job.upgrade {
		generation = 2
		spec["desiredUpdate"] = map[string]any{"force": true, "image": r.releaseImage(r.to), "version": ""}
	}
	cv := map[string]any{
		"apiVersion": "config.openshift.io/v1",
		"kind":       "ClusterVersion",
		"metadata": map[string]any{
			"creationTimestamp": rfc3339(installStarted.Add(-6 * time.Second)),
			"generation":        generation,
			"name":              "version",
			"resourceVersion":   fmt.Sprint(r.intn(40000, 190000)),
			"uid":               r.uuid(),
		},
		"spec": spec,
		"status": map[string]any{
			"availableUpdates":   nil,
			"conditions":         conditions,
			"desired":            map[string]any{"image": toImage, "version": r.to},
			"history":            history,
			"observedGeneration": generation,
			"versionHash":        r.draw("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", 11) + "=",
		},
	}
	return map[string]any{"apiVersion": "v1", "items": []any{cv}, "kind": "List", "metadata": map[string]any{"resourceVersion": ""}}
}

// logLine is one timestamped line of a pod log.
type logLine struct {
	at   time.Time
	text string
}

func joinLines(lines []logLine) string {
	slices.SortStableFunc(lines, func(a, b logLine) int { return a.at.Compare(b.at) })
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return b.String()
}

// klog formats a line the way k8s.io/klog does: Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg.
func klog(at time.Time, sev byte, src, msg string) logLine {
	return logLine{at, fmt.Sprintf("%c%s %7d %s] %s", sev, at.Format("0102 15:04:05.000000"), 1, src, msg)}
}

// podLogStart is when the gathered container of a static pod on master i started.
func (r *run) podLogStart(component string) time.Time {
	switch {
	case !r.job.upgrade:
		return r.t.installStart.Add(r.dur(14*time.Minute, 18*time.Minute))
	case component == "etcd":
		return r.upgradeAt(0.08).Add(r.dur(20*time.Second, 40*time.Second))
	default:
		return r.upgradeAt(0.12).Add(r.dur(135*time.Second, 150*time.Second))
	}
}

// kubeAPIServerLog is the gathered log of kube-apiserver on master m. etcd
// runs show the refused dials and closed transports of one member going
// down; the near-miss shows refused dials to the API port.
func kubeAPIServerLog(r *run, m node) string {
	at := r.podLogStart("kube-apiserver")
	tick := func(lo, hi time.Duration) time.Time {
		at = at.Add(r.dur(lo, hi)).Add(time.Duration(r.intn(0, 999999)) * time.Microsecond)
		return at
	}
	var etcd []string
	for _, n := range r.masters {
		etcd = append(etcd, "https://"+n.ip+":2379")
	}
	lines := []logLine{
		klog(tick(0, time.Millisecond), 'I', "flags.go:64", fmt.Sprintf("FLAG: --advertise-address=%q", m.ip)),
		klog(tick(0, time.Millisecond), 'I', "flags.go:64", fmt.Sprintf("FLAG: --etcd-servers=%q", "["+strings.Join(etcd, ",")+"]")),
		klog(tick(0, 50*time.Millisecond), 'I', "server.go:558", "external host was not specified, using "+m.ip),
		klog(tick(0, 50*time.Millisecond), 'I', "server.go:162", "Version: "+r.job.kube),
		klog(tick(time.Second, 3*time.Second), 'I', "shared_informer.go:311", "Waiting for caches to sync for cluster_authentication_trust_controller"),
		klog(tick(100*time.Millisecond, time.Second), 'I', "secure_serving.go:210", "Serving securely on [::]:6443"),
		klog(tick(100*time.Millisecond, time.Second), 'I', "shared_informer.go:318", "Caches are synced for cluster_authentication_trust_controller"),
		klog(tick(time.Second, 5*time.Second), 'I', "controller.go:624", "quota admission added evaluator for: leases.coordination.k8s.io"),
	}
	base := at
	for range r.intn(8, 12) {
		t := base.Add(r.dur(time.Minute, r.t.e2eEnd.Sub(base))).Add(r.micros())
		switch r.intn(0, 3) {
		case 0:
			lines = append(lines, klog(t, 'I', "alloc.go:330", fmt.Sprintf(`"allocated clusterIPs" service="e2e-services-%d/endpoint-test2" clusterIPs={"IPv4":"172.30.%d.%d"}`, r.intn(1000, 9999), r.intn(0, 255), r.intn(1, 254))))
		case 1:
			lines = append(lines, klog(t, 'I', "controller.go:624", "quota admission added evaluator for: "+r.pick("deployments.apps", "replicasets.apps", "endpointslices.discovery.k8s.io", "serviceaccounts", "poddisruptionbudgets.policy")))
		case 2:
			n := r.node()
			lines = append(lines, klog(t, 'I', "trace.go:236", fmt.Sprintf(`Trace[%d]: "Update" accept:application/vnd.kubernetes.protobuf, */*,audit-id:%s,client:%s,protocol:HTTP/2.0,resource:leases,scope:resource,url:/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/%s,verb:PUT (%s) (total time: %dms):`,
				r.intn(100000000, 999999999), r.uuid(), n.ip, n.name, t.Format("02-Jan-2006 15:04:05.000"), r.intn(500, 1800))))
		default:
			lines = append(lines, klog(t, 'W', "patch_genericapiserver.go:205", fmt.Sprintf(`Request to "/apis/apps/v1/namespaces/openshift-marketplace/deployments" (source IP %s:%d, user agent "kube-controller-manager/%s") before server is ready, possibly a sign for a broken load balancer setup.`, r.masters[2].ip, r.intn(30000, 60000), r.job.kube)))
		}
	}
	if r.plan.etcd {
		lines = append(lines, etcdRefusals(r)...)
	}
	if r.plan.nearMiss&nearAPIPort != 0 {
		t := r.upgradeAt(0.47)
		for _, res := range []string{"ConfigMap", "Secret"} {
			t = t.Add(r.dur(200*time.Millisecond, 2*time.Second))
			path := strings.ToLower(res) + "s"
			lines = append(lines, klog(t, 'E', "reflector.go:147", fmt.Sprintf(`k8s.io/client-go@v0.26.15/tools/cache/reflector.go:169: Failed to watch *v1.%[1]s: failed to list *v1.%[1]s: Get "https://10.0.0.5:6443/api/v1/%[2]s?limit=500&resourceVersion=0": dial tcp 10.0.0.5:6443: connect: connection refused`, res, path)))
		}
	}
	return joinLines(lines)
}

// etcdRefusals are the kube-apiserver's lines while etcd on masters[1]
// is down: its node reboots during the upgrade.
func etcdRefusals(r *run) []logLine {
	var at time.Time
	switch {
	case r.job.template:
		at = r.upgradeAt(0.43)
	case r.job.upgrade:
		at = r.reboots()[0].at.Add(r.dur(75*time.Second, 100*time.Second))
	default:
		at = r.upgradeAt(0.5)
	}
	ip := r.masters[1].ip
	var lines []logLine
	for range r.intn(3, 5) {
		at = at.Add(r.dur(500*time.Millisecond, 6*time.Second)).Add(r.micros())
		if r.job.template {
			lines = append(lines,
				klog(at, 'W', "clientconn.go:1120", fmt.Sprintf(`grpc: addrConn.createTransport failed to connect to {https://%[1]s:2379 0  <nil>}. Err :connection error: desc = "transport: Error while dialing dial tcp %[1]s:2379: connect: connection refused". Reconnecting...`, ip)),
				klog(at.Add(r.dur(time.Millisecond, 3*time.Millisecond)), 'I', "controlbuf.go:508", `transport: loopyWriter.run returning. connection error: desc = "transport is closing"`))
			continue
		}
		lines = append(lines,
			klog(at, 'W', "clientconn.go:1120", fmt.Sprintf(`grpc: addrConn.createTransport failed to connect to {https://%[1]s:2379  <nil> 0 <nil>}. Err: connection error: desc = "transport: Error while dialing dial tcp %[1]s:2379: connect: connection refused". Reconnecting...`, ip)),
			klog(at.Add(r.dur(time.Millisecond, 3*time.Millisecond)), 'I', "controlbuf.go:508", `transport: loopyWriter.run returning. connection error: desc = "transport is closing"`))
	}
	return append(lines, klog(at.Add(r.dur(100*time.Millisecond, time.Second)), 'E', "status.go:71",
		"apiserver received an error that is not an metav1.Status: rpc error: code = Unavailable desc = transport is closing"))
}

// etcdLog is the gathered log of etcd on master m, in etcd's JSON form.
func etcdLog(r *run, m node) string {
	at := r.podLogStart("etcd")
	member, cluster := r.hex(16), r.hex(16)
	line := func(t time.Time, level, caller, msg, fields string) logLine {
		return logLine{t, fmt.Sprintf(`{"level":%q,"ts":%q,"caller":%q,"msg":%q%s}`, level, t.Format("2006-01-02T15:04:05.000000Z07:00"), caller, msg, fields)}
	}
	tick := func(lo, hi time.Duration) time.Time {
		at = at.Add(r.dur(lo, hi)).Add(time.Duration(r.intn(0, 999999)) * time.Microsecond)
		return at
	}
	lines := []logLine{
		line(tick(0, time.Millisecond), "info", "embed/etcd.go:124", "configuring peer listeners", `,"listen-peer-urls":["https://0.0.0.0:2380"]`),
		line(tick(0, time.Millisecond), "info", "embed/etcd.go:132", "configuring client listeners", `,"listen-client-urls":["https://0.0.0.0:2379","unixs://`+m.ip+`:0"]`),
		line(tick(time.Second, 3*time.Second), "info", "etcdserver/server.go:2068", "published local member to cluster through raft",
			fmt.Sprintf(`,"local-member-id":%q,"local-member-attributes":"{Name:%s ClientURLs:[https://%s:2379]}","cluster-id":%q,"publish-timeout":"7s"`, member, m.name, m.ip, cluster)),
		line(tick(0, 10*time.Millisecond), "info", "embed/serve.go:187", "serving client traffic securely", `,"address":"[::]:2379"`),
	}
	base := at
	for range r.intn(6, 9) {
		t := base.Add(r.dur(time.Minute, r.t.e2eEnd.Sub(base))).Add(r.micros())
		if r.chance(0.5) {
			rev := r.intn(40000, 400000)
			lines = append(lines, line(t, "info", "mvcc/kvstore_compaction.go:66", "finished scheduled compaction",
				fmt.Sprintf(`,"compact-revision":%d,"took":"%dms","hash":%d`, rev, r.intn(40, 180), r.intn(100000000, 999999999))))
			continue
		}
		lines = append(lines, line(t, "warn", "etcdserver/util.go:170", "apply request took too long",
			fmt.Sprintf(`,"took":"%d.%03dms","expected-duration":"200ms","prefix":"read-only range ","request":"key:\"/kubernetes.io/leases/kube-system/kube-controller-manager\" ","response":"range_response_count:1 size:%d"`, r.intn(201, 480), r.intn(0, 999), r.intn(480, 560))))
	}
	if r.plan.etcd && r.job.upgrade {
		peer := r.hex(16)
		t := r.reboots()[0].at.Add(r.dur(70*time.Second, 80*time.Second)).Add(r.micros())
		lines = append(lines,
			line(t, "warn", "rafthttp/stream.go:421", "lost TCP streaming connection with remote peer",
				fmt.Sprintf(`,"stream-reader-type":"stream MsgApp v2","local-member-id":%q,"remote-peer-id":%q,"error":"EOF"`, member, peer)),
			line(t.Add(r.dur(4*time.Second, 6*time.Second)), "warn", "rafthttp/probing_status.go:68", "prober detected unhealthy status",
				fmt.Sprintf(`,"round-tripper-name":"ROUND_TRIPPER_RAFT_MESSAGE","remote-peer-id":%q,"rtt":"0s","error":"dial tcp %s:2380: connect: connection refused"`, peer, r.masters[1].ip)))
	}
	return joinLines(lines)
}
