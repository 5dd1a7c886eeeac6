// What every Go contestant shares: -version, the line it prints first with the configuration it runs with, and
// for the servers the listener and its "listening on" line.
// The suite reads GOMAXPROCS from that line rather than assuming it: Go sizes its default from the CPUs the
// process may use, so `taskset -c 0` alone gives GOMAXPROCS 1.
//
//	func main() {
//		addr := flag.String("addr", "127.0.0.1:7000", "...")
//		parseFlags("echo_server", "ADDRESS")    // exits after -version or a usage error
//		printStartLine("echo_server")           // "echo_server: go1.19.8 gomaxprocs 2 numcpu 2"
//	}
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"runtime"
)

// libraryVersions is set by the build (contestants/go/go_program.bzl: -X main.libraryVersions=...): the
// Debian packages of the Go toolchain and of the Go libraries this program was built against.
var libraryVersions = ""

// parseFlags adds -version, parses the command line and exits 2 on a usage error (flag's own), 0 after
// -version. `operands` describes the positional arguments for the usage line ("" for none).
func parseFlags(name, operands string) {
	version := flag.Bool("version", false, "print the Go version and the libraries' versions, then exit")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: %s [flags] %s\n", name, operands)
		flag.PrintDefaults()
	}
	flag.Parse()
	if *version {
		fmt.Println(versionLine())
		os.Exit(0)
	}
}

func versionLine() string {
	if libraryVersions != "" {
		return libraryVersions
	}
	return runtime.Version()
}

func printStartLine(name string) {
	fmt.Printf("%s: %s gomaxprocs %d numcpu %d\n", name, runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU())
}

// fail prints the error the way a command-line program should and exits 1.
func fail(name string, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s: "+format+"\n", append([]any{name}, args...)...)
	os.Exit(1)
}

// usageError reports a bad operand and exits 2, as flag does for a bad flag.
func usageError(name string, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s: "+format+"\n", append([]any{name}, args...)...)
	flag.Usage()
	os.Exit(2)
}

// listen opens the server's listener and says where it listens, the line the suite waits for.
func listen(name, addr string) net.Listener {
	listener, err := net.Listen("tcp", addr)
	if err != nil {
		fail(name, "%v", err)
	}
	fmt.Printf("listening on %s\n", listener.Addr())
	return listener
}

// parseServerFlags is parseFlags for a server that takes no operands; it prints the start line too.
func parseServerFlags(name string) {
	parseFlags(name, "")
	if flag.NArg() != 0 {
		usageError(name, "unexpected argument %q", flag.Arg(0))
	}
	printStartLine(name)
}
