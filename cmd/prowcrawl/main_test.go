package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParseTime(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in      string
		want    time.Time
		wantErr bool
	}{
		{in: "", want: time.Time{}},
		{in: "2026-11-01", want: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)},
		{in: "2026-11-01T10:00:00+02:00", want: time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)},
		{in: "72h", want: now.Add(-72 * time.Hour)},
		{in: "14d", want: now.Add(-14 * 24 * time.Hour)},
		{in: "1d12h", want: now.Add(-36 * time.Hour)},
		{in: "yesterday", wantErr: true},
		{in: "-3d", wantErr: true},
		{in: "2026-13-01", wantErr: true},
		{in: "0h", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := parseTime(tc.in, now)
			if (err != nil) != tc.wantErr {
				t.Fatalf("parseTime(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			}
			if !got.Equal(tc.want) {
				t.Errorf("parseTime(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
}

// TestUsageErrors: mistakes on the command line exit 2 with one sentence.
func TestUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{args: nil, want: "no command given"},
		{args: []string{"crawll"}, want: `unknown command "crawll"`},
		{args: []string{"crawl", "--since", "someday"}, want: "--since"},
		{args: []string{"crawl", "--job", "("}, want: "not a valid regular expression"},
		{args: []string{"crawl", "--concurrency", "0"}, want: "--concurrency 0"},
		{args: []string{"crawl", "--since", "2026-11-02", "--until", "2026-11-01"}, want: "is not before"},
		{args: []string{"crawl", "--bucket", "s3://x"}, want: "unsupported scheme"},
		{args: []string{"crawl", "--no-such-flag"}, want: "unknown flag"},
		{args: []string{"crawl", "extra"}, want: "takes no arguments"},
		{args: []string{"backfill"}, want: "backfill needs --since"},
		{args: []string{"crawl", "--log-format", "xml"}, want: "--log-format"},
		{args: []string{"status", "--db", "/nonexistent/x.db"}, want: "no database at"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tc.args, &stdout, &stderr)
			code := exitCode(err, &stderr)
			if code != 2 {
				t.Fatalf("exit %d, want 2 (err %v)", code, err)
			}
			last := strings.TrimSpace(stderr.String())
			if i := strings.LastIndex(last, "\n"); i >= 0 {
				last = last[i+1:]
			}
			if !strings.HasPrefix(last, "prowcrawl: ") || !strings.Contains(last, tc.want) {
				t.Errorf("last stderr line %q, want one sentence containing %q", last, tc.want)
			}
		})
	}
}

func TestVersionAndHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"version"}, &stdout, &stderr); err != nil || !strings.HasPrefix(stdout.String(), "prowcrawl ") {
		t.Errorf("version: %q, %v", stdout.String(), err)
	}
	err := run(t.Context(), []string{"crawl", "--help"}, &stdout, &stderr)
	if !errors.Is(err, errHelp) || exitCode(err, &stderr) != 0 || !strings.Contains(stderr.String(), "--since") {
		t.Errorf("crawl --help: err %v, output %q", err, stderr.String())
	}
}

func TestShardFlags(t *testing.T) {
	tests := []struct {
		shard   string
		shards  int
		env     string
		i, n    int
		wantErr string
	}{
		{i: 0, n: 1},
		{shard: "2/4", i: 2, n: 4},
		{shard: "4/4", wantErr: "want i/N"},
		{shard: "1/0", wantErr: "want i/N"},
		{shard: "x", wantErr: "want i/N"},
		{shards: 8, env: "3", i: 3, n: 8},
		{shards: 8, env: "8", wantErr: "want 0 to 7"},
		{shards: 8, wantErr: "needs JOB_COMPLETION_INDEX"},
		{shard: "0/2", shards: 2, env: "1", wantErr: "not both"},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%d/%s", tc.shard, tc.shards, tc.env), func(t *testing.T) {
			if tc.env != "" {
				t.Setenv("JOB_COMPLETION_INDEX", tc.env)
			}
			i, n, err := crawlOptions{Shard: tc.shard, Shards: tc.shards}.shard()
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || i != tc.i || n != tc.n {
				t.Errorf("shard() = %d/%d, %v; want %d/%d", i, n, err, tc.i, tc.n)
			}
		})
	}
}
