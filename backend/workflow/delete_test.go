package workflow

import (
	"os"
	"testing"

	"crewagent/backend/errs"
)

func TestDeleteConversationRuns(t *testing.T) {
	e := newEnv(t)
	a1, err := e.svc.CreateRun(e.pkgID, "write-brief", "", "")
	if err != nil {
		t.Fatal(err)
	}
	a2, err := e.svc.CreateRun(e.pkgID, "write-brief", "", a1.ConversationID) // a second run in the same conversation
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.svc.CreateRun(e.pkgID, "write-brief", "", "")
	if err != nil {
		t.Fatal(err)
	}
	ids, err := e.svc.DeleteConversationRuns(a1.ConversationID)
	if err != nil || len(ids) != 2 || ids[0] != a1.RunID || ids[1] != a2.RunID {
		t.Fatalf("deleted %v, %v", ids, err)
	}
	for _, id := range ids {
		if _, err := os.Stat(e.svc.runDir(id)); !os.IsNotExist(err) {
			t.Fatalf("run folder %s: %v", id, err)
		}
		if _, err := e.svc.Get(id); errs.CodeOf(err) != CodeRunNotFound {
			t.Fatalf("run %s: %v", id, err)
		}
	}
	if list, _ := e.svc.List(); len(list) != 1 || list[0].RunID != b.RunID {
		t.Fatalf("runs left: %+v", list)
	}
	if _, err := os.Stat(e.svc.statePath(b.RunID)); err != nil {
		t.Fatal(err)
	}
	if ids, err := e.svc.DeleteConversationRuns(a1.ConversationID); err != nil || len(ids) != 0 {
		t.Fatalf("again: %v %v", ids, err)
	}
}
