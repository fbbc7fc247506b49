package main

import (
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"crewagent/backend/desktop"
	"crewagent/backend/project"
)

// runWindow opens the window over the runtime home (CREWAGENT_HOME or the
// default) with the built frontend and the app icon, and returns when it is
// closed. Its lifecycle is desktop.Window's: Startup makes dialogs and events
// work and starts the background work, Shutdown stops every task and closes
// the open project, and a stop signal closes the window the ordinary way.
func runWindow() error {
	home, err := project.ResolveHome("")
	if err != nil {
		return err
	}
	w := desktop.NewWindow(home)
	return wails.Run(&options.App{
		Title:            "CrewAgent",
		Width:            1280,
		Height:           800,
		MinWidth:         600,
		MinHeight:        560,
		BackgroundColour: &options.RGBA{R: 246, G: 247, B: 249, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets},
		OnStartup:        w.Startup,
		OnShutdown:       w.Shutdown,
		Bind:             bound(w),
		// A failed call reaches the page as "CODE: message" (src/bridge/errors.ts).
		ErrorFormatter: desktop.FormatError,
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "crewagent",
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
}

// bound lists the structs the window binds, one per module of
// frontend/src/bridge: their methods are the page's calls into the
// application (backend/desktop; `wails generate module -tags webkit2_41`
// writes their bindings to frontend/wailsjs).
func bound(w *desktop.Window) []any {
	return []any{w.System, w.Projects, w.Conversations, w.Chat, w.Runs, w.Packages, w.Settings, w.MCP, w.Skills,
		w.Context, w.Setup}
}
