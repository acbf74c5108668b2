// Command benchtool is bench/rpc.sh's helper:
//
//	benchtool ceiling -addr 127.0.0.1:PORT -size N
//	    a bare fasthttp server answering every request with a fixed body
//	    of N bytes and the same response headers gonerod sends: the
//	    machine's ceiling for an RPC answer of that size.
//	benchtool getblocks-body -top HASH -genesis HASH -height N
//	    writes the epee body of a wallet's idle /getblocks.bin refresh
//	    (short history top, genesis; start_height N-1; pruned) to stdout.
package main

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/gonero/gonero/portable"
	"github.com/valyala/fasthttp"
)

func main() {
	if len(os.Args) < 2 {
		log.Fatal("usage: benchtool ceiling|getblocks-body ...")
	}
	switch os.Args[1] {
	case "ceiling":
		ceiling(os.Args[2:])
	case "getblocks-body":
		getblocksBody(os.Args[2:])
	default:
		log.Fatalf("unknown command %q", os.Args[1])
	}
}

func ceiling(args []string) {
	fs := flag.NewFlagSet("ceiling", flag.ExitOnError)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	size := fs.Int("size", 960, "body size in bytes")
	_ = fs.Parse(args)
	body := bytes.Repeat([]byte("x"), *size)
	lastModified := []byte(time.Now().UTC().Format(time.RFC1123))
	s := &fasthttp.Server{
		Name:                 "Epee-based",
		NoDefaultDate:        true,
		NoDefaultContentType: true,
		Handler: func(ctx *fasthttp.RequestCtx) {
			ctx.Response.Header.SetContentType("application/json")
			ctx.Response.Header.SetCanonical([]byte("Last-Modified"), lastModified)
			ctx.Response.Header.SetCanonical([]byte("Accept-Ranges"), []byte("bytes"))
			ctx.Response.SetBodyRaw(body)
		},
	}
	go func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, syscall.SIGTERM, syscall.SIGINT)
		<-ch
		_ = s.Shutdown()
	}()
	if err := s.ListenAndServe(*addr); err != nil {
		log.Fatal(err)
	}
}

func getblocksBody(args []string) {
	fs := flag.NewFlagSet("getblocks-body", flag.ExitOnError)
	top := fs.String("top", "", "top block hash (hex)")
	genesis := fs.String("genesis", "", "genesis block hash (hex)")
	height := fs.Uint64("height", 0, "chain height")
	_ = fs.Parse(args)
	var ids []byte
	for _, h := range []string{*top, *genesis} {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != 32 {
			log.Fatalf("bad hash %q", h)
		}
		ids = append(ids, b...)
	}
	var s portable.Section
	s.Set("block_ids", portable.NewBlob(ids))
	s.Set("prune", portable.NewBool(true))
	s.Set("start_height", portable.NewUint64(*height-1))
	s.Set("requested_info", portable.NewUint8(0))
	s.Set("no_miner_tx", portable.NewBool(false))
	s.Set("pool_info_since", portable.NewUint64(0))
	out, err := portable.Encode(s)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := os.Stdout.Write(out); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
