package classify

import (
	"math/rand/v2"
	"net/netip"
	"regexp"
	"strings"
	"testing"
)

// TestGroupFinder holds the finder to the regexp package: wherever it
// decides a line, it says what running the expression's every match and
// checking its ip group says, on random lines made of the expressions'
// own pieces; and it decides most of them.
func TestGroupFinder(t *testing.T) {
	cidr := []netip.Prefix{netip.MustParsePrefix("10.128.0.0/14")}
	shaped := []string{
		`dial tcp (?P<ip>[0-9.]+):[0-9]+: (?:i/o timeout|connect: no route to host|connect: connection timed out)`,
		`https?://(?P<ip>[0-9.]+)[:/][^\s"]*"?: net/http: request canceled while waiting for connection`,
		`https?://(?P<ip>[0-9.]+)[:/][^\s"]*"?: (?:net/http: request canceled|context deadline exceeded) \(Client\.Timeout exceeded`,
		`(?:to|from) (?P<ip>[0-9.]+)(?:x|y*z)`,
	}
	others := []string{
		`(?:read|write) tcp [0-9.]+:[0-9]+->(?P<ip>[0-9.]+):[0-9]+: i/o timeout`, // no strings before the group
		`dial (?P<ip>[0-9.]+)[0-9:]+`,                                            // the rest may start inside the group
		`dial (?P<ip>[0-9.]+)\b:`,                                                // an assertion
		`(?i)dial (?P<ip>[0-9.]+):`,                                              // folded strings
		`dial (?P<ip>[0-9.]+?):`,                                                 // not greedy
		`(?:a|ab)(?P<ip>[0-9.]+):`,                                               // one string a prefix of another
		`x(?P<ip>[0-9.]+)`,                                                       // nothing after the group
	}
	for _, p := range others {
		re := regexp.MustCompile(p)
		if g := newGroupFinder(p, re.SubexpIndex("ip")); g != nil {
			t.Errorf("%s: a finder, want none", p)
		}
	}
	pieces := []string{"dial tcp ", "https://", "http://", "htt", "to ", "from ", "10.128.4.7", "10.131.0.1", "10.0.1.2", "172.30.0.1", "10.128.",
		"1", ".", ":", "/", "8443", "/healthz", `"`, ": ", " ", "x", "yyz", "i/o timeout", "connect: no route to host",
		"net/http: request canceled", " while waiting for connection", "context deadline exceeded", " (Client.Timeout exceeded", "é", "\xff"}
	heads := []string{"dial tcp ", "https://", "http://", "to ", "from "}
	ips := []string{"10.128.4.7", "10.131.0.1", "10.0.1.2", "172.30.0.1", "10.128.", "10.128.0.01", "10.129.2.3.4", "api.example.com"}
	seps := []string{":8443", ":1936/healthz/ready\"", "/", ":", "x", "yyz", ":8443 "}
	tails := []string{": i/o timeout", ": connect: no route to host", ": connect: connection timed out", "\": net/http: request canceled while waiting for connection",
		": net/http: request canceled (Client.Timeout exceeded", "\": context deadline exceeded (Client.Timeout exceeded while awaiting headers)", "x", "z"}
	rng := rand.New(rand.NewPCG(5, 6))
	for _, p := range shaped {
		re := regexp.MustCompile(p)
		ip := re.SubexpIndex("ip")
		g := newGroupFinder(p, ip)
		if g == nil {
			t.Fatalf("%s: no finder", p)
		}
		pr := &probe{re: re, ipGroup: ip}
		e := &Engine{}
		g.rest.id = 0
		s := &Scan{e: e}
		decided, matched := 0, 0
		for range 3000 {
			var b strings.Builder
			for range 1 + rng.IntN(3) {
				for range rng.IntN(4) {
					b.WriteString(pieces[rng.IntN(len(pieces))])
				}
				if rng.IntN(4) > 0 {
					// Most often something like a match, perhaps broken.
					for _, set := range [][]string{heads, ips, seps, tails} {
						if rng.IntN(12) > 0 {
							b.WriteString(set[rng.IntN(len(set))])
						}
					}
				}
			}
			line := []byte(b.String())
			want := inCIDR(pr, line, cidr)
			found, ok := g.first(s, line, cidr)
			if !ok {
				continue
			}
			decided++
			if found != want {
				t.Fatalf("%s on %q: finder %v, regexp %v", p, line, found, want)
			}
			if found {
				matched++
			}
		}
		if decided < 2000 || matched == 0 {
			t.Errorf("%s: decided %d of 3000 lines, %d with an address inside", p, decided, matched)
		}
	}
}

// TestGroupFinderBuiltin checks that the built-in address checks of the
// shape have their finder.
func TestGroupFinderBuiltin(t *testing.T) {
	e, err := NewEngine(Builtin())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range e.matchers {
		for _, pr := range m.probes {
			if pr.group != nil {
				n++
			}
		}
	}
	if n < 3 {
		t.Errorf("%d built-in probes with a group finder, want 3", n)
	}
}
