package testutil

import (
	"fmt"
	"runtime"
	"time"

	"github.com/sourcegraph/conc"
)

// MemStats are the peaks of the heap in use and of the memory taken from
// the OS while a function ran, and the heap in use before it.
type MemStats struct{ Before, Heap, Sys uint64 }

func (m MemStats) String() string {
	mib := func(n uint64) float64 { return float64(n) / (1 << 20) }
	return fmt.Sprintf("peak heap in use %.1f MiB (%.1f MiB before), peak memory from the OS %.1f MiB", mib(m.Heap), mib(m.Before), mib(m.Sys))
}

// MemoryPeak collects garbage, then runs f while sampling the heap every
// few milliseconds.
func MemoryPeak(f func()) MemStats {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := MemStats{Before: ms.HeapInuse}
	stop := make(chan struct{})
	var wg conc.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			m.Heap, m.Sys = max(m.Heap, ms.HeapInuse), max(m.Sys, ms.Sys)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	f()
	close(stop)
	wg.Wait()
	return m
}
