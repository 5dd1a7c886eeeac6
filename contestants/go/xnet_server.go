// The Go server of the "golang websockets results" write-up: golang.org/x/net/websocket on /echo, reading each
// connection into a 512-byte buffer and discarding it (the write-up's server). -echo sends what it reads back
// instead (io.Copy, x/net's own echo example), for the loads that wait for their echoes. Either way it answers the
// client's close frame with its own, as RFC 6455 asks.
//
//	xnet_server -addr 127.0.0.1:8080 [-echo]      # ws://127.0.0.1:8080/echo
package main

import (
	"flag"
	"net/http"

	"golang.org/x/net/websocket"
)

// message is one frame's payload and its type. x/net's own echo example is io.Copy(ws, ws), which cuts a message
// at its 32 KiB buffer and sends everything back as text; this codec keeps both the message and its type.
type message struct {
	data []byte
	kind byte
}

var typed = websocket.Codec{
	Marshal: func(v interface{}) ([]byte, byte, error) {
		m := v.(*message)
		return m.data, m.kind, nil
	},
	Unmarshal: func(data []byte, kind byte, v interface{}) error {
		m := v.(*message)
		m.data, m.kind = data, kind
		return nil
	},
}

func main() {
	const name = "xnet_server"
	addr := flag.String("addr", "127.0.0.1:8080", "host:port to listen on (port 0 picks a free one)")
	echo := flag.Bool("echo", false, "send every message back instead of discarding it")
	parseServerFlags(name)
	sink := func(ws *websocket.Conn) {
		buf := make([]byte, 512)
		for {
			if _, err := ws.Read(buf); err != nil {
				return
			}
		}
	}
	handler := sink
	if *echo {
		handler = func(ws *websocket.Conn) {
			var m message
			for typed.Receive(ws, &m) == nil {
				if typed.Send(ws, &m) != nil {
					return
				}
			}
		}
	}
	// x/net reports the client's close frame as io.EOF and, when the handler returns, closes the TCP connection
	// without a close frame of its own; RFC 6455 5.5.1 asks for one in reply, and a client that waits for the
	// close handshake (//websocket:client, which then knows every message before it was read) would see the
	// connection dropped. ws.Close sends it (1000) before closing.
	closing := func(ws *websocket.Conn) {
		defer ws.Close()
		handler(ws)
	}
	// websocket.Server rather than websocket.Handler: Handler refuses a handshake without an Origin header,
	// which non-browser clients (netbench's among them) need not send.
	mux := http.NewServeMux()
	mux.Handle("/echo", websocket.Server{Handler: closing})
	listener := listen(name, *addr)
	if err := http.Serve(listener, mux); err != nil {
		fail(name, "%v", err)
	}
}
