package main

import "time"

// addDays grows the bucket by days of history after its last day, as the
// bucket looks some nights later: the pending run of the sample job has
// finished, the sample edge runs on without pod-network trouble (its
// regression weakens), and the 4.14 z-stream runs twice a day, its evening
// run showing the SDN rollout readiness loss (it becomes a regression). A second
// crawl of a grown bucket is what report --changes is for.
func addDays(jobs []*job, days int) {
	if days <= 0 {
		return
	}
	last := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	for _, j := range jobs {
		switch j.name {
		case sampleJob:
			for i := range j.plans {
				if j.plans[i].result == pending {
					j.plans[i].result = success
				}
			}
			for d := 1; d <= days; d++ {
				j.plans = append(j.plans, plan{start: last.AddDate(0, 0, d).Format(time.DateOnly), result: success})
			}
		case microJob:
			// Twice a day, as nightly z-stream jobs run: the evening run
			// shows the loss.
			for d := 1; d <= days; d++ {
				day := last.AddDate(0, 0, d)
				j.plans = append(j.plans,
					plan{start: day.Add(6 * time.Hour).Format(time.RFC3339), result: success},
					plan{start: day.Add(18 * time.Hour).Format(time.RFC3339), result: failure, cni: true, sdnSeq: true})
			}
		case basisJob, microBasisJob:
			// The bases keep running too, as they did.
			for d := 3; d <= days; d += 3 {
				j.plans = append(j.plans, plan{start: last.AddDate(0, 0, d).Format(time.DateOnly), result: success})
			}
		}
	}
}
