package proc

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// NotifyContext returns a context cancelled on the first SIGTERM or
// SIGINT. Children started with Run under that context are then stopped
// as a group, and the caller still gets to write its status files before
// it exits. A second signal is left to the default handler (immediate
// exit) once stop is called.
func NotifyContext(parent context.Context) (ctx context.Context, stop context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}
