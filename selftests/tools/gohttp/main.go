// SPDX-License-Identifier: GPL-2.0
// gohttp - a Go net/http server for metrics/host-servers.sh: each request
// spins -w microseconds of CPU and answers a small body; it keeps its own
// count of the requests it served.
//
// Usage: gohttp [-p PORT] [-w WORK_US]   (loopback; -p 0: the kernel's pick)
//
// Prints "ready PORT" once it listens (as sgserver does, for start_server),
// "served N" on SIGUSR1 and once more on SIGTERM or SIGINT, then exits 0.
// Standard library only: Debian's golang-go builds it offline with
// GO111MODULE=off.  GOMAXPROCS comes from the environment: pinned to one
// CPU, the runtime would otherwise run one P.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

var (
	served uint64 // requests answered (counted before the body is written)
	body   = []byte("ok\n")
)

// spin keeps the CPU busy for d: the request's service time is CPU work,
// which a slower clock stretches, not a sleep, which it would not
func spin(d time.Duration) {
	for t := time.Now(); time.Since(t) < d; {
	}
}

func main() {
	port := flag.Int("p", 0, "TCP port on 127.0.0.1 (0: any free one)")
	work := flag.Int("w", 20, "CPU work per request, microseconds")
	flag.Parse()

	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gohttp: error:", err)
		os.Exit(1)
	}
	d := time.Duration(*work) * time.Microsecond
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		spin(d)
		atomic.AddUint64(&served, 1)
		w.Header().Set("Content-Type", "text/plain")
		w.Write(body)
	})

	sig := make(chan os.Signal, 4)
	signal.Notify(sig, syscall.SIGUSR1, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for s := range sig {
			fmt.Printf("served %d\n", atomic.LoadUint64(&served))
			if s != syscall.SIGUSR1 {
				os.Exit(0)
			}
		}
	}()

	fmt.Printf("ready %d\n", ln.Addr().(*net.TCPAddr).Port)
	err = http.Serve(ln, nil)
	fmt.Fprintln(os.Stderr, "gohttp: error:", err)
	os.Exit(1)
}
