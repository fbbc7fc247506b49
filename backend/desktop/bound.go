package desktop

import (
	"context"

	"crewagent/backend/app"
	"crewagent/backend/approval"
	"crewagent/backend/checkpoint"
	"crewagent/backend/conversation"
	"crewagent/backend/convlog"
	"crewagent/backend/engine"
	"crewagent/backend/events"
	"crewagent/backend/packages"
	"crewagent/backend/project"
	"crewagent/backend/settings"
	"crewagent/backend/tools"
	"crewagent/backend/workflow"
)

// System is the product itself (bridge/system.ts).
type System struct{ s *app.Session }

// Version returns the product version.
func (x *System) Version() string { return app.Version }

// HomeDir returns the runtime home (settings, project data, recent projects).
func (x *System) HomeDir() string { return x.s.Runtime().Home() }

// EventTypes describes the payload of every event pushed to the window; it
// exists so that their TypeScript types are generated with the bindings
// (src/bridge/events.ts uses them). It returns zero values.
func (x *System) EventTypes() events.Payloads { return events.Payloads{} }

// Projects opens, creates and closes projects (bridge/projects.ts).
type Projects struct {
	s       *app.Session
	dialogs Dialogs
}

// Recent lists recently opened projects, most recent first.
func (x *Projects) Recent() ([]project.RecentProject, error) { return x.s.RecentProjects() }

// ForgetRecent removes a folder from the recent projects list.
func (x *Projects) ForgetRecent(root string) error { return x.s.ForgetRecent(root) }

// Open opens a project folder and makes it current (E_PROJECT_LOCKED when
// another process holds it; E_PROJECT_MOVED, the question in words, when it
// looks like a project moved from another path).
func (x *Projects) Open(root string) (app.ProjectInfo, error) { return x.s.OpenProject(root) }

// OpenMoved answers the question of a moved project and opens it: keep takes
// its conversations along, otherwise the folder becomes a new project.
func (x *Projects) OpenMoved(root string, keep bool) (app.ProjectInfo, error) {
	return x.s.OpenMovedProject(root, keep)
}

// Create makes the folder parentDir/name and opens it as a project.
func (x *Projects) Create(parentDir, name string) (app.ProjectInfo, error) {
	return x.s.CreateProject(parentDir, name)
}

// Current returns the open project, or null when none is open.
func (x *Projects) Current() (*app.ProjectInfo, error) { return x.s.CurrentProject(), nil }

// Close closes the current project (no error when none is open).
func (x *Projects) Close() error { return x.s.CloseProject() }

// ChooseFolder shows the native folder picker; "" means the user cancelled.
func (x *Projects) ChooseFolder() (string, error) {
	return x.dialogs.ChooseFolder("Choose a folder", "")
}

// Conversations are the open project's conversations (bridge/conversations.ts).
type Conversations struct {
	s       *app.Session
	dialogs Dialogs
}

// List returns the conversations, most recently active first.
func (x *Conversations) List() ([]conversation.ConversationMeta, error) {
	return current(x.s, (*app.Workspace).ListConversations)
}

// Get returns the index record of one conversation.
func (x *Conversations) Get(id string) (conversation.ConversationMeta, error) {
	return current(x.s, func(ws *app.Workspace) (conversation.ConversationMeta, error) { return ws.GetConversation(id) })
}

// Create adds an empty conversation.
func (x *Conversations) Create(title string) (conversation.ConversationMeta, error) {
	return current(x.s, func(ws *app.Workspace) (conversation.ConversationMeta, error) { return ws.CreateConversation(title) })
}

// Rename sets a conversation's title and returns its record.
func (x *Conversations) Rename(id, title string) (conversation.ConversationMeta, error) {
	return current(x.s, func(ws *app.Workspace) (conversation.ConversationMeta, error) {
		return ws.RenameConversation(id, title)
	})
}

// Delete stops the conversation's reply, then removes it entirely.
func (x *Conversations) Delete(id string) error {
	return currentDo(x.s, func(ws *app.Workspace) error { _, err := ws.DeleteConversation(id); return err })
}

