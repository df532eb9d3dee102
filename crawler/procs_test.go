package crawler

import (
	"runtime"
	"testing"
)

func TestRaiseProcs(t *testing.T) {
	t.Setenv("GOMAXPROCS", "")
	was := runtime.GOMAXPROCS(0)
	restore := RaiseProcs()
	if got := runtime.GOMAXPROCS(0); got != 2*was {
		restore()
		t.Fatalf("GOMAXPROCS %d during a crawl, want %d", got, 2*was)
	}
	// A second crawl meanwhile does not raise it again, and the first
	// to end leaves it raised for the other.
	second := RaiseProcs()
	if got := runtime.GOMAXPROCS(0); got != 2*was {
		second()
		restore()
		t.Fatalf("GOMAXPROCS %d with two crawls, want %d", got, 2*was)
	}
	restore()
	restore() // a second call changes nothing
	if got := runtime.GOMAXPROCS(0); got != 2*was {
		second()
		t.Fatalf("GOMAXPROCS %d while the second crawl runs, want %d", got, 2*was)
	}
	second()
	if got := runtime.GOMAXPROCS(0); got != was {
		t.Fatalf("GOMAXPROCS %d after the crawls, want %d again", got, was)
	}

	// A value the user set is theirs.
	t.Setenv("GOMAXPROCS", "1")
	restore = RaiseProcs()
	got := runtime.GOMAXPROCS(0)
	restore()
	if got != was {
		t.Fatalf("GOMAXPROCS %d with GOMAXPROCS set in the environment, want %d as it was", got, was)
	}
}
