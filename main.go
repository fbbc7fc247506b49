// Command crewagent is the desktop app (no arguments; app.go runs its window)
// and the headless command line (the first argument names a command; see
// backend/cli). Both are thin adapters over backend/app; this file only
// embeds the frontend and chooses.
package main

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"crewagent/backend/cli"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	if len(os.Args) > 1 {
		// Commands log through their own logger (on stderr with --verbose); nothing reaches
		// stderr through the default one, so a command that succeeds prints nothing there.
		slog.SetDefault(slog.New(slog.DiscardHandler))
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if err := runWindow(); err != nil {
		fmt.Fprintln(os.Stderr, "crewagent:", err)
		os.Exit(1)
	}
}
