// The load of the "Racket vs Go" write-up, "the spammer": -clients connections, each writing one 22-byte
// message per Write in a tight loop without waiting for the echo, and one goroutine per connection reading
// what comes back into a 2,048-byte buffer and discarding it. A message is an 8-byte header (uint32
// little-endian payload length 14, uint32 little-endian op-code 1) and the payload "hello, friend\n".
//
// Every Write has a 2 s deadline set just before it; a write that times out is not counted (the loop goes
// on) and any other write error is fatal, as in the write-up. The rate is the messages written divided by
// the run's seconds, summed over connections.
//
//	spammer -addr 127.0.0.1:7000 -clients 3 -duration 10s
//	  -> "sent: 1234567 msgs in 10.000 s", "rate: 123456.7 msgs/s"
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
	payload     = "hello, friend\n"
	opCode      = 1
	headerBytes = 8
	readBuffer  = 2048
	writeWait   = 2 * time.Second
)

// message is the 22 bytes every Write sends.
func message() []byte {
	m := make([]byte, headerBytes+len(payload))
	binary.LittleEndian.PutUint32(m[0:4], uint32(len(payload)))
	binary.LittleEndian.PutUint32(m[4:8], opCode)
	copy(m[headerBytes:], payload)
	return m
}

type counts struct {
	written, timedOut int64
}

func main() {
	const name = "spammer"
	addr := flag.String("addr", "127.0.0.1:7000", "the echo server's host:port")
	clients := flag.Int("clients", 3, "connections, each with its own writer and reader goroutine")
	duration := flag.Duration("duration", 10*time.Second, "how long the writers write")
	dialTimeout := flag.Duration("dial_timeout", 5*time.Second, "bound on each connect")
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
	perConn := make([]counts, len(conns))
	msg := message()
	start := time.Now()
	for i, c := range conns {
		writers.Add(1)
		go func(c net.Conn, n *counts, index int) {
			defer writers.Done()
			for !stop.Load() {
				c.SetWriteDeadline(time.Now().Add(writeWait))
				if _, err := c.Write(msg); err != nil {
					if errors.Is(err, os.ErrDeadlineExceeded) {
						n.timedOut++
						continue
					}
					fail(name, "connection %d: write: %v", index+1, err)
				}
				n.written++
			}
		}(c, &perConn[i], i)
		readers.Add(1)
		go func(c net.Conn) {
			defer readers.Done()
			buf := make([]byte, readBuffer)
			for {
				if _, err := c.Read(buf); err != nil {
					return
				}
			}
		}(c)
	}
	time.Sleep(*duration)
	stop.Store(true)
	writers.Wait()
	elapsed := time.Since(start).Seconds()
	for _, c := range conns {
		c.Close() // ends the readers
	}
	readers.Wait()

	var total counts
	for i, n := range perConn {
		fmt.Printf("connection %d: %d msgs, %d writes timed out\n", i+1, n.written, n.timedOut)
		total.written += n.written
		total.timedOut += n.timedOut
	}
	fmt.Printf("sent: %d msgs in %.3f s (%d bytes each, %d writes timed out)\n", total.written, elapsed,
		len(msg), total.timedOut)
	fmt.Printf("rate: %.1f msgs/s\n", float64(total.written)/elapsed)
}
