package crawler

import (
	"os"
	"runtime"
	"sync"
)

// RaiseProcs gives the Go scheduler twice as many processors (Ps) as it
// chose for the machine, for a crawl, and returns what restores the
// setting. A GOMAXPROCS set in the environment is left alone.
//
// A crawl waits on the network more than it computes, but what it
// computes comes in stretches that do not block: a batch of runs stored
// in one transaction, a run's files parsed and matched. While every P
// runs such a stretch, the answers of the requests in flight wait for a
// P (the runtime looks for them between goroutines, and preempts one
// only after 10 ms), and each request holds its slot the longer. With
// more Ps than cores, a P is left waiting on the network, and the kernel
// runs it as soon as an answer arrives. On 2 cores, with 20 ms on every
// request, a request held its slot 23.5 ms with 2 Ps and 22 ms with 4
// (`go test -run '^$' -bench CrawlLatency ./crawler`, which runs at the
// setting this gives).
//
// Crawls at once (tests, a reclassify that fetches from two buckets)
// raise it once: the last to end restores it.
func RaiseProcs() (restore func()) {
	if os.Getenv("GOMAXPROCS") != "" {
		return func() {}
	}
	procs.mu.Lock()
	defer procs.mu.Unlock()
	if procs.raised == 0 {
		procs.was = runtime.GOMAXPROCS(0)
		runtime.GOMAXPROCS(2 * procs.was)
	}
	procs.raised++
	return sync.OnceFunc(func() {
		procs.mu.Lock()
		defer procs.mu.Unlock()
		if procs.raised--; procs.raised == 0 {
			runtime.GOMAXPROCS(procs.was)
		}
	})
}

// procs is what RaiseProcs raised.
var procs struct {
	mu     sync.Mutex
	raised int // crawls running with it raised
	was    int // the setting before
}
