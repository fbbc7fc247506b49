// Command crewagent is the desktop app (no arguments) and the headless command
// line (the first argument names a command; see backend/cli).
package main

import (
	"context"
	"embed"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"crewagent/backend/cli"
	"crewagent/backend/project"
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
	if err := runDesktop(); err != nil {
		fmt.Fprintln(os.Stderr, "crewagent:", err)
		os.Exit(1)
	}
}

// runDesktop opens the window and returns when it is closed.
func runDesktop() error {
	home, err := project.ResolveHome("")
	if err != nil {
		return err
	}
	platform := &wailsPlatform{}
	app := NewApp(home, platform, platform)
	return wails.Run(&options.App{
		Title:            "CrewAgent",
		Width:            1280,
		Height:           800,
		MinWidth:         860,
		MinHeight:        560,
		BackgroundColour: &options.RGBA{R: 246, G: 247, B: 249, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets},
		OnStartup: func(ctx context.Context) {
			platform.startup(ctx)
			app.startup(ctx)
		},
		OnShutdown:     app.shutdown,
		Bind:           []any{app},
		ErrorFormatter: formatError,
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "crewagent",
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
}
