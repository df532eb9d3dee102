package safe

import (
	"strings"
	"testing"
)

// hostile are texts a bucket can hold: terminal escapes (OSC 52 writes the
// clipboard, OSC 0 the title, CSI 2J clears the screen), a newline that
// forges a row, a carriage return that overwrites one, a bidirectional
// override, invalid UTF-8, C1 controls.
var hostile = []string{
	"log line \x1b]52;c;ZWNobyBwd25lZA==\x07 end",
	"\x1b]0;owned\x07title",
	"\x1b[2J\x1b[Hcleared",
	"job\n| forged | row |",
	"ok\rFAIL",
	"evil\u202etxt.exe",
	"bad \xff\xfe utf-8",
	"c1 \u009b31m",
	"nul\x00byte",
}

func TestLine(t *testing.T) {
	for _, s := range []string{"", "periodic-ci-openshift-release-master-ci-4.14-e2e-aws-ovn-upgrade", "dial tcp 10.128.2.5:8443: i/o timeout", "naïve — ok ✓"} {
		if got := Line(s); got != s {
			t.Errorf("Line(%q) = %q, want it unchanged", s, got)
		}
	}
	for _, s := range hostile {
		got := Line(s)
		for _, r := range got {
			if unsafeRune(r) || r == '\uFFFD' {
				t.Errorf("Line(%q) = %q holds %U", s, got, r)
			}
		}
		if !strings.Contains(got, `\`) {
			t.Errorf("Line(%q) = %q: the control character is not shown", s, got)
		}
	}
	if got, want := Line("a\x1b[31mb\nc\xff"), `a\x1b[31mb\nc\xff`; got != want {
		t.Errorf("Line = %q, want %q", got, want)
	}
}

func TestMarkdown(t *testing.T) {
	for s, want := range map[string]string{
		"job|x":                    `job\|x`,
		"a](https://evil.example)": `a\](https://evil.example)`,
		"[sig-network] pods":       `\[sig-network\] pods`,
		"<script>":                 `\<script\>`,
		"4.13->4.14 minor":         `4.13-\>4.14 minor`,
		"line\nbreak":              `line\\nbreak`,
	} {
		if got := Markdown(s); got != want {
			t.Errorf("Markdown(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestURL(t *testing.T) {
	for s, want := range map[string]string{
		"https://prow.ci.openshift.org/view/gs/b/logs/job/1": "https://prow.ci.openshift.org/view/gs/b/logs/job/1",
		"https://x/logs/job)[evil](https://evil.example/1":   "https://x/logs/job%29%5Bevil%5D%28https://evil.example/1",
		"https://x/a b\n<c>": "https://x/a%20b%0A%3Cc%3E",
	} {
		if got := URL(s); got != want {
			t.Errorf("URL(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestCSV(t *testing.T) {
	for s, want := range map[string]string{
		"=HYPERLINK(\"http://evil\")": "'=HYPERLINK(\"http://evil\")",
		"+1+1":                        "'+1+1",
		"-2+3":                        "'-2+3",
		"@SUM(A1)":                    "'@SUM(A1)",
		"\tx":                         `\tx`,
		"periodic-ci-x":               "periodic-ci-x",
	} {
		if got := CSV(s); got != want {
			t.Errorf("CSV(%q) = %q, want %q", s, got, want)
		}
	}
}

func TestFileName(t *testing.T) {
	for s, want := range map[string]string{
		"pod-network-cross-node": "pod-network-cross-node",
		"../../etc/passwd":       "_._.._etc_passwd",
		"..":                     "_.",
		"4.14.0\nx":              "4.14.0_x",
		"":                       "_",
	} {
		if got := FileName(s); got != want {
			t.Errorf("FileName(%q) = %q, want %q", s, got, want)
		}
	}
}

func FuzzLine(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Line(s)
		for _, r := range got {
			if unsafeRune(r) {
				t.Fatalf("Line(%q) = %q holds %U", s, got, r)
			}
		}
		md := Markdown(s)
		for i := 0; i < len(md); i++ {
			switch md[i] {
			case '\\':
				i++ // the escaped character
			case '|', '[', ']', '<', '>', '\n', '\r':
				t.Fatalf("Markdown(%q) = %q: unescaped %q at %d", s, md, md[i], i)
			}
		}
	})
}
