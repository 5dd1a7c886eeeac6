// The load of the "Racket vs Go" write-up, "the spammer": -clients connections, each writing one 22-byte
// message per Write in a tight loop without waiting for the echo, and one goroutine per connection reading
// what comes back into a 2,048-byte buffer and discarding it. A message is an 8-byte header (uint32
// little-endian payload length 14, uint32 little-endian op-code 1) and the payload "hello, friend\n".
//
// Every Write has a 2 s deadline set just before it; a write that times out is not counted (the loop goes
// on) and any other write error is fatal, as in the write-up. The rate is the messages written divided by
// the run's seconds, summed over connections.
//
// Beyond the write-up, it counts the bytes its readers read back (echoed = bytes / 22, what the server echoed,
// not what the kernel buffered) and prints per -series_interval the messages written and echoed (series.go).
// When the writers stop it closes the connections at once, as the write-up does, so echoes still on their way
// are not counted; -echo_drain half-closes them instead and reads until the server closes its side.
//
//	spammer -addr 127.0.0.1:7000 -clients 3 -duration 10s
//	  -> "series: {"interval_s": 0.1, "last_s": 0.0021, "sent": [..], "received": [..]}",
//	     "echoed: 1234000 msgs", "sent: 1234567 msgs in 10.000 s", "rate: 123456.7 msgs/s"
package main

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

const (
	payload      = "hello, friend\n"
	opCode       = 1
	headerBytes  = 8
	messageBytes = headerBytes + len(payload)
	readBuffer   = 2048
	writeWait    = 2 * time.Second
)

// message is the 22 bytes every Write sends.
func message() []byte {
	m := make([]byte, messageBytes)
	binary.LittleEndian.PutUint32(m[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(m[4:8], opCode)
	copy(m[headerBytes:], payload)
	return m
}

// connCounts is what one connection's writer and reader did, read by the sampler while they run; each counter
// on a cache line of its own (paddedCounter), so that no writer slows another or its reader.
type connCounts struct {
	written   paddedCounter // messages
	bytesRead paddedCounter
}

func main() {
	const name = "spammer"
	addr := flag.String("addr", "127.0.0.1:7000", "the echo server's host:port")
	clients := flag.Int("clients", 3, "connections, each with its own writer and reader goroutine")
	duration := flag.Duration("duration", 10*time.Second, "how long the writers write")
	dialTimeout := flag.Duration("dial_timeout", 5*time.Second, "bound on each connect")
	seriesInterval := seriesFlag()
	echoDrain := flag.Duration("echo_drain", 0, "once the writers stop, half-close each connection and read "+
		"echoes until the server closes it, for at most this long (0: close at once, as the write-up does)")
	parseFlags(name, "")
	if flag.NArg() != 0 {
		usageError(name, "unexpected argument %q", flag.Arg(0))
	}
	if *clients < 1 {
		usageError(name, "-clients must be at least 1, got %d", *clients)
	}
	if *duration <= 0 {
		usageError(name, "-duration must be positive, got %v", *duration)
	}
	if *echoDrain < 0 {
		usageError(name, "-echo_drain must not be negative, got %v", *echoDrain)
	}
	checkSeriesFlag(name, *seriesInterval)
	printStartLine(name)

	conns := make([]net.Conn, *clients)
	for i := range conns {
		c, err := net.DialTimeout("tcp", *addr, *dialTimeout)
		if err != nil {
			fail(name, "connection %d: %v", i+1, err)
		}
		conns[i] = c
	}

	var stop atomic.Bool
	var writers, readers sync.WaitGroup
	perConn := make([]connCounts, len(conns))
	// Each writer's timeouts stay in its own variable until it ends: no one reads them while it runs.
	timedOut := make([]int64, len(conns))
	totals := func() []int64 {
		var written, read int64
		for i := range perConn {
			written += perConn[i].written.Load()
			read += perConn[i].bytesRead.Load()
		}
		return []int64{written, read / int64(messageBytes)}
	}
	msg := message()
	start := time.Now()
	series := startSampler(start, *seriesInterval, totals)
	for i, c := range conns {
		writers.Add(1)
		go func(c net.Conn, n *connCounts, index int) {
			defer writers.Done()
			var timeouts int64
			for !stop.Load() {
				c.SetWriteDeadline(time.Now().Add(writeWait))
				if _, err := c.Write(msg); err != nil {
					if errors.Is(err, os.ErrDeadlineExceeded) {
						timeouts++
						continue
					}
					fail(name, "connection %d: write: %v", index+1, err)
				}
				n.written.Add(1)
			}
			timedOut[index] = timeouts
		}(c, &perConn[i], i)
		readers.Add(1)
		go func(c net.Conn, n *connCounts) {
			defer readers.Done()
			buf := make([]byte, readBuffer)
			for {
				got, err := c.Read(buf)
				n.bytesRead.Add(int64(got))
				if err != nil {
					return
				}
			}
		}(c, &perConn[i])
	}
	time.Sleep(*duration)
	stop.Store(true)
	writers.Wait()
	end := time.Now()
	series.stop()
	elapsed := end.Sub(start).Seconds()
	if *echoDrain > 0 {
		for _, c := range conns {
			c.(*net.TCPConn).CloseWrite() // the server reads to the end, echoes it and closes: the readers' EOF
			c.SetReadDeadline(end.Add(*echoDrain))
		}
		readers.Wait()
	}
	for _, c := range conns {
		c.Close() // ends the readers
	}
	readers.Wait()

	final := totals()
	series.finish(end, final)
	var total int64
	var totalTimedOut int64
	for i := range perConn {
		written := perConn[i].written.Load()
		fmt.Printf("connection %d: %d msgs, %d writes timed out\n", i+1, written, timedOut[i])
		total += written
		totalTimedOut += timedOut[i]
	}
	if series != nil {
		fmt.Println(series.line("sent", "received"))
	}
	fmt.Printf("echoed: %d msgs\n", final[1])
	fmt.Printf("sent: %d msgs in %.3f s (%d bytes each, %d writes timed out)\n", total, elapsed,
		len(msg), totalTimedOut)
	fmt.Printf("rate: %.1f msgs/s\n", float64(total)/elapsed)
}
