package prow

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"testing"
	"time"
)

func TestParseBuildID(t *testing.T) {
	tests := []struct {
		in     string
		want   int64
		wantOK bool
	}{
		{"14098", 14098, true},
		{"1584987912955498496", 1584987912955498496, true},
		{"00123", 123, true},
		{"0", 0, true},
		{"9223372036854775807", math.MaxInt64, true},
		{"9223372036854775808", 0, false},
		{"9999999999999999999", 0, false},
		{"12345678901234567890", 0, false}, // 20 digits
		{"", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"12a", 0, false},
		{" 12", 0, false},
		{"1_000", 0, false},
		{"١٢٣", 0, false}, // Arabic-Indic digits
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, ok := ParseBuildID(tt.in)
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ParseBuildID(%q) = %d, %v, want %d, %v", tt.in, got, ok, tt.want, tt.wantOK)
			}
		})
	}
}

// TestBuildIDsSortNumerically documents why ids are parsed before sorting:
// bucket listings come back in string order.
func TestBuildIDsSortNumerically(t *testing.T) {
	listed := []string{"100", "14098", "1584987912955498496", "99"} // GCS order
	if !sort.StringsAreSorted(listed) {
		t.Fatal("listing is not in string order")
	}
	var ids []int64
	for _, s := range listed {
		id, ok := ParseBuildID(s)
		if !ok {
			t.Fatal(s)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	if want := []int64{99, 100, 14098, 1584987912955498496}; !slices.Equal(ids, want) {
		t.Errorf("got %v, want %v", ids, want)
	}
}

func TestBuildTime(t *testing.T) {
	// A real run id from October 2022. By hand: id >> 22 = 377890566100 ms
	// after the snowflake epoch 1288834974657 ms, so 1666725540757 ms after
	// the Unix epoch: 19290 days (2022-10-25) and 69540.757 s (19:19:00.757).
	got, ok := BuildTime(1584987912955498496)
	want := time.Date(2022, 10, 25, 19, 19, 0, 757e6, time.UTC)
	if !ok || !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("BuildTime = %v, %v, want %v", got, ok, want)
	}
	for _, id := range []int64{0, 1, 14098, 999999999999999999} {
		if tm, ok := BuildTime(id); ok || !tm.IsZero() {
			t.Errorf("BuildTime(%d) = %v, %v; want no time for a sequential id", id, tm, ok)
		}
	}
	// The fixture run started at 04:03:11 and its id was issued then.
	if tm, _ := BuildTime(1697460066833141760); !tm.Equal(time.Date(2023, 9, 1, 4, 3, 11, 873e6, time.UTC)) {
		t.Errorf("fixture id time %v", tm)
	}
}

func TestMinBuildIDAt(t *testing.T) {
	at := time.Date(2022, 10, 25, 19, 19, 0, 757e6, time.UTC)
	min := MinBuildIDAt(at)
	if min > 1584987912955498496 || 1584987912955498496-min >= 1<<snowflakeShift {
		t.Errorf("MinBuildIDAt(%v) = %d, not the floor of the real id", at, min)
	}
	if tm, ok := BuildTime(min); !ok || !tm.Equal(at) {
		t.Errorf("round trip gave %v, %v", tm, ok)
	}
	if got := MinBuildIDAt(at.Add(time.Millisecond)); got <= 1584987912955498496 {
		t.Errorf("a millisecond later gives %d, not above the real id", got)
	}
	if got := MinBuildIDAt(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)); got != 0 {
		t.Errorf("before the epoch: %d", got)
	}
	if got := MinBuildIDAt(time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)); got != math.MaxInt64 {
		t.Errorf("after int64 runs out: %d", got)
	}
}

func TestBuildTimeRoundTrip(t *testing.T) {
	for _, s := range []string{"2018-05-25T13:05:53.759Z", "2019-08-19T16:20:40Z", "2022-10-25T19:19:00.757Z", "2026-11-01T00:00:00.001Z", "2079-01-01T00:00:00Z"} {
		t.Run(s, func(t *testing.T) {
			at, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				t.Fatal(err)
			}
			id := MinBuildIDAt(at)
			if len(strconv.FormatInt(id, 10)) != 19 {
				t.Fatalf("id %d is not 19 digits", id)
			}
			got, ok := BuildTime(id)
			if !ok || !got.Equal(at) {
				t.Errorf("BuildTime(MinBuildIDAt(%v)) = %v, %v", at, got, ok)
			}
			// Every id issued in the same millisecond maps back to it.
			if got, _ := BuildTime(id + 1<<snowflakeShift - 1); !got.Equal(at) {
				t.Errorf("last id of the millisecond gives %v", got)
			}
		})
	}
}
