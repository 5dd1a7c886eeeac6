// The Go side of the "Clojure vs GoLang" write-up: -n goroutines, each an HTTP GET of -url whose body is read
// whole, joined by a WaitGroup and timed per repetition. By default every repetition has a transport of its own
// (fresh connections, closed after it); -reuse keeps one transport across the repetitions, as a program calling
// http.Get in a loop does (net/http's defaults: it keeps 2 idle connections per host, so a burst of 500 reopens
// 498 of them every time); -keep keeps one transport that keeps every connection (MaxIdleConnsPerHost and
// MaxIdleConns at -n), warm as a JVM client whose pool has no limit. -warmup repetitions run first, untimed.
// Each repetition says the process's CPU time it took (getrusage: user + system) and how many connections it
// opened.
//
//	fanout -url http://127.0.0.1:9080/ -n 500 -reps 5 [-warmup 1] [-reuse | -keep] [-insecure]
//	  -> "rep 1: 500 ok, 0 errors, 12800000 bytes, wall 0.123 s, cpu 0.045 s, 500 connections opened"
package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// dials counts the connections every transport of this process opened.
var dials int64

// newClient is net/http's default transport, counting its dials; keepIdle > 0 lets it keep that many idle
// connections (per host and in all) instead of net/http's 2 per host.
func newClient(insecure bool, timeout time.Duration, keepIdle int) *http.Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second} // the default transport's
	transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		atomic.AddInt64(&dials, 1)
		return dialer.DialContext(ctx, network, addr)
	}
	if keepIdle > 0 {
		transport.MaxIdleConnsPerHost = keepIdle
		transport.MaxIdleConns = keepIdle
	}
	if insecure {
		transport.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	return &http.Client{Transport: transport, Timeout: timeout}
}

// awaitIdle waits until `count` connections were put back in the idle pool, or `bound` passed.
func awaitIdle(idle <-chan struct{}, count int, bound time.Duration) {
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for i := 0; i < count; i++ {
		select {
		case <-idle:
		case <-deadline.C:
			return
		}
	}
}

// processCPU is the CPU time this process has used, user and system, all threads.
func processCPU() time.Duration {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		fail("fanout", "getrusage: %v", err)
	}
	return time.Duration(usage.Utime.Nano() + usage.Stime.Nano())
}

// repetition fetches url n times at once and says how many answered 200 with their whole body. Each request's
// connection, once its body is read, goes back to the idle pool on a goroutine of the transport's own; `idle`,
// where given, gets a value as each is put back (or refused).
func repetition(client *http.Client, url string, n int, idle chan<- struct{}) (ok, failed, bytes int64,
	firstError error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	ctx := context.Background()
	if idle != nil {
		ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
			PutIdleConn: func(error) { idle <- struct{}{} },
		})
	}
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			read, err := get(ctx, client, url)
			if err != nil {
				atomic.AddInt64(&failed, 1)
				mu.Lock()
				if firstError == nil {
					firstError = err
				}
				mu.Unlock()
				return
			}
			atomic.AddInt64(&ok, 1)
			atomic.AddInt64(&bytes, read)
		}()
	}
	wg.Wait()
	return
}

func get(ctx context.Context, client *http.Client, url string) (int64, error) {
	request, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	response, err := client.Do(request)
	if err != nil {
		return 0, err
	}
	defer response.Body.Close()
	read, err := io.Copy(io.Discard, response.Body)
	if err != nil {
		return read, err
	}
	if response.StatusCode != http.StatusOK {
		return read, fmt.Errorf("status %s", response.Status)
	}
	return read, nil
}

func main() {
	const name = "fanout"
	url := flag.String("url", "http://127.0.0.1:9080/", "the page to fetch")
	n := flag.Int("n", 500, "concurrent GETs per repetition")
	reps := flag.Int("reps", 5, "timed repetitions")
	warmup := flag.Int("warmup", 0, "untimed repetitions first (with -reuse or -keep they fill the pool)")
	reuse := flag.Bool("reuse", false, "one transport (and its idle connections, 2 per host) across repetitions")
	keep := flag.Bool("keep", false, "one transport across repetitions that keeps every connection (-n idle per host)")
	insecure := flag.Bool("insecure", false, "https: do not verify the server's certificate")
	timeout := flag.Duration("timeout", 60*time.Second, "bound on each request, and on the whole run x (warmup+reps+1)")
	parseFlags(name, "")
	if flag.NArg() != 0 {
		usageError(name, "unexpected argument %q", flag.Arg(0))
	}
	if *n < 1 || *reps < 1 || *warmup < 0 {
		usageError(name, "-n and -reps must be at least 1 and -warmup at least 0, got %d, %d and %d", *n, *reps,
			*warmup)
	}
	if *reuse && *keep {
		usageError(name, "-reuse and -keep are two conditions: name one")
	}
	printStartLine(name)
	time.AfterFunc(*timeout*time.Duration(*reps+*warmup+1), func() { fail(name, "the run outlasted its bound") })

	keepIdle := 0
	if *keep {
		keepIdle = *n
	}
	shared := newClient(*insecure, *timeout, keepIdle)
	anyFailed := false
	for i := 0; i < *warmup+*reps; i++ {
		client := shared
		if !*reuse && !*keep {
			client = newClient(*insecure, *timeout, 0)
		}
		label := fmt.Sprintf("rep %d", i-*warmup+1)
		if i < *warmup {
			label = fmt.Sprintf("warmup %d", i+1)
		}
		var idle chan struct{}
		if *keep {
			idle = make(chan struct{}, *n)
		}
		dialsBefore, cpuBefore, start := atomic.LoadInt64(&dials), processCPU(), time.Now()
		ok, failed, bytes, err := repetition(client, *url, *n, idle)
		wall, cpu := time.Since(start).Seconds(), (processCPU() - cpuBefore).Seconds()
		opened := atomic.LoadInt64(&dials) - dialsBefore
		if *keep {
			// Untimed: the next repetition starts with every connection back in the pool, as a JVM client's
			// are (its loop pools a connection before it hands the response on).
			awaitIdle(idle, int(ok), *timeout)
		}
		if client != shared {
			client.CloseIdleConnections()
		}
		fmt.Printf("%s: %d ok, %d errors, %d bytes, wall %.3f s, cpu %.3f s, %d connections opened\n", label, ok,
			failed, bytes, wall, cpu, opened)
		if failed > 0 {
			anyFailed = true
			fmt.Fprintf(os.Stderr, "%s: %s: first error: %v\n", name, label, err)
		}
	}
	if anyFailed {
		os.Exit(1)
	}
}
