package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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

// serveEndpoints starts the metrics and health servers; an address that
// cannot be bound is an error at start, not a log line later.
func serveEndpoints(ctx context.Context, metricsAddr, healthAddr string, h *health) error {
	if metricsAddr != "" {
		reg := prometheus.NewRegistry()
		if err := metrics.Register(reg); err != nil {
			return err
		}
		// The default registry holds the Go and process collectors and the
		// collectors of the Wasm runtime and the extender plugin, which
		// register themselves there.
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(prometheus.Gatherers{prometheus.DefaultGatherer, reg}, promhttp.HandlerOpts{}))
		if err := serve(ctx, "--listen-address", metricsAddr, mux); err != nil {
			return err
		}
	}
	if healthAddr != "" {
		mux := http.NewServeMux()
		mux.HandleFunc("/healthz", h.healthz)
		mux.HandleFunc("/readyz", h.readyz)
		if err := serve(ctx, "--healthz-address", healthAddr, mux); err != nil {
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
