package testutil

import (
	"os"
	"strconv"
	"testing"
)

// EnvInt is the count in environment variable name, or def when it is
// unset; a value that is not a count (a negative number included) fails
// the test.
func EnvInt(tb testing.TB, name string, def int) int {
	tb.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		tb.Fatalf("%s=%q is not a count", name, s)
	}
	return n
}
