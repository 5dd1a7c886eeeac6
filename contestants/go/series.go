// What a Go load did per interval of its run, so that the suite can find the run's steady state from its rate over
// time: counters the load goroutines add to, and a sampler that reads them every -series_interval and prints one
// line of JSON at the end.
//
//	interval := seriesFlag()                  // -series_interval, 100ms by default, 0 for none
//	checkSeriesFlag(name, *interval)          // below 10ms: a usage error
//	s := startSampler(start, *interval, func() []int64 { return []int64{sent(), received()} })
//	...                                       // the load runs
//	s.stop()                                  // once it stopped, at `end`
//	s.finish(end, []int64{sent(), received()})
//	fmt.Println(s.line("sent", "received"))   // series: {"interval_s": 0.1, "last_s": 0.043, "sent": [..], ..}
//
// A nil sampler (the interval 0) does nothing and prints nothing.
package main

import (
	"flag"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

const minSeriesInterval = 10 * time.Millisecond

// paddedCounter is one goroutine's running count, which the sampler reads while it runs. It has a cache line to
// itself, so that goroutines on different cores do not bounce one line between them on every message: 128 bytes
// rather than 64 because a slice of them is only 8-byte aligned (64 bytes apart, two counters could still share
// the line one of them straddles), and because Intel's adjacent-line prefetcher fetches lines in pairs.
type paddedCounter struct {
	atomic.Int64
	_ [128 - 8]byte
}

func seriesFlag() *time.Duration {
	return flag.Duration("series_interval", 100*time.Millisecond,
		"print what the load did per interval of this length (the series: line); 0 for none, else at least 10ms")
}

func checkSeriesFlag(name string, interval time.Duration) {
	if interval != 0 && interval < minSeriesInterval {
		usageError(name, "-series_interval must be 0 or at least %v, got %v", minSeriesInterval, interval)
	}
}

// sampler turns snapshots of cumulative counts into counts per interval of a regular grid from start. A snapshot
// comes a little after its tick (the sampler waits for a CPU like the load does), and a tick it missed is dropped
// by the ticker, so the count at each grid point is interpolated linearly between the snapshots either side of
// it: the entries stay aligned with time, and they still sum exactly to the last snapshot.
type sampler struct {
	start    time.Time
	interval time.Duration
	read     func() []int64

	lastT  time.Duration // when the latest snapshot was taken, from start
	last   []int64       // and what it read
	gridT  time.Duration // the latest grid point an entry ends at
	atGrid []int64       // the counts interpolated there
	series [][]int64     // per interval, one entry per counter
	lastS  float64       // the length of the last interval, which may be partial

	done, stopped chan struct{}
}

// startSampler starts sampling `read` every `interval` from `start`; with interval 0 it returns nil.
func startSampler(start time.Time, interval time.Duration, read func() []int64) *sampler {
	if interval == 0 {
		return nil
	}
	s := &sampler{start: start, interval: interval, read: read, done: make(chan struct{}),
		stopped: make(chan struct{})}
	s.last = read()
	s.atGrid = append([]int64(nil), s.last...)
	go s.run()
	return s
}

func (s *sampler) run() {
	defer close(s.stopped)
	ticker := time.NewTicker(s.interval)
	defer ticker.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-ticker.C:
			// The tick's own time is when the timer fired, not when this goroutine got to read the counts.
			t := time.Since(s.start)
			s.observe(t, s.read())
		}
	}
}

// observe takes a snapshot `counts` read at `t` and closes every interval that ended since the one before.
func (s *sampler) observe(t time.Duration, counts []int64) {
	for next := s.gridT + s.interval; next <= t; next += s.interval {
		// next > lastT always (the previous snapshot closed every interval it reached), so t > lastT here.
		fraction := float64(next-s.lastT) / float64(t-s.lastT)
		entry := make([]int64, len(counts))
		for i := range counts {
			at := s.last[i] + int64(math.Round(fraction*float64(counts[i]-s.last[i])))
			entry[i] = at - s.atGrid[i]
			s.atGrid[i] = at
		}
		s.series = append(s.series, entry)
		s.gridT = next
	}
	s.lastT, s.last = t, counts
}

// stop ends the sampling; call it as soon as the load stopped.
func (s *sampler) stop() {
	if s == nil {
		return
	}
	close(s.done)
	<-s.stopped
}

// finish closes the series at `end`, when the load stopped, with the final counts: what was counted after `end`
// (a load's echoes read until it closed its connections) goes to the last interval, so that the entries sum to
// the totals the load prints.
func (s *sampler) finish(end time.Time, counts []int64) {
	if s == nil {
		return
	}
	t := end.Sub(s.start)
	if t < s.lastT { // the last tick's snapshot was taken a moment after the load stopped
		t = s.lastT
	}
	s.observe(t, counts)
	partial := make([]int64, len(counts))
	for i := range counts {
		partial[i] = counts[i] - s.atGrid[i]
	}
	if t > s.gridT || len(s.series) == 0 {
		s.series = append(s.series, partial)
		s.lastS = (t - s.gridT).Seconds()
	} else { // it stopped exactly on a grid point: the last interval is whole
		last := s.series[len(s.series)-1]
		for i := range last {
			last[i] += partial[i]
		}
		s.lastS = s.interval.Seconds()
	}
}

// line is the series as one line, `series: ` and a JSON object: interval_s, last_s, and per counter (named by
// `names`, in read's order) its count per interval.
func (s *sampler) line(names ...string) string {
	var b strings.Builder
	b.WriteString(`series: {"interval_s": `)
	b.WriteString(strconv.FormatFloat(s.interval.Seconds(), 'f', -1, 64))
	b.WriteString(`, "last_s": `)
	b.WriteString(strconv.FormatFloat(math.Round(s.lastS*1e6)/1e6, 'f', -1, 64))
	for i, name := range names {
		b.WriteString(`, "` + name + `": [`)
		for j, entry := range s.series {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.FormatInt(entry[i], 10))
		}
		b.WriteString("]")
	}
	b.WriteString("}")
	return b.String()
}
