// Command crewagent is the desktop app (no arguments) and the headless command
// line (the first argument names a command; see backend/cli). Both are thin
// adapters over backend/app; this file only embeds the frontend and chooses.
package main

import (
	"context"
	"embed"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"crewagent/backend/cli"
	"crewagent/backend/desktop"
)

//go:embed all:frontend/dist
var assets embed.FS

//go:embed build/appicon.png
var icon []byte

func main() {
	if len(os.Args) > 1 {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	if err := desktop.Run(assets, icon); err != nil {
		fmt.Fprintln(os.Stderr, "crewagent:", err)
		os.Exit(1)
	}
}
