// The client of the "golang websockets results" write-up: CLIENTS connections to -url with origin
// http://localhost/ (golang.org/x/net/websocket), each writing MESSAGES text messages "hello, world!" without
// reading, then closing; it prints "Sent N in T for a rate of R/second", timed from the moment every
// connection is open to the last message written. -drain reads and discards what comes back, for a server
// that echoes (otherwise its echoes fill the socket buffers and both sides stop).
//
// Beyond the write-up, it prints the messages sent per -series_interval (series.go) before that line. Its
// series has no "received": -drain reads what comes back as one stream of bytes (io.Copy), which counts no messages.
//
//	xnet_client -url ws://127.0.0.1:8080/echo 4 100000
package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"golang.org/x/net/websocket"
)

const text = "hello, world!"

func main() {
	const name = "xnet_client"
	url := flag.String("url", "ws://127.0.0.1:8080/echo", "the server's WebSocket URL")
	timeout := flag.Duration("timeout", 120*time.Second, "bound on the whole run, connecting included")
	drain := flag.Bool("drain", false, "read and discard what the server sends back")
	seriesInterval := seriesFlag()
	parseFlags(name, "CLIENTS MESSAGES")
	if flag.NArg() != 2 {
		usageError(name, "expected CLIENTS and MESSAGES, got %d operand(s)", flag.NArg())
	}
	clients, err1 := strconv.Atoi(flag.Arg(0))
	messages, err2 := strconv.Atoi(flag.Arg(1))
	if err1 != nil || err2 != nil || clients < 1 || messages < 1 {
		usageError(name, "CLIENTS and MESSAGES must be positive integers, got %q %q", flag.Arg(0), flag.Arg(1))
	}
	checkSeriesFlag(name, *seriesInterval)
	printStartLine(name)
	// No client outlives its -timeout, whatever the server does.
	time.AfterFunc(*timeout, func() { fail(name, "timed out after %v", *timeout) })

	conns := make([]*websocket.Conn, clients)
	for i := range conns {
		ws, err := websocket.Dial(*url, "", "http://localhost/")
		if err != nil {
			fail(name, "connection %d: %v", i+1, err)
		}
		conns[i] = ws
	}
	var writers, drains sync.WaitGroup
	sent := make([]paddedCounter, clients)
	totals := func() []int64 {
		var total int64
		for i := range sent {
			total += sent[i].Load()
		}
		return []int64{total}
	}
	start := time.Now()
	series := startSampler(start, *seriesInterval, totals)
	for i, ws := range conns {
		if *drain {
			drains.Add(1)
			go func(ws *websocket.Conn) {
				defer drains.Done()
				io.Copy(io.Discard, ws)
			}(ws)
		}
		writers.Add(1)
		go func(ws *websocket.Conn, n *paddedCounter, index int) {
			defer writers.Done()
			for m := 0; m < messages; m++ {
				if err := websocket.Message.Send(ws, text); err != nil {
					fail(name, "connection %d: message %d: %v", index+1, m+1, err)
				}
				n.Add(1)
			}
		}(ws, &sent[i], i)
	}
	writers.Wait()
	end := time.Now()
	series.stop()
	elapsed := end.Sub(start)
	for _, ws := range conns {
		ws.Close()
	}
	drains.Wait()
	total := clients * messages
	if series != nil {
		series.finish(end, totals())
		fmt.Println(series.line("sent"))
	}
	fmt.Printf("Sent %d in %v for a rate of %.0f/second\n", total, elapsed, float64(total)/elapsed.Seconds())
}
