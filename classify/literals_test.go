package classify

import (
	"reflect"
	"slices"
	"testing"
)

func TestRequiredLiterals(t *testing.T) {
	tests := []struct {
		re   string
		want [][]string
	}{
		{`dial tcp [0-9.]+:2379: connect: connection refused`, [][]string{{":2379: connect: connection refused"}, {"dial tcp "}}},
		{`a|b`, [][]string{{"a", "b"}}},
		{`x*`, nil},
		{`.*`, nil},
		{`(?i)Transport Is Closing`, [][]string{{ // each s also stands for the long s
			"tran\u017fport i\u017f clo\u017fing", "tran\u017fport i\u017f closing", "tran\u017fport is clo\u017fing", "tran\u017fport is closing",
			"transport i\u017f clo\u017fing", "transport i\u017f closing", "transport is clo\u017fing", "transport is closing"}}},
		{`(?i)sssssssss`, nil},
		{`(?i)sssssssxyz`, [][]string{{"xyz"}}},
		{`(?i)network plugin`, [][]string{{"network plugin", "networ\u212a plugin"}}},
		{`(?i)kelvin`, [][]string{{"kelvin", "\u212aelvin"}}}, // k folds to the Kelvin sign
		{`(?i)été`, [][]string{{"ét\u00e9", "ét\u00c9", "Ét\u00e9", "Ét\u00c9"}}},
		{`(?i)[k]x`, [][]string{{"kx", "\u212ax"}}},
		{`ns/openshift-(sdn|ovn-kubernetes) `, [][]string{{"ns/openshift-ovn-kubernetes ", "ns/openshift-sdn "}}},
		{`\bns/openshift-(?:sdn|ovn)\b.*\b(?:Killing|Pulling)\b`, [][]string{{"ns/openshift-ovn", "ns/openshift-sdn"}, {"killing", "pulling"}}},
		{`NetworkPluginNotReady\b.*\bMissing CNI default network`, [][]string{{"missing cni default network"}, {"networkpluginnotready"}}},
		{`https?://x`, [][]string{{"http://x", "https://x"}}},
		{`(?:foo|.*bar)`, [][]string{{"bar", "foo"}}},
		{`(?:foo|x*)`, nil},
		{`(ab)+c`, [][]string{{"ab"}}},
		{`a{0,3}`, nil},
		{`(?:a{2,3})b`, [][]string{{"aaab", "aab"}}},
		{`[0-9]+`, [][]string{{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}}},
		{`[0-9a-z]+`, nil},
		{`Readiness probe failed|\breason/ReadinessFailed\b`, [][]string{{"readiness probe failed", "reason/readinessfailed"}}},
		{"a\uFFFDbcd", [][]string{{"bcd"}}}, // U+FFFD also matches an invalid byte
		{"[a-c]x", [][]string{{"ax", "bx", "cx"}}},
		{`^$`, nil},
		{`(`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.re, func(t *testing.T) {
			got := requiredLiterals(tt.re)
			for _, set := range tt.want {
				slices.Sort(set)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
