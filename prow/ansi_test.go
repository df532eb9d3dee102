package prow

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestStripANSI(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "no escapes here", "no escapes here"},
		{"bold", "\x1b[1mYour Test Panicked\x1b[0m", "Your Test Panicked"},
		{"256 colours", "\x1b[38;5;243mgithub.com/openshift/origin/test/extended/prometheus/upgrade.go:41\x1b[0m", "github.com/openshift/origin/test/extended/prometheus/upgrade.go:41"},
		{"stacked", "\x1b[38;5;14m\x1b[4mhttp://onsi.github.io/ginkgo/\x1b[0m", "http://onsi.github.io/ginkgo/"},
		{"erase line", "progress\x1b[2K\rdone", "progress\rdone"},
		{"bare ESC", "a\x1bb", "ab"},
		{"ESC at the end", "a\x1b", "a"},
		{"ESC [ at the end", "a\x1b[", "a"},
		{"unfinished params at the end", "a\x1b[38;5", "a38;5"},
		{"ESC ESC [", "\x1b\x1b[31mred", "red"},
		{"sequence cut by a newline", "\x1b[31\nx", "31\nx"},
		{"sequence cut by non-ASCII", "\x1b[1é", "1é"},
		{"too many params", "\x1b[" + strings.Repeat("1", 40) + "m", strings.Repeat("1", 40) + "m"},
		{"multibyte text kept", "caf\u00e9 \x1b[32m✓\x1b[0m", "café ✓"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripANSI(tt.in); got != tt.want {
				t.Errorf("StripANSI(%q) = %q, want %q", tt.in, got, tt.want)
			}
			// The reader must agree whatever the read sizes.
			for _, r := range []io.Reader{
				NewANSIStripper(strings.NewReader(tt.in)),
				NewANSIStripper(iotest.OneByteReader(strings.NewReader(tt.in))),
				iotest.OneByteReader(NewANSIStripper(iotest.HalfReader(strings.NewReader(tt.in)))),
			} {
				got, err := io.ReadAll(r)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tt.want {
					t.Errorf("reader gave %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func TestANSIStripperLargeInput(t *testing.T) {
	// Sequences straddle the reader's chunk boundary somewhere in here.
	unit := "line \x1b[1;31mred\x1b[0m and \x1b[38;5;9mmore\x1b[0m\n"
	in := strings.Repeat(unit, 20000)
	want := strings.Repeat("line red and more\n", 20000)
	got, err := io.ReadAll(NewANSIStripper(strings.NewReader(in)))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("large input: got %d bytes, want %d", len(got), len(want))
	}
	if err := iotest.TestReader(NewANSIStripper(strings.NewReader(in)), []byte(want)); err != nil {
		t.Fatal(err)
	}
}

func TestANSIStripperError(t *testing.T) {
	r := NewANSIStripper(iotest.TimeoutReader(strings.NewReader(strings.Repeat("x", 100<<10))))
	_, err := io.ReadAll(r)
	if err != iotest.ErrTimeout {
		t.Fatalf("err = %v, want the source's error", err)
	}
}

func FuzzStripANSI(f *testing.F) {
	f.Add("\x1b[1mbold\x1b[0m")
	f.Add("\x1b[38;5;9m\x1b")
	f.Fuzz(func(t *testing.T, s string) {
		got := StripANSI(s)
		if strings.IndexByte(got, esc) >= 0 {
			t.Fatalf("ESC left in %q", got)
		}
		if len(got) > len(s) {
			t.Fatalf("output longer than input")
		}
		r, err := io.ReadAll(NewANSIStripper(iotest.OneByteReader(bytes.NewReader([]byte(s)))))
		if err != nil || string(r) != got {
			t.Fatalf("reader gave %q (%v), StripANSI %q", r, err, got)
		}
	})
}

// TestResidueStripper: what is left of a sequence whose ESC became U+FFFD
// goes, whatever the read sizes; U+FFFD that starts no sequence stays.
func TestResidueStripper(t *testing.T) {
	const r = "\uFFFD"
	tests := []struct{ name, in, want string }{
		{"bold", r + "[1mYour Test Panicked" + r + "[0m", "Your Test Panicked"},
		{"256 colours", r + "[38;5;243mupgrade.go:41" + r + "[0m", "upgrade.go:41"},
		{"erase line", "a" + r + "[2Kb", "ab"},
		{"real ESC too", "\x1b[31mred" + r + "[0m", "red"},
		{"replacement alone", "caf" + r + " au lait", "caf" + r + " au lait"},
		{"replacement then text", r + "[not a colour]", r + "[not a colour]"},
		{"letter needs a number", r + "[Kube", r + "[Kube"},
		{"unfinished at the end", "x" + r + "[38;5", "x" + r + "[38;5"},
		{"cut U+FFFD at the end", "x\xef\xbf", "x\xef\xbf"},
		{"other three-byte runes", "✓ 日本 " + r + r + "[1m!", "✓ 日本 " + r + "!"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, rd := range []io.Reader{
				newResidueStripper(strings.NewReader(tt.in)),
				newResidueStripper(iotest.OneByteReader(strings.NewReader(tt.in))),
				iotest.OneByteReader(newResidueStripper(iotest.HalfReader(strings.NewReader(tt.in)))),
			} {
				got, err := io.ReadAll(rd)
				if err != nil {
					t.Fatal(err)
				}
				if string(got) != tt.want {
					t.Errorf("got %q, want %q", got, tt.want)
				}
			}
		})
	}
}
