package desktop

import "context"

// Window is the desktop app in its window: the bound structs (App) and the
// Wails platform they open dialogs and push events through. The program's
// app.go runs it.
type Window struct {
	*App
	platform *wailsPlatform
}

// NewWindow returns the window's application over the runtime home home,
// with the environment the page's process starts with (webProcessEnv).
func NewWindow(home string) *Window {
	setWebProcessEnv()
	p := &wailsPlatform{}
	return &Window{App: NewApp(home, p, p), platform: p}
}

// Startup is the window's OnStartup: dialogs and events work from here on,
// the bundled demo package installs in the background, idle memory starts
// going back to the system, and a stop signal closes the window the
// ordinary way (quitOnSignal).
func (w *Window) Startup(ctx context.Context) {
	w.platform.startup(ctx)
	fitFileDialogs()
	w.startup(ctx)
	go quitOnSignal(ctx)
}

// Shutdown is the window's OnShutdown: every task stops and the open
// project closes.
func (w *Window) Shutdown(ctx context.Context) { w.shutdown(ctx) }
