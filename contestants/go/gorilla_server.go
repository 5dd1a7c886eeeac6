// The second Go WebSocket server of the "golang websockets results" comparison: github.com/gorilla/websocket
// on /echo, sending every message back as it came (text or binary), one goroutine per connection.
//
//	gorilla_server -addr 127.0.0.1:8080      # ws://127.0.0.1:8080/echo
package main

import (
	"flag"
	"net/http"

	"github.com/gorilla/websocket"
)

func main() {
	const name = "gorilla_server"
	addr := flag.String("addr", "127.0.0.1:8080", "host:port to listen on (port 0 picks a free one)")
	parseServerFlags(name)
	// Any origin: the loads are not browsers (gorilla refuses a cross-origin handshake by default).
	upgrader := websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		conn, err := upgrader.Upgrade(w, r, nil)
		if err != nil {
			return // Upgrade has answered the request with the HTTP error
		}
		defer conn.Close()
		for {
			kind, data, err := conn.ReadMessage()
			if err != nil {
				return
			}
			if err := conn.WriteMessage(kind, data); err != nil {
				return
			}
		}
	})
	listener := listen(name, *addr)
	if err := http.Serve(listener, mux); err != nil {
		fail(name, "%v", err)
	}
}
