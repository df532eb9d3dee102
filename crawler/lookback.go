package crawler

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/prow"
)

const (
	// minProbe is the number of listed builds below which a job's runs are
	// all read rather than searched: a search costs a few reads itself.
	minProbe = 32
	// seqMargin is how many builds below the first one found to start in
	// the window are read all the same, in case runs did not start quite
	// in the order of their ids; each is checked against the window once
	// its started.json is read.
	seqMargin = 3
)

// sequentialFloor returns the lowest build id of a job worth reading for
// runs started at or after since, for a job whose ids are sequential
// numbers (14098) that, unlike snowflake ids, encode no time. Runs of one
// job start in the order of their ids, so a binary search that reads the
// started.json of about log2(len(ids)) runs finds the first in the window;
// without it, the first crawl of an old job would read its whole history.
// ids are ascending; 0 means every id (too few to search). Each run read is
// still checked against the window once its started.json is read. stored
// are the start times the database holds of the job's runs: a run stored
// is never read again to learn when it started.
func (c *Crawler) sequentialFloor(ctx context.Context, prefix string, ids []int64, since time.Time, stored map[int64]time.Time) int64 {
	if since.IsZero() || len(ids) < minProbe {
		return 0
	}
	// The first index whose run started at or after since. A start that
	// cannot be read counts as inside: the search then only goes lower,
	// and reads more, never fewer, runs than it should.
	i, _ := slices.BinarySearchFunc(ids, since, func(id int64, since time.Time) int {
		started, ok := stored[id]
		if !ok || started.IsZero() {
			started, ok = c.startOf(ctx, prefix+strconv.FormatInt(id, 10)+"/started.json")
		}
		if ok && started.Before(since) {
			return -1
		}
		return 1
	})
	return ids[max(i-seqMargin, 0)]
}

// startOf reads a run's start time from its started.json.
func (c *Crawler) startOf(ctx context.Context, name string) (time.Time, bool) {
	b, err := c.rd.readAll(ctx, prowcrawl.Entry{Name: name, Size: -1}, 64<<10, nil)
	if err != nil {
		return time.Time{}, false
	}
	st, err := prow.ParseStarted(b)
	if err != nil || st.Timestamp <= 0 {
		return time.Time{}, false
	}
	return time.Unix(st.Timestamp, 0), true
}

// sequentialIDs returns the ascending build ids of a job's listing that are
// not snowflake ids.
func sequentialIDs(ents []prowcrawl.Entry, prefix string) []int64 {
	var ids []int64
	for _, e := range ents {
		if !e.Prefix {
			continue
		}
		id, ok := prow.ParseBuildID(strings.TrimSuffix(strings.TrimPrefix(e.Name, prefix), "/"))
		if _, dated := prow.BuildTime(id); ok && !dated {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}
