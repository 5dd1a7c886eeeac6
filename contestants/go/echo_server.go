// The Go echo server of the "Racket vs Go" write-up: a goroutine per connection that io.Copy's the connection
// to itself, GOMAXPROCS at whatever the environment says.
//
//	echo_server -addr 127.0.0.1:7000      # port 0: a free one, printed in "listening on"
package main

import (
	"errors"
	"flag"
	"io"
	"net"
	"time"
)

func main() {
	const name = "echo_server"
	addr := flag.String("addr", "127.0.0.1:7000", "host:port to listen on (port 0 picks a free one)")
	parseServerFlags(name)
	listener := listen(name, *addr)
	for {
		conn, err := listener.Accept()
		if err != nil {
			// Out of descriptors (EMFILE) is temporary: wait a little rather than spin, as net/http does.
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || isTemporary(err) {
				time.Sleep(5 * time.Millisecond)
				continue
			}
			fail(name, "accept: %v", err)
		}
		go func(c net.Conn) {
			defer c.Close()
			io.Copy(c, c)
		}(conn)
	}
}

func isTemporary(err error) bool {
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}
