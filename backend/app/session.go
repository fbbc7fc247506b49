package app

import (
	"os"
	"sync"

	"crewagent/backend/errs"
	"crewagent/backend/packages"
	"crewagent/backend/project"
)

// ProjectInfo is an open project as the window sees it.
type ProjectInfo = project.Info

// Info returns the project as the window sees it.
func (ws *Workspace) Info() ProjectInfo { return ws.Project().Info() }

// Session is the window's runtime with its current project: one project is
// open at a time, with the writer lock, its watchers running, bound to the
// default package when it has none.
type Session struct {
	rt *Runtime

	mu sync.Mutex
	ws *Workspace
}

// NewSession returns a session over rt without a project.
func NewSession(rt *Runtime) *Session { return &Session{rt: rt} }

// Runtime returns the session's runtime.
func (s *Session) Runtime() *Runtime { return s.rt }

// errNoProject is the failure of the calls that need an open project.
func errNoProject() error {
	return errs.Msg(errs.NoProject, "app.noProject", nil)
}

// Current returns the open project's workspace, or E_NO_PROJECT.
func (s *Session) Current() (*Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ws == nil {
		return nil, errNoProject()
	}
	return s.ws, nil
}

// CurrentProject returns the open project, or nil when none is open.
func (s *Session) CurrentProject() *ProjectInfo {
	ws, err := s.Current()
	if err != nil {
		return nil
	}
	info := ws.Info()
	return &info
}

// OpenProject opens the project folder root, makes it the current project and
// puts it first in the recent list. Its store is opened with the writer
// lock: a project open in another crewagent process fails with
// E_PROJECT_LOCKED and leaves no project open. A folder that looks like a
// project moved from another path fails with E_PROJECT_MOVED, whose message is
// the question to ask the user ("this looks like project X moved from PATH —
// use its conversations?"); OpenMovedProject answers it.
func (s *Session) OpenProject(root string) (ProjectInfo, error) {
	return s.openProject(root, project.MovedAsk)
}

// OpenMovedProject opens a folder that looks like a project moved from another
// path: keep takes the project's conversations along to this folder, otherwise
// the folder becomes a new project.
func (s *Session) OpenMovedProject(root string, keep bool) (ProjectInfo, error) {
	if keep {
		return s.openProject(root, project.MovedKeep)
	}
	return s.openProject(root, project.MovedNew)
}

func (s *Session) openProject(root string, moved project.Moved) (ProjectInfo, error) {
	p, err := project.OpenWith(s.rt.home, root, project.OpenOptions{Moved: moved})
	if err != nil {
		return ProjectInfo{}, err
	}
	return s.setCurrent(p)
}

// DefaultProjectLocation is the folder a new project is proposed in (see
// project.DefaultParent); "" when the user's home folder is unknown.
func (s *Session) DefaultProjectLocation() string {
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return project.DefaultParent(home)
}

// CreateProject makes the folder parentDir/name, opens it as a project and
// makes it current. The default location is created when it is missing.
func (s *Session) CreateProject(parentDir, name string) (ProjectInfo, error) {
	if err := project.ValidateName(name); err != nil {
		return ProjectInfo{}, err
	}
	if home, err := os.UserHomeDir(); err == nil {
		if err := project.EnsureDefaultParent(home, parentDir); err != nil {
			return ProjectInfo{}, err
		}
	}
	p, err := project.Create(s.rt.home, parentDir, name)
	if err != nil {
		return ProjectInfo{}, err
	}
	return s.setCurrent(p)
}

func (s *Session) setCurrent(p *project.Project) (ProjectInfo, error) {
	s.mu.Lock()
	ws := s.ws
	s.mu.Unlock()
	if ws != nil && ws.Project().ID == p.ID {
		ws.mu.Lock()
		ws.project = p // as read now
		ws.mu.Unlock()
	} else {
		// Release the previous project first: reopening it must not find our own lock.
		if err := s.CloseProject(); err != nil {
			s.rt.log.Warn("closing the previous project", "error", err)
		}
		var err error
		if ws, err = s.rt.OpenProject(p, OpenOptions{Watch: true, StartMCP: true}); err != nil {
			return ProjectInfo{}, err
		}
		s.mu.Lock()
		s.ws = ws
		s.mu.Unlock()
	}
	ws.BindDefaultPackage()
	if p.MovedFrom != "" { // the old folder is gone: the recent list names the new one only
		if err := project.Forget(s.rt.home, p.MovedFrom); err != nil {
			s.rt.log.Warn("updating the recent projects list", "error", err)
		}
	}
	if err := project.Touch(s.rt.home, p); err != nil {
		// The recent list is a convenience: the project is open all the same.
		s.rt.log.Warn("updating the recent projects list", "error", err)
	}
	info := ws.Info()
	info.Notice = p.Notice // said once, by the call that decided it
	return info, nil
}

// CloseProject closes the current project: its tasks are stopped and its
// store is closed (no error when none is open).
func (s *Session) CloseProject() error {
	s.mu.Lock()
	ws := s.ws
	s.ws = nil
	s.mu.Unlock()
	if ws == nil {
		return nil
	}
	return ws.Close()
}

// Shutdown stops every task, waits for the demo installation and closes the
// current project.
func (s *Session) Shutdown() {
	s.rt.Shutdown()
	if err := s.CloseProject(); err != nil {
		s.rt.log.Warn("closing the project", "error", err)
	}
}

// RecentProjects lists recently opened projects, most recent first; folders
// that no longer exist are listed with exists=false.
func (s *Session) RecentProjects() ([]project.RecentProject, error) {
	list, err := project.Recent(s.rt.home)
	if list == nil && err == nil {
		list = []project.RecentProject{}
	}
	return list, err
}

// ForgetRecent removes a folder from the recent projects list.
func (s *Session) ForgetRecent(root string) error { return project.Forget(s.rt.home, root) }

// activePackageID is the open project's package ("" without one).
func (s *Session) activePackageID() string {
	if ws, err := s.Current(); err == nil {
		return ws.activePackageID()
	}
	return ""
}

// ListPackages lists the installed packages with the open project's package.
func (s *Session) ListPackages() (PackagesView, error) { return s.rt.ListPackages(s.activePackageID()) }

// RemovePackage uninstalls a package. When it is the open project's active
// package the project is left with none (other projects that name it report
// it as missing when opened). Refused while a reply or run turn runs in the
// open project. Returns the open project afterwards (nil when none is open).
func (s *Session) RemovePackage(packageID string) (*ProjectInfo, error) {
	ws, _ := s.Current()
	if ws != nil && len(ws.tasks.All()) > 0 {
		return nil, errs.Msg(errs.Busy, "app.busyRemovingPackage", nil)
	}
	if err := s.rt.packages.Remove(packageID); err != nil {
		return nil, err
	}
	if ws == nil {
		return nil, nil
	}
	if err := ws.clearActivePackage(packageID); err != nil {
		return nil, err
	}
	info := ws.Info()
	return &info, nil
}

// SetActivePackage binds the open project to an installed package.
func (s *Session) SetActivePackage(packageID string) (ProjectInfo, error) {
	ws, err := s.Current()
	if err != nil {
		return ProjectInfo{}, err
	}
	if err := ws.SetActivePackage(packageID); err != nil {
		return ProjectInfo{}, err
	}
	return ws.Info(), nil
}

// InstallDemo installs the bundled demo package again.
func (s *Session) InstallDemo() (packages.Installed, error) { return s.rt.InstallDemo() }
