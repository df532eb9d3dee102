package classify

import (
	"regexp"
	"testing"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		glob    string
		match   []string
		noMatch []string
	}{
		{"build-log.txt", []string{"build-log.txt"}, []string{"a/build-log.txt", "build-log.txt.gz", "build-logXtxt"}},
		{"artifacts/*/openshift-e2e-test/build-log.txt", []string{"artifacts/e2e-aws/openshift-e2e-test/build-log.txt"},
			[]string{"artifacts/a/b/openshift-e2e-test/build-log.txt", "artifacts/openshift-e2e-test/build-log.txt"}},
		{"artifacts/**/build-log.txt", []string{"artifacts/build-log.txt", "artifacts/a/build-log.txt", "artifacts/a/b/c/build-log.txt"},
			[]string{"build-log.txt", "artifacts/a/xbuild-log.txt"}},
		{"artifacts/**", []string{"artifacts/a", "artifacts/a/b"}, []string{"artifact"}},
		{"artifacts/**/gather-extra/artifacts/pods/*{apiserver,etcd}*.log",
			[]string{"artifacts/e2e/gather-extra/artifacts/pods/openshift-etcd_etcd-ip-10.log", "artifacts/e2e/gather-extra/artifacts/pods/x-apiserver-y.log"},
			[]string{"artifacts/e2e/gather-extra/artifacts/pods/openshift-dns.log", "artifacts/e2e/gather-extra/artifacts/pods/etcd/x.log"}},
		{"a/{b,c/{d,e}}/f", []string{"a/b/f", "a/c/d/f", "a/c/e/f"}, []string{"a/c/f", "a/{b,c}/f"}},
		{"x,y", []string{"x,y"}, []string{"x", "y"}},
		{"?.log", []string{"a.log"}, []string{"ab.log", "/.log"}},
		{"[ab-d].log", []string{"a.log", "c.log"}, []string{"e.log", "-.log"}},
		{"[!a].log", []string{"b.log"}, []string{"a.log", "/.log"}},
		{"[-a].log", []string{"-.log", "a.log"}, []string{"b.log"}},
		{`\*.log`, []string{"*.log"}, []string{"a.log"}},
		{"a.b+(c)", []string{"a.b+(c)"}, []string{"aXb+(c)"}},
	}
	for _, tt := range tests {
		t.Run(tt.glob, func(t *testing.T) {
			g, err := globRegexp(tt.glob)
			if err != nil {
				t.Fatal(err)
			}
			re := regexp.MustCompile("^(?:" + g + ")$")
			for _, s := range tt.match {
				if !re.MatchString(s) {
					t.Errorf("%q does not match %q (%s)", tt.glob, s, g)
				}
			}
			for _, s := range tt.noMatch {
				if re.MatchString(s) {
					t.Errorf("%q matches %q (%s)", tt.glob, s, g)
				}
			}
		})
	}
	for _, bad := range []string{"", "/abs", "a{b", "a}b", "[ab", `a\`, "[z-a]", "\xff"} {
		if g, err := globRegexp(bad); err == nil {
			t.Errorf("%q: no error (%s)", bad, g)
		}
	}
}
