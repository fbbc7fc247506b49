package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/llm/fakellm"
	"crewagent/backend/project"
)

// Deleting a conversation deletes the workflow runs that talk in it (their runsIndex.json
// rows and runs/<id>/ folders) and says so; runs of other conversations stay.
func TestDeleteConversationDeletesItsRuns(t *testing.T) {
	r := newRunEnv(t)
	start := func() runOutput {
		r.srv.Enqueue(fakellm.Text("Tell me about the idea."))
		res := r.run(t, "run", "start", "--workflow", "write-brief", "--json", "an idea")
		var out runOutput
		if res.code != 0 || json.Unmarshal([]byte(res.stdout), &out) != nil {
			t.Fatalf("run start: %+v", res)
		}
		return out
	}
	doomed, other := start(), start()
	p, err := project.Open(r.home, r.root)
	if err != nil {
		t.Fatal(err)
	}
	runDir := func(id string) string { return filepath.Join(p.DataDir, "runs", id) }
	if _, err := os.Stat(runDir(doomed.RunID)); err != nil {
		t.Fatal(err)
	}

	res := r.run(t, "conversations", "delete", doomed.ConversationID)
	if res.code != ExitOK || !strings.Contains(res.stdout, "its workflow run "+doomed.RunID) || res.stderr != "" {
		t.Fatalf("delete: %+v", res)
	}
	if _, err := os.Stat(runDir(doomed.RunID)); !os.IsNotExist(err) {
		t.Fatalf("the run folder is still there (%v)", err)
	}
	index, _ := os.ReadFile(filepath.Join(p.DataDir, "runsIndex.json"))
	if strings.Contains(string(index), doomed.RunID) || !strings.Contains(string(index), other.RunID) {
		t.Fatalf("runsIndex.json: %s", index)
	}
	if res := r.run(t, "run", "list"); strings.Contains(res.stdout, doomed.RunID) || !strings.Contains(res.stdout, other.RunID) {
		t.Fatalf("run list: %+v", res)
	}
	oneLineErr(t, r.run(t, "run", "continue", doomed.RunID, "go on"), 1, `no run "`+doomed.RunID+`"`)
	if _, err := os.Stat(runDir(other.RunID)); err != nil {
		t.Fatal("another conversation's run was removed")
	}

	// --json lists the runs removed; a conversation without runs says so.
	res = r.run(t, "--json", "conversations", "delete", other.ConversationID)
	var out struct {
		Deleted string   `json:"deleted"`
		Runs    []string `json:"runs"`
	}
	if res.code != ExitOK || json.Unmarshal([]byte(res.stdout), &out) != nil || out.Deleted != other.ConversationID ||
		len(out.Runs) != 1 || out.Runs[0] != other.RunID {
		t.Fatalf("delete --json: %+v", res)
	}
	r.srv.Enqueue(fakellm.Text("hi"))
	chat := r.run(t, "chat", "hello")
	convID := strings.TrimSpace(strings.TrimPrefix(chat.stderr, "conversation "))
	if res := r.run(t, "conversations", "delete", convID); res.code != ExitOK || !strings.Contains(res.stdout, "no workflow runs") {
		t.Fatalf("delete a chat: %+v", res)
	}
}
