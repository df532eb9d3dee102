package prow

import (
	"reflect"
	"testing"
	"time"
)

func TestParseMonitorLine(t *testing.T) {
	start := time.Date(2020, 1, 12, 20, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		line string
		want MonitorLine
		ok   bool
	}{
		{"pod event",
			"Jan 12 20:58:46.230 W ns/openshift-sdn pod/sdn-7d6g9 node/ip-10-0-1-2.ec2.internal reason/Killing Stopping container sdn",
			MonitorLine{At: time.Date(2020, 1, 12, 20, 58, 46, 230e6, time.UTC), Level: 'W', Namespace: "openshift-sdn", Node: "ip-10-0-1-2.ec2.internal",
				Text: "ns/openshift-sdn pod/sdn-7d6g9 node/ip-10-0-1-2.ec2.internal reason/Killing Stopping container sdn"}, true},
		{"interval",
			"Jan 12 21:02:10.118 - 12s   E disruption/kube-api connection/new stopped responding",
			MonitorLine{At: time.Date(2020, 1, 12, 21, 2, 10, 118e6, time.UTC), Level: 'E', Duration: 12 * time.Second,
				Text: "disruption/kube-api connection/new stopped responding"}, true},
		{"interval in milliseconds",
			"Jan 12 21:02:10.118 - 500ms I ns/x pod/y msg",
			MonitorLine{At: time.Date(2020, 1, 12, 21, 2, 10, 118e6, time.UTC), Level: 'I', Duration: 500 * time.Millisecond, Namespace: "x", Text: "ns/x pod/y msg"}, true},
		{"node only",
			"Jan 12 20:58:49.742 W node/ip-10-0-157-152.ec2.internal condition Ready changed",
			MonitorLine{At: time.Date(2020, 1, 12, 20, 58, 49, 742e6, time.UTC), Level: 'W', Node: "ip-10-0-157-152.ec2.internal",
				Text: "node/ip-10-0-157-152.ec2.internal condition Ready changed"}, true},
		{"space padded day",
			"Jan  2 01:02:03.004 I clusteroperator/network changed",
			MonitorLine{At: time.Date(2020, 1, 2, 1, 2, 3, 4e6, time.UTC), Level: 'I', Text: "clusteroperator/network changed"}, true},
		{"run over New Year: December line of a January run is the year before",
			"Dec 31 23:59:59.999 I x",
			MonitorLine{At: time.Date(2019, 12, 31, 23, 59, 59, 999e6, time.UTC), Level: 'I', Text: "x"}, true},
		{"level only", "Jan 12 20:58:46.230 E", MonitorLine{At: time.Date(2020, 1, 12, 20, 58, 46, 230e6, time.UTC), Level: 'E'}, true},
		{"no level", "Jan 12 20:58:46.230 hostname kubelet[1]: x", MonitorLine{}, false},
		{"lower case level", "Jan 12 20:58:46.230 w ns/x", MonitorLine{}, false},
		{"bad month", "Jun 31 20:58:46.230 W x", MonitorLine{}, false},
		{"bad hour", "Jan 12 24:58:46.230 W x", MonitorLine{}, false},
		{"no fraction digits", "Jan 12 20:58:46. W x", MonitorLine{}, false},
		{"bad interval", "Jan 12 20:58:46.230 - 12x E x", MonitorLine{}, false},
		{"klog is not a monitor line", "W0902 08:18:41.941578       1 clientconn.go:1120] x", MonitorLine{}, false},
		{"empty", "", MonitorLine{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseMonitorLine([]byte(tt.line), start)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestYearOfRunOverNewYear(t *testing.T) {
	start := time.Date(2025, 12, 31, 22, 0, 0, 0, time.UTC)
	got, ok := LineTime([]byte("Jan 01 00:10:00.000 I x"), start)
	if want := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC); !ok || !got.Equal(want) {
		t.Errorf("got %v, %v; want %v", got, ok, want)
	}
	got, ok = ParseKlogTime([]byte("I0101 00:10:00.000000 1 x.go:1] y"), start)
	if want := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC); !ok || !got.Equal(want) {
		t.Errorf("klog: got %v, %v; want %v", got, ok, want)
	}
}

func TestParseKlogTime(t *testing.T) {
	start := time.Date(2020, 9, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		line string
		want time.Time
		ok   bool
	}{
		{"W0902 08:18:41.941578       1 clientconn.go:1120] grpc: addrConn.createTransport failed", time.Date(2020, 9, 2, 8, 18, 41, 941578e3, time.UTC), true},
		{"I0902 08:18:41.943152       1 controlbuf.go:508] transport: loopyWriter.run returning", time.Date(2020, 9, 2, 8, 18, 41, 943152e3, time.UTC), true},
		{"F1231 23:59:59.000000 1 x.go:1] x", time.Date(2020, 12, 31, 23, 59, 59, 0, time.UTC), true},
		{"E1399 08:18:41.941578 1 x.go:1] bad month", time.Time{}, false},
		{"X0902 08:18:41.941578 1 x.go:1] bad severity", time.Time{}, false},
		{"W0902 08:18:41", time.Date(2020, 9, 2, 8, 18, 41, 0, time.UTC), true},
		{"W0902 08:18:41x", time.Time{}, false},
		{"W0230 08:18:41.941578 1 x.go:1] February 30", time.Time{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			got, ok := ParseKlogTime([]byte(tt.line), start)
			if ok != tt.ok || !got.Equal(tt.want) {
				t.Errorf("got %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestParseTimedLine(t *testing.T) {
	start := time.Date(2026, 11, 18, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		line string
		want MonitorLine
		ok   bool
	}{
		{"RFC 3339 millis", "2026-11-18T03:12:09.114Z ns/openshift-etcd pod/etcd-0 started",
			MonitorLine{At: time.Date(2026, 11, 18, 3, 12, 9, 114e6, time.UTC), Namespace: "openshift-etcd", Text: "ns/openshift-etcd pod/etcd-0 started"}, true},
		{"RFC 3339 micros", "2026-11-18T03:12:09.114506Z\tmsg",
			MonitorLine{At: time.Date(2026, 11, 18, 3, 12, 9, 114506e3, time.UTC), Text: "msg"}, true},
		{"RFC 3339 offset", "2026-11-18T04:12:09+01:00 msg",
			MonitorLine{At: time.Date(2026, 11, 18, 3, 12, 9, 0, time.UTC), Text: "msg"}, true},
		{"RFC 3339 alone", "2026-11-18T03:12:09Z",
			MonitorLine{At: time.Date(2026, 11, 18, 3, 12, 9, 0, time.UTC)}, true},
		{"klog", "E1118 03:12:09.114506       1 x.go:1] dial tcp 10.0.0.1:2379: connect: connection refused",
			MonitorLine{At: time.Date(2026, 11, 18, 3, 12, 9, 114506e3, time.UTC), Level: 'E', Text: "dial tcp 10.0.0.1:2379: connect: connection refused"}, true},
		{"journal", "Nov 18 03:12:09.114506 ip-10-0-1-2 kubenswrapper[1]: node/x ready",
			MonitorLine{At: time.Date(2026, 11, 18, 3, 12, 9, 114506e3, time.UTC), Node: "x", Text: "ip-10-0-1-2 kubenswrapper[1]: node/x ready"}, true},
		{"monitor", "Nov 18 03:12:09.114 I ns/a pod/b x",
			MonitorLine{At: time.Date(2026, 11, 18, 3, 12, 9, 114e6, time.UTC), Level: 'I', Namespace: "a", Text: "ns/a pod/b x"}, true},
		{"date only", "2026-11-18 03:12:09 msg", MonitorLine{}, false},
		{"ci-operator", "INFO[2026-11-18T03:12:09Z] Running step", MonitorLine{}, false},
		{"bad RFC 3339", "2026-13-18T03:12:09Z msg", MonitorLine{}, false},
		{"plain", "hello", MonitorLine{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ParseTimedLine([]byte(tt.line), start)
			if ok != tt.ok || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
			at, ok2 := LineTime([]byte(tt.line), start)
			if ok2 != tt.ok || !at.Equal(tt.want.At) {
				t.Errorf("LineTime = %v, %v; want %v, %v", at, ok2, tt.want.At, tt.ok)
			}
		})
	}
}

func FuzzParseTimedLine(f *testing.F) {
	for _, s := range []string{
		"Jan 12 20:58:46.230 W ns/openshift-sdn pod/sdn-7d6g9 node/n x",
		"Jan 12 21:02:10.118 - 12s   E disruption/kube-api connection/new",
		"W0902 08:18:41.941578       1 clientconn.go:1120] x",
		"2026-11-18T03:12:09.114506Z x",
		"Feb 29 00:00:00.0 I leap",
	} {
		f.Add([]byte(s), int64(1600000000))
	}
	f.Fuzz(func(t *testing.T, line []byte, unix int64) {
		start := time.Unix(unix%(1<<35), 0).UTC()
		m, ok := ParseTimedLine(line, start)
		m2, ok2 := ParseTimedLine(line, start)
		if ok != ok2 || !reflect.DeepEqual(m, m2) {
			t.Fatalf("two parses differ")
		}
		at, ok3 := LineTime(line, start)
		if ok3 != ok || !at.Equal(m.At) {
			t.Fatalf("LineTime %v %v, ParseTimedLine %v %v", at, ok3, m.At, ok)
		}
		if mm, ok := ParseMonitorLine(line, start); ok && !reflect.DeepEqual(mm, m) {
			t.Fatalf("ParseMonitorLine %+v, ParseTimedLine %+v", mm, m)
		}
		if ok && m.At.Location() != time.UTC {
			t.Fatalf("time not in UTC")
		}
	})
}
