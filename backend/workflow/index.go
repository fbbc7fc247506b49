package workflow

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"crewagent/backend/events"
	"crewagent/backend/fsx"
)

// Names inside the project data directory.
const (
	// IndexFile is the runs index, <dataDir>/runsIndex.json.
	IndexFile = "runsIndex.json"
	// RunsDir holds runs/<runId>/state/.
	RunsDir = "runs"
	// ExecLogRel is the execution log inside a run's state folder.
	ExecLogRel = "logs/execution.jsonl"
)

// Phases of a run.
const (
	PhaseIdle        = "idle"         // created, no turn yet
	PhaseRunning     = "running"      // a turn is in progress
	PhaseWaitingUser = "waiting-user" // the model stopped and waits for the user
	PhaseCompleted   = "completed"    // the workflow is complete
	PhaseFailed      = "failed"       // the last turn ended with an error; continue resumes
)

// RunError is the error that ended the last turn of a run.
type RunError = events.Error

// Run is one row of runsIndex.json. CurrentNodeID, StepsCompleted and Artifacts mirror the
// state file (the state file is the source of truth; the row is refreshed whenever the
// runtime sees it change).
type Run struct {
	RunID          string    `json:"runId"`
	PackageID      string    `json:"packageId"`
	WorkflowID     string    `json:"workflowId"`
	ActiveAgentID  string    `json:"activeAgentId"`
	ConversationID string    `json:"conversationId"`
	Phase          string    `json:"phase"`
	CurrentNodeID  string    `json:"currentNodeId"`
	StepsCompleted []string  `json:"stepsCompleted"`
	Artifacts      []string  `json:"artifacts"`
	LastError      *RunError `json:"lastError,omitempty"`
	CreatedAt      string    `json:"createdAt"`
	UpdatedAt      string    `json:"updatedAt"`
}

func (r Run) clone() Run {
	r.StepsCompleted = slices.Clone(r.StepsCompleted)
	r.Artifacts = slices.Clone(r.Artifacts)
	if r.StepsCompleted == nil {
		r.StepsCompleted = []string{}
	}
	if r.Artifacts == nil {
		r.Artifacts = []string{}
	}
	if r.LastError != nil {
		e := *r.LastError
		r.LastError = &e
	}
	return r
}

// indexDoc is the content of runsIndex.json.
type indexDoc struct {
	SchemaVersion int   `json:"schemaVersion"`
	Runs          []Run `json:"runs"`
}

const indexSchemaVersion = 1

// runIndex reads and writes runsIndex.json; writes are atomic and serialised.
type runIndex struct {
	path string
	mu   sync.Mutex
}

func newRunIndex(dataDir string) *runIndex {
	return &runIndex{path: filepath.Join(dataDir, IndexFile)}
}

func (x *runIndex) read() (*indexDoc, error) {
	b, err := os.ReadFile(x.path)
	if errors.Is(err, fs.ErrNotExist) {
		return &indexDoc{SchemaVersion: indexSchemaVersion, Runs: []Run{}}, nil
	}
	if err != nil {
		return nil, wrap(CodeIndexCorrupt, err, "cannot read "+x.path)
	}
	var d indexDoc
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, wrap(CodeIndexCorrupt, err, x.path+" is not valid JSON; repair or delete it (the run states under runs/ are kept)")
	}
	if d.Runs == nil {
		d.Runs = []Run{}
	}
	return &d, nil
}

// list returns every run in creation order.
func (x *runIndex) list() ([]Run, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	d, err := x.read()
	if err != nil {
		return nil, err
	}
	out := make([]Run, len(d.Runs))
	for i, r := range d.Runs {
		out[i] = r.clone()
	}
	return out, nil
}

// get returns the run with the given id.
func (x *runIndex) get(id string) (Run, error) {
	runs, err := x.list()
	if err != nil {
		return Run{}, err
	}
	for _, r := range runs {
		if r.RunID == id {
			return r, nil
		}
	}
	return Run{}, errorf(CodeRunNotFound, "no run %q in this project (see \"run list\")", id)
}

// update changes the run with the given id through fn (which may also add it: when no run
// has the id, fn gets a zero Run whose RunID is set) and writes the index. It returns the
// row as written and whether anything changed.
func (x *runIndex) update(id string, create bool, fn func(*Run)) (Run, bool, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	d, err := x.read()
	if err != nil {
		return Run{}, false, err
	}
	i := slices.IndexFunc(d.Runs, func(r Run) bool { return r.RunID == id })
	var cur Run
	switch {
	case i >= 0:
		cur = d.Runs[i].clone()
	case create:
		cur = Run{RunID: id}.clone()
	default:
		return Run{}, false, errorf(CodeRunNotFound, "no run %q in this project (see \"run list\")", id)
	}
	before, _ := json.Marshal(cur)
	fn(&cur)
	cur.RunID = id
	cur = cur.clone()
	after, _ := json.Marshal(cur)
	if i >= 0 && string(before) == string(after) {
		return cur, false, nil
	}
	if i >= 0 {
		d.Runs[i] = cur
	} else {
		d.Runs = append(d.Runs, cur)
	}
	d.SchemaVersion = indexSchemaVersion
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return Run{}, false, err
	}
	if err := os.MkdirAll(filepath.Dir(x.path), 0o755); err != nil {
		return Run{}, false, err
	}
	if err := fsx.WriteFile(x.path, append(b, '\n'), 0o644); err != nil {
		return Run{}, false, wrap(CodeIndexCorrupt, err, "cannot write "+x.path)
	}
	return cur, true, nil
}

// removeWhere removes the rows drop selects and writes the index; it returns them.
func (x *runIndex) removeWhere(drop func(Run) bool) ([]Run, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	d, err := x.read()
	if err != nil {
		return nil, err
	}
	var removed []Run
	kept := d.Runs[:0]
	for _, r := range d.Runs {
		if drop(r) {
			removed = append(removed, r.clone())
		} else {
			kept = append(kept, r)
		}
	}
	if len(removed) == 0 {
		return nil, nil
	}
	d.Runs = kept
	d.SchemaVersion = indexSchemaVersion
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := fsx.WriteFile(x.path, append(b, '\n'), 0o644); err != nil {
		return nil, wrap(CodeIndexCorrupt, err, "cannot write "+x.path)
	}
	return removed, nil
}
