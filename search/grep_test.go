package search

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func grepAll(t *testing.T, in, pattern string) []string {
	t.Helper()
	re, err := Compile(pattern)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if err := grep(strings.NewReader(in), re, func(n int, text []byte, at int) bool {
		out = append(out, fmt.Sprintf("%d:%s", n, excerpt(text, 0, 40)))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGrep(t *testing.T) {
	log := "I1120 08:00:01 ok\r\n" +
		"E1120 08:00:02 dial tcp 10.0.0.1:2379: connect: connection refused\n" +
		"\n" +
		"W1120 08:00:03 connection\n" +
		"refused on a new line\n" +
		"E1120 08:00:04 connection refused again\n" +
		"last line without an end: connection refused"
	tests := []struct {
		pattern string
		want    string
	}{
		{"connection refused", "2:E1120 08:00:02 dial tcp 10.0.0.1:2379: c...|6:E1120 08:00:04 connection refused again|7:last line without an end: connection ref..."},
		// No match across a line end, even where the expression allows it.
		{`connection\srefused`, "2:E1120 08:00:02 dial tcp 10.0.0.1:2379: c...|6:E1120 08:00:04 connection refused again|7:last line without an end: connection ref..."},
		{`^$`, "3:"},
		{`^refused`, "5:refused on a new line"},
		{`ok$`, ""}, // the line ends in \r
		{`ok\r$`, "1:I1120 08:00:01 ok"},
		{`2379`, "2:E1120 08:00:02 dial tcp 10.0.0.1:2379: c..."},
		{`nothing`, ""},
	}
	for _, tc := range tests {
		if got := strings.Join(grepAll(t, log, tc.pattern), "|"); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.pattern, got, tc.want)
		}
	}
}

// TestGrepBlocks spans many blocks and a line longer than maxLine: line
// numbers stay right, and the long line is matched on its first part.
func TestGrepBlocks(t *testing.T) {
	var b bytes.Buffer
	var want []string
	for i := 1; i <= 60000; i++ {
		switch {
		case i == 30000:
			b.WriteString("needle at the start of a long line " + strings.Repeat("x", 3*maxLine) + " needle-late\n")
			want = append(want, fmt.Sprintf("%d:needle at the start of a long line xxxxx...", i))
		case i%7919 == 0:
			fmt.Fprintf(&b, "needle %d\n", i)
			want = append(want, fmt.Sprintf("%d:needle %d", i, i))
		default:
			fmt.Fprintf(&b, "Nov 20 08:00:%02d.000 I ns/openshift-etcd pod/etcd-%d readiness probe ok\n", i%60, i)
		}
	}
	got := grepAll(t, b.String(), "needle")
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if got := grepAll(t, b.String(), "needle-late"); len(got) != 0 {
		t.Errorf("matched past a long line's first %d bytes: %q", maxLine, got)
	}
}

func TestExcerpt(t *testing.T) {
	if got := excerpt([]byte("héllo\r"), 0, 2); got != "h..." {
		t.Errorf("cut inside a character: %q", got)
	}
	if got := excerpt([]byte("a\xffb"), 0, 10); got != "a\uFFFDb" {
		t.Errorf("invalid UTF-8 kept: %q", got)
	}
	long := strings.Repeat("x", 1000) + " needle " + strings.Repeat("y", 1000)
	if got := excerpt([]byte(long), 1001, 100); !strings.Contains(got, "needle") || len(got) > 106 || !strings.HasPrefix(got, "...") || !strings.HasSuffix(got, "...") {
		t.Errorf("excerpt of a long line %q", got)
	}
}