// Fork copies a conversation: whole, up to a message, or at a checkpoint.
func (x *Conversations) Fork(id, atMessageID, checkpoint string) (conversation.ConversationMeta, error) {
	return current(x.s, func(ws *app.Workspace) (conversation.ConversationMeta, error) {
		return ws.ForkConversation(id, atMessageID, checkpoint)
	})
}

// Rewind restores the project's files to before a user message (what:
// files, conversation or both) and/or forks the conversation there; files
// changed since are kept unless listed in forcePaths. With dryRun it only
// says what would be restored and kept.
func (x *Conversations) Rewind(id, toMessageID, what string, forcePaths []string, dryRun bool) (app.RewindResult, error) {
	return current(x.s, func(ws *app.Workspace) (app.RewindResult, error) {
		r, err := ws.Rewind(app.RewindRequest{ConversationID: id, To: toMessageID, What: what, ForcePaths: forcePaths, DryRun: dryRun})
		if err != nil || r == nil {
			return app.RewindResult{}, err
		}
		return *r, nil
	})
}

// UndoChange puts back the files one tool call changed; files changed since
// are kept unless listed in forcePaths. With dryRun it only says what would
// be restored and kept.
func (x *Conversations) UndoChange(id, toolCallID string, forcePaths []string, dryRun bool) (checkpoint.Result, error) {
	return current(x.s, func(ws *app.Workspace) (checkpoint.Result, error) {
		r, err := ws.UndoChange(app.UndoChangeRequest{ConversationID: id, ToolCallID: toolCallID, ForcePaths: forcePaths, DryRun: dryRun})
		if err != nil || r == nil {
			return checkpoint.Result{}, err
		}
		return *r, nil
	})
}

// Checkpoint records a named position at the end of a conversation.
func (x *Conversations) Checkpoint(id, name string) (conversation.Checkpoint, error) {
	return current(x.s, func(ws *app.Workspace) (conversation.Checkpoint, error) { return ws.CreateCheckpoint(id, name) })
}

// Load returns the newest limit entries of a conversation, each with its view.
func (x *Conversations) Load(id string, limit int) (app.ConversationPage, error) {
	return current(x.s, func(ws *app.Workspace) (app.ConversationPage, error) { return ws.LoadConversation(id, limit) })
}

// LoadOlder returns up to limit entries before the entry beforeID.
func (x *Conversations) LoadOlder(id, beforeID string, limit int) (app.ConversationPage, error) {
	return current(x.s, func(ws *app.Workspace) (app.ConversationPage, error) { return ws.LoadOlderEntries(id, beforeID, limit) })
}

// Search finds conversations by title and message text.
func (x *Conversations) Search(query string) ([]convlog.SearchHit, error) {
	return current(x.s, func(ws *app.Workspace) ([]convlog.SearchHit, error) { return ws.SearchConversations(query) })
}

// ReadToolResult reads the full output of a tool result kept as a preview.
func (x *Conversations) ReadToolResult(conversationID, messageID string) (app.ToolResultView, error) {
	return current(x.s, func(ws *app.Workspace) (app.ToolResultView, error) {
		return ws.ReadToolResult(conversationID, messageID)
	})
}

// SwitchBranch shows version index (from 0) of the branch point that follows
// the entry after ("" for the start).
func (x *Conversations) SwitchBranch(id, after string, index int) error {
	return currentDo(x.s, func(ws *app.Workspace) error { return ws.SwitchBranch(id, after, index) })
}

// Export renders a conversation as Markdown ("md") or JSON ("json").
func (x *Conversations) Export(id, format string) (app.Export, error) {
	return current(x.s, func(ws *app.Workspace) (app.Export, error) { return ws.ExportConversation(id, format) })
}

// ExportToFile asks where to save an export of a conversation and writes it
// there; it returns the file, or "" when the user cancelled.
func (x *Conversations) ExportToFile(id, format string) (string, error) {
	return current(x.s, func(ws *app.Workspace) (string, error) { return exportToFile(ws, x.dialogs, id, format) })
}

// Chat sends, stops and previews (bridge/chat.ts).
type Chat struct{ s *app.Session }

// Send starts answering a message in the background; progress arrives as events.
func (x *Chat) Send(req app.SendRequest) error {
	return currentDo(x.s, func(ws *app.Workspace) error { _, err := ws.Send(req); return err })
}

