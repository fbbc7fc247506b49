package desktop

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/wailsapp/wails/v2/pkg/runtime"
)

// quitOnSignal closes the window the ordinary way when the process is asked
// to stop (SIGTERM, SIGINT, SIGHUP: a logout, a service manager, kill), so
// that OnShutdown runs: replies stop, the project closes and its MCP servers
// are stopped with it. A second signal ends the process at once.
func quitOnSignal(ctx context.Context) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	<-sigs
	signal.Stop(sigs)
	runtime.Quit(ctx)
}
