// The Go side of the "Clojure vs GoLang" write-up: -n goroutines, each an HTTP GET of -url whose body is read
// whole, joined by a WaitGroup and timed per repetition. By default every repetition has a transport of its own
// (fresh connections, closed after it); -reuse keeps one transport across the repetitions, as a program calling
// http.Get in a loop does (net/http's defaults: it keeps 2 idle connections per host).
//
//	fanout -url http://127.0.0.1:9080/ -n 500 -reps 5 [-reuse] [-insecure]
//	  -> "rep 1: 500 ok, 0 errors, 12800000 bytes, wall 0.123 s" per repetition
package main

import (
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

func newClient(insecure bool, timeout time.Duration) *http.Client {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if insecure {
		transport.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	return &http.Client{Transport: transport, Timeout: timeout}
}

// repetition fetches url n times at once and says how many answered 200 with their whole body.
func repetition(client *http.Client, url string, n int) (ok, failed, bytes int64, firstError error) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			read, err := get(client, url)
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

func get(client *http.Client, url string) (int64, error) {
	response, err := client.Get(url)
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
	reuse := flag.Bool("reuse", false, "one transport (and its idle connections) across repetitions")
	insecure := flag.Bool("insecure", false, "https: do not verify the server's certificate")
	timeout := flag.Duration("timeout", 60*time.Second, "bound on each request, and on the whole run x (reps+1)")
	parseFlags(name, "")
	if flag.NArg() != 0 {
		usageError(name, "unexpected argument %q", flag.Arg(0))
	}
	if *n < 1 || *reps < 1 {
		usageError(name, "-n and -reps must be at least 1, got %d and %d", *n, *reps)
	}
	printStartLine(name)
	time.AfterFunc(*timeout*time.Duration(*reps+1), func() { fail(name, "the run outlasted its bound") })

	shared := newClient(*insecure, *timeout)
	anyFailed := false
	for rep := 1; rep <= *reps; rep++ {
		client := shared
		if !*reuse {
			client = newClient(*insecure, *timeout)
		}
		start := time.Now()
		ok, failed, bytes, err := repetition(client, *url, *n)
		wall := time.Since(start).Seconds()
		if !*reuse {
			client.CloseIdleConnections()
		}
		fmt.Printf("rep %d: %d ok, %d errors, %d bytes, wall %.3f s\n", rep, ok, failed, bytes, wall)
		if failed > 0 {
			anyFailed = true
			fmt.Fprintf(os.Stderr, "%s: rep %d: first error: %v\n", name, rep, err)
		}
	}
	if anyFailed {
		os.Exit(1)
	}
}
