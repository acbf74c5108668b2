// Command waitproxy sits between a wallet and its daemon and measures how
// long the wallet waits on the daemon: for every request, the time from its
// arrival to the end of the daemon's answer. bench/wallet-refresh.sh runs it
// to split a refresh into the daemon's share and the wallet's own work,
// which no daemon can shorten.
//
//	waitproxy -listen 127.0.0.1:PORT -daemon 127.0.0.1:PORT
//
// GET /.waitproxy answers "requests=N wait_seconds=S" for the requests
// forwarded since the previous such call (it is not forwarded itself).
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sync"
	"time"
)

func main() {
	listen := flag.String("listen", "", "address to listen on")
	daemon := flag.String("daemon", "", "daemon address (host:port)")
	flag.Parse()
	if *listen == "" || *daemon == "" {
		log.Fatal("usage: waitproxy -listen ADDR -daemon ADDR")
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: *daemon})
	proxy.ErrorLog = log.New(io.Discard, "", 0)

	var mu sync.Mutex
	var n int
	var wait time.Duration
	log.Fatal(http.ListenAndServe(*listen, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.waitproxy" {
			mu.Lock()
			fmt.Fprintf(w, "requests=%d wait_seconds=%.6f\n", n, wait.Seconds())
			n, wait = 0, 0
			mu.Unlock()
			return
		}
		began := time.Now()
		proxy.ServeHTTP(w, r)
		d := time.Since(began)
		mu.Lock()
		n++
		wait += d
		mu.Unlock()
	})))
}
