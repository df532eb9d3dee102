package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestReliabilityFlags: the retry and timeout flags are validated like the
// others: a bad value exits 2 with one sentence.
func TestReliabilityFlags(t *testing.T) {
	db := filepath.Join(t.TempDir(), "x.db")
	tests := []struct {
		args []string
		want string
	}{
		{args: []string{"--retries", "-1"}, want: "--retries -1: want 0 to 100"},
		{args: []string{"--retries", "101"}, want: "--retries 101: want 0 to 100"},
		{args: []string{"--request-timeout", "0s"}, want: "--request-timeout 0s: want a positive duration"},
		{args: []string{"--wait=maybe"}, want: "--wait"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), append([]string{"crawl", "--bucket", sampleBucket, "--db", db}, tc.args...), &stdout, &stderr)
			if code := exitCode(err, &stderr); code != 2 {
				t.Fatalf("exit %d (err %v), want 2", code, err)
			}
			if got := strings.TrimSpace(stderr.String()); !strings.HasPrefix(got, "prowcrawl: ") || !strings.Contains(got, tc.want) || strings.Count(got, "\n") > 0 {
				t.Errorf("stderr %q, want one sentence containing %q", got, tc.want)
			}
		})
	}
	var stderr bytes.Buffer
	_ = run(t.Context(), []string{"crawl", "--help"}, &bytes.Buffer{}, &stderr)
	for _, flag := range []string{"--retries int", "--request-timeout duration", "--wait"} {
		if !strings.Contains(stderr.String(), flag) {
			t.Errorf("crawl --help does not list %s", flag)
		}
	}
}