// Edit replaces a sent message by new text and answers it, as a new version.
func (x *Chat) Edit(req app.EditRequest) error {
	return currentDo(x.s, func(ws *app.Workspace) error { return ws.Edit(req) })
}

// Regenerate answers a message again, as a new version.
func (x *Chat) Regenerate(req app.RegenerateRequest) error {
	return currentDo(x.s, func(ws *app.Workspace) error { return ws.Regenerate(req) })
}

// Stop cancels the reply or run turn of a conversation; false when none ran.
func (x *Chat) Stop(conversationID string) (bool, error) {
	return current(x.s, func(ws *app.Workspace) (bool, error) { return ws.Stop(conversationID), nil })
}

// Streaming lists the conversations with a reply or run turn in progress.
func (x *Chat) Streaming() ([]string, error) {
	return current(x.s, func(ws *app.Workspace) ([]string, error) { return ws.Streaming(), nil })
}

// SetMode switches a conversation's mode (and agent) and returns its record.
func (x *Chat) SetMode(conversationID, mode, agentID string) (conversation.ConversationMeta, error) {
	return current(x.s, func(ws *app.Workspace) (conversation.ConversationMeta, error) {
		return ws.SetMode(conversationID, mode, agentID)
	})
}

// Preview returns exactly what the next request would send, without calling the LLM.
func (x *Chat) Preview(conversationID, mode, agentID string) (*engine.Preview, error) {
	return current(x.s, func(ws *app.Workspace) (*engine.Preview, error) {
		return ws.Preview(context.Background(), conversationID, mode, agentID)
	})
}

// Agents lists the agents Agent mode can speak as.
func (x *Chat) Agents() (app.AgentList, error) {
	return current(x.s, func(ws *app.Workspace) (app.AgentList, error) { return ws.ListAgents(), nil })
}

// AnswerApproval answers the approval request of a tool call (the card's
// buttons): decision is allow, allow-conversation, allow-project or deny;
// reason reaches the model with a denial.
func (x *Chat) AnswerApproval(conversationID, toolCallID, decision, reason string) error {
	return currentDo(x.s, func(ws *app.Workspace) error {
		return ws.AnswerApproval(conversationID, toolCallID, approval.Answer{Decision: decision, Reason: reason})
	})
}

// ApprovalMode returns a conversation's approval mode and where it comes from.
func (x *Chat) ApprovalMode(conversationID string) (app.ApprovalMode, error) {
	return current(x.s, func(ws *app.Workspace) (app.ApprovalMode, error) { return ws.ApprovalMode(conversationID) })
}

// SetApprovalMode records a conversation's approval mode and returns it.
func (x *Chat) SetApprovalMode(conversationID, mode string) (app.ApprovalMode, error) {
	return current(x.s, func(ws *app.Workspace) (app.ApprovalMode, error) {
		if err := ws.SetApprovalMode(conversationID, mode); err != nil {
			return app.ApprovalMode{}, err
		}
		return ws.ApprovalMode(conversationID)
	})
}

// Runs starts and follows workflow runs (bridge/runs.ts).
type Runs struct{ s *app.Session }

// Start creates a run and starts its first turn in the background.
func (x *Runs) Start(req app.StartRunRequest) (workflow.Run, error) {
	return current(x.s, func(ws *app.Workspace) (workflow.Run, error) { return ws.StartRun(req) })
}

// AnswerQuestion answers a run's pending question and runs the next turn.
func (x *Runs) AnswerQuestion(runID, widgetID string, answer tools.WidgetAnswer) error {
	return currentDo(x.s, func(ws *app.Workspace) error { return ws.AnswerQuestion(runID, widgetID, answer) })
}

// ConversationRun returns a conversation's latest run, or null when it has none.
func (x *Runs) ConversationRun(conversationID string) (*workflow.RunStatus, error) {
	return current(x.s, func(ws *app.Workspace) (*workflow.RunStatus, error) { return ws.ConversationRun(conversationID) })
}

// Status returns a run's progress.
func (x *Runs) Status(runID string) (*workflow.RunStatus, error) {
	return current(x.s, func(ws *app.Workspace) (*workflow.RunStatus, error) { return ws.RunStatus(runID) })
}

// List returns every run of the open project, oldest first.
func (x *Runs) List() ([]workflow.Run, error) { return current(x.s, (*app.Workspace).ListRuns) }

