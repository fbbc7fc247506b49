package desktop

import (
	"context"
	"io/fs"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"

	"crewagent/backend/project"
)

// Run opens the window over the runtime home (CREWAGENT_HOME or the default)
// with the built frontend assets and the app icon, and returns when it is
// closed.
func Run(assets fs.FS, icon []byte) error {
	home, err := project.ResolveHome("")
	if err != nil {
		return err
	}
	setWebProcessEnv()
	platform := &wailsPlatform{}
	a := NewApp(home, platform, platform)
	return wails.Run(&options.App{
		Title:            "CrewAgent",
		Width:            1280,
		Height:           800,
		MinWidth:         600,
		MinHeight:        560,
		BackgroundColour: &options.RGBA{R: 246, G: 247, B: 249, A: 255},
		AssetServer:      &assetserver.Options{Assets: assets},
		OnStartup: func(ctx context.Context) {
			platform.startup(ctx)
			a.startup(ctx)
			go quitOnSignal(ctx)
		},
		OnShutdown:     a.shutdown,
		Bind:           a.Bind(),
		ErrorFormatter: formatError,
		Linux: &linux.Options{
			Icon:             icon,
			ProgramName:      "crewagent",
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
}
