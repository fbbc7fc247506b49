package desktop

import (
	"context"
	"log"
	"os"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"crewagent/backend/errs"
	"crewagent/backend/events"
)

var (
	_ Dialogs        = (*wailsPlatform)(nil)
	_ events.Emitter = (*wailsPlatform)(nil)
)

// wailsPlatform adapts the Wails runtime (native dialogs, events) to the small
// interfaces the application uses. With signals.go it is the only code that
// imports the Wails runtime. It works once Wails calls startup with its context.
type wailsPlatform struct {
	ctx atomic.Pointer[context.Context]

	notifyMu    sync.Mutex
	notifyReady bool
	notifySeq   int
}

func (p *wailsPlatform) startup(ctx context.Context) {
	p.ctx.Store(&ctx)
	runtime.EventsOn(ctx, notifyEvent, func(data ...any) {
		if n, ok := readNotification(data); ok {
			go p.notify(ctx, n)
		}
	})
}

// notify shows a desktop notification (notify.go); the service starts with
// the first one. A desktop without one logs why nothing was shown.
func (p *wailsPlatform) notify(ctx context.Context, n notification) {
	p.notifyMu.Lock()
	defer p.notifyMu.Unlock()
	if !p.notifyReady {
		if err := runtime.InitializeNotifications(ctx); err != nil {
			log.Printf("desktop notifications unavailable: %v", err)
			return
		}
		if ok, err := runtime.RequestNotificationAuthorization(ctx); err != nil || !ok {
			log.Printf("desktop notifications not allowed: %v", err)
			return
		}
		p.notifyReady = true
	}
	p.notifySeq++
	id := "crewagent-" + strconv.Itoa(p.notifySeq)
	if err := runtime.SendNotification(ctx, runtime.NotificationOptions{ID: id, Title: n.Title, Body: n.Body}); err != nil {
		log.Printf("desktop notification not shown: %v", err)
	}
}

func (p *wailsPlatform) context() (context.Context, bool) {
	c := p.ctx.Load()
	if c == nil {
		return nil, false
	}
	return *c, true
}

// ChooseFolder implements Dialogs with the native folder picker, starting in
// defaultDir (the user's home folder when empty). A cancelled dialog returns "".
func (p *wailsPlatform) ChooseFolder(title, defaultDir string) (string, error) {
	ctx, ok := p.context()
	if !ok {
		return "", errs.New(errs.Dialog, "the window is not ready yet")
	}
	if defaultDir == "" {
		defaultDir, _ = os.UserHomeDir()
	}
	dir, err := runtime.OpenDirectoryDialog(ctx, runtime.OpenDialogOptions{
		Title:                title,
		DefaultDirectory:     defaultDir,
		CanCreateDirectories: true,
	})
	if err != nil {
		return "", errs.Wrap(errs.Dialog, err, "the folder dialog failed: "+err.Error())
	}
	return dir, nil
}

// ChooseFile implements Dialogs with the native open-file dialog, starting in
// defaultDir (the user's home folder when empty). A cancelled dialog returns "".
func (p *wailsPlatform) ChooseFile(title, defaultDir string, filters []FileFilter) (string, error) {
	ctx, ok := p.context()
	if !ok {
		return "", errs.New(errs.Dialog, "the window is not ready yet")
	}
	if defaultDir == "" {
		defaultDir, _ = os.UserHomeDir()
	}
	opts := runtime.OpenDialogOptions{Title: title, DefaultDirectory: defaultDir}
	for _, f := range filters {
		opts.Filters = append(opts.Filters, runtime.FileFilter{DisplayName: f.Name, Pattern: f.Pattern})
	}
	path, err := runtime.OpenFileDialog(ctx, opts)
	if err != nil {
		return "", errs.Wrap(errs.Dialog, err, "the file dialog failed: "+err.Error())
	}
	return path, nil
}

// SaveFile implements Dialogs with the native save dialog, in the user's
// home folder, proposing defaultName. A cancelled dialog returns "".
func (p *wailsPlatform) SaveFile(title, defaultName string, filters []FileFilter) (string, error) {
	ctx, ok := p.context()
	if !ok {
		return "", errs.New(errs.Dialog, "the window is not ready yet")
	}
	home, _ := os.UserHomeDir()
	opts := runtime.SaveDialogOptions{Title: title, DefaultDirectory: home, DefaultFilename: defaultName, CanCreateDirectories: true}
	for _, f := range filters {
		opts.Filters = append(opts.Filters, runtime.FileFilter{DisplayName: f.Name, Pattern: f.Pattern})
	}
	path, err := runtime.SaveFileDialog(ctx, opts)
	if err != nil {
		return "", errs.Wrap(errs.Dialog, err, "the save dialog failed: "+err.Error())
	}
	return path, nil
}

// Emit implements events.Emitter; events before startup are dropped.
func (p *wailsPlatform) Emit(name string, payload any) {
	if ctx, ok := p.context(); ok {
		runtime.EventsEmit(ctx, name, payload)
	}
}