// Log returns the end of a run's execution log.
func (x *Runs) Log(runID string, limit int) (workflow.RunLogView, error) {
	return current(x.s, func(ws *app.Workspace) (workflow.RunLogView, error) { return ws.RunLog(runID, limit) })
}

// ReadArtifact reads a project file read-only by its project-relative path.
func (x *Runs) ReadArtifact(path string) (app.ArtifactView, error) {
	return current(x.s, func(ws *app.Workspace) (app.ArtifactView, error) { return ws.ReadArtifact(path) })
}

// Packages installs, removes and chooses packages (bridge/packages.ts).
type Packages struct {
	s       *app.Session
	dialogs Dialogs
}

// List lists the installed packages with the open project's package.
func (x *Packages) List() (app.PackagesView, error) { return x.s.ListPackages() }

// Import validates and installs a package file or folder (by its full path).
// A package whose id and version are installed already is not imported: the
// result names it (exists) so that the user can be asked.
func (x *Packages) Import(path string) (app.PackageImport, error) {
	return x.s.Runtime().ImportPackage(path, false)
}

// ImportReplacing imports a package file or folder, replacing an installed
// package of the same id and version (after the user confirmed it).
func (x *Packages) ImportReplacing(path string) (app.PackageImport, error) {
	return x.s.Runtime().ImportPackage(path, true)
}

// ChooseFile shows the native file picker for packages; "" means cancelled.
func (x *Packages) ChooseFile() (string, error) {
	return x.dialogs.ChooseFile("Choose a package file", "", []FileFilter{
		{Name: "Packages (*.bmad, *.zip)", Pattern: "*.bmad;*.zip"}, {Name: "All files", Pattern: "*"}})
}

// SetActive binds the open project to an installed package.
func (x *Packages) SetActive(packageID string) (app.ProjectInfo, error) {
	return x.s.SetActivePackage(packageID)
}

// Active describes the open project's package: its workflows and agents.
func (x *Packages) Active() (app.ActivePackageView, error) {
	return current(x.s, func(ws *app.Workspace) (app.ActivePackageView, error) { return ws.ActivePackage(), nil })
}

// Remove uninstalls a package; returns the open project afterwards (null without one).
func (x *Packages) Remove(packageID string) (*app.ProjectInfo, error) {
	return x.s.RemovePackage(packageID)
}

// InstallDemo installs the bundled demo package again.
func (x *Packages) InstallDemo() (packages.Installed, error) { return x.s.InstallDemo() }

// Settings reads, saves and tests the settings (bridge/settings.ts).
type Settings struct{ s *app.Session }

// Get returns the settings for the settings screen.
func (x *Settings) Get() (app.SettingsView, error) { return x.s.Runtime().GetSettings() }

// Save validates and saves settings edited in the UI.
func (x *Settings) Save(in settings.Settings) (app.SettingsView, error) {
	return x.s.Runtime().SaveSettings(in)
}

// TestConnection sends one tiny request with the settings as edited.
func (x *Settings) TestConnection(in settings.Settings) (app.ConnectionResult, error) {
	return x.s.Runtime().TestConnection(in)
}

// Models lists the endpoints of the settings with the models a conversation
// may choose (the composer's model chip); it asks each server at once and
// takes at most a few seconds.
func (x *Chat) Models() []app.EndpointModels {
	return x.s.Runtime().Models(context.Background())
}

// SelectModel chooses the endpoint (by name; "" or "default" for the
// settings' own) and model of a conversation's answers, and returns its
// record.
func (x *Chat) SelectModel(conversationID, endpoint, model string) (conversation.ConversationMeta, error) {
	return current(x.s, func(ws *app.Workspace) (conversation.ConversationMeta, error) {
		if err := ws.SelectModel(conversationID, endpoint, model); err != nil {
			return conversation.ConversationMeta{}, err
		}
		return ws.GetConversation(conversationID)
	})
}

// Usage returns what the project's conversations used and cost (the
// inspector and the meter's tooltip).
func (x *Conversations) Usage() (app.UsageReport, error) {
	return current(x.s, func(ws *app.Workspace) (app.UsageReport, error) { return ws.Usage() })
}
