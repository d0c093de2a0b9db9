// Command extender is an example HTTP extender for Caldera's (and Volcano's)
// extender plugin: it rejects nodes that carry a label and scores nodes as
// binpack does, so that tasks fill few nodes.
//
//	go run ./examples/extender --listen :8713 --avoid-label caldera.example/avoid=true
//
// and in the scheduler configuration:
//
//   - name: extender
//     arguments:
//     extender.urlPrefix: http://127.0.0.1:8713
//     extender.httpTimeout: 500ms
//     extender.batchPredicateVerb: batchPredicate   # or extender.predicateVerb: predicate
//     extender.prioritizeVerb: prioritize
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/caldera-scheduler/caldera/examples/extender/handler"
)

func main() {
	listen := flag.String("listen", ":8713", "address to serve on")
	avoid := flag.String("avoid-label", "caldera.example/avoid=true", "nodes carrying this key=value label are rejected; empty rejects none")
	flag.Parse()

	opts, err := options(*avoid)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	srv := &http.Server{
		Addr:              *listen,
		Handler:           handler.New(opts),
		ReadHeaderTimeout: 5 * time.Second,
		// The scheduler keeps its connections open between sessions.
		IdleTimeout: 5 * time.Minute,
	}
	log.Printf("extender serving on %s, rejecting nodes labelled %q", *listen, *avoid)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Fatal(err)
	}
}

func options(avoid string) (handler.Options, error) {
	if avoid == "" {
		return handler.Options{}, nil
	}
	key, value, ok := strings.Cut(avoid, "=")
	if !ok || key == "" {
		return handler.Options{}, fmt.Errorf("--avoid-label: expected key=value, got %q", avoid)
	}
	return handler.Options{AvoidKey: key, AvoidValue: value}, nil
}
