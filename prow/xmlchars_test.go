package prow

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestXMLCharReader(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "<a>text</a>", "<a>text</a>"},
		{"tab newline return kept", "a\tb\nc\rd", "a\tb\nc\rd"},
		{"NUL and bell dropped", "a\x00b\x07c", "abc"},
		{"ESC kept for the ANSI stripper", "\x1b[1m", "\x1b[1m"},
		{"invalid UTF-8", "caf\xe9!", "caf\uFFFD!"},
		{"truncated rune at the end", "ok\xe2\x9c", "ok\uFFFD\uFFFD"},
		{"noncharacter", "x\uFFFEy", "x\uFFFDy"},
		{"multibyte kept", "café ✓ 𝔘", "café ✓ 𝔘"},
		{"reference to NUL dropped", "a&#0;b&#x0;c", "abc"},
		{"reference to ESC becomes ESC", "&#27;[1m&#x1B;[0m", "\x1b[1m\x1b[0m"},
		{"valid references kept", "&#65;&#x263a;&#x10FFFF;", "&#65;&#x263a;&#x10FFFF;"},
		{"reference out of range dropped", "a&#x110000;b&#99999999999;c", "abc"},
		{"not references", "&amp; &# &#; &#x; &#12 &#a;", "&amp; &# &#; &#x; &#12 &#a;"},
		{"leading zeros", "&#0000000027;[1mx", "\x1b[1mx"},
		{"ampersand at the end", "a&", "a&"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, r := range []io.Reader{
				newXMLCharReader(strings.NewReader(tt.in)),
				newXMLCharReader(iotest.OneByteReader(strings.NewReader(tt.in))),
			} {
				got, err := io.ReadAll(r)
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
