package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/viper"
	"k8s.io/klog/v2"

	"github.com/caldera-scheduler/caldera/scheduler/metrics"
)

// health answers /healthz while the process serves and /readyz once the
// informers have synced.
type health struct{ ready atomic.Bool }

func newHealth() *health { return &health{} }

func (h *health) setReady() { h.ready.Store(true) }

func (h *health) healthz(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") }

func (h *health) readyz(w http.ResponseWriter, _ *http.Request) {
	if !h.ready.Load() {
		http.Error(w, "informers not synced", http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ok")
}

// endpoints says what `caldera run` serves where.
type endpoints struct {
	listen, healthz        string
	metrics, pprof, health bool
}

func endpointsFrom(v *viper.Viper) endpoints {
	return endpoints{
		listen: v.GetString("listen-address"), healthz: v.GetString("healthz-address"),
		metrics: v.GetBool("enable-metrics"), pprof: v.GetBool("enable-pprof"), health: v.GetBool("enable-healthz"),
	}
}

// serveEndpoints starts the metrics (and pprof) and health servers; an
// address that cannot be bound is an error at start, not a log line later.
func serveEndpoints(ctx context.Context, e endpoints, h *health) error {
	if e.listen != "" && (e.metrics || e.pprof) {
		mux := http.NewServeMux()
		if e.metrics {
			reg := prometheus.NewRegistry()
			if err := metrics.Register(reg); err != nil {
				return err
			}
			// The default registry holds the Go and process collectors and the
			// collectors of the Wasm runtime and the extender plugin, which
			// register themselves there.
			mux.Handle("/metrics", promhttp.HandlerFor(prometheus.Gatherers{prometheus.DefaultGatherer, reg}, promhttp.HandlerOpts{}))
		}
		if e.pprof {
			mux.HandleFunc("/debug/pprof/", pprof.Index)
			mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
			mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
			mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
			mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		}
		if err := serve(ctx, "--listen-address", e.listen, mux); err != nil {
			return err
		}
	}
	if e.healthz != "" && e.health {
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", h.healthz)
		mux.HandleFunc("/readyz", h.readyz)
		if err := serve(ctx, "--healthz-address", e.healthz, mux); err != nil {
			return err
		}
	}
	return nil
}

func serve(ctx context.Context, flag, addr string, handler http.Handler) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("%s %s: %w", flag, addr, err)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.ErrorS(err, "HTTP server stopped", "address", addr)
		}
	}()
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	}()
	return nil
}
