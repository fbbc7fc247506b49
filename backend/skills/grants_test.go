package skills

import (
	"encoding/json"
	"reflect"
	"testing"

	"crewagent/backend/conversation"
)

// The command prefixes of an activated skill's allowed-tools are recorded
// in the log with the activation: the conversation's state grants them
// while the skill is active (through a compaction too), and no longer once
// it is deactivated.
func TestCommandGrantsFollowTheLog(t *testing.T) {
	xlsx := Skill{Name: "xlsx", Source: SourceProject, Path: "/p/.crewagent/skills/xlsx/SKILL.md",
		AllowedTools: []string{"Read", "Bash(python3:*)", "Bash(libreoffice --headless *)"}, AllowedToolsSet: true}
	notes := Skill{Name: "notes", Source: SourceProject, Path: "/p/.crewagent/skills/notes/SKILL.md"}
	var log []*conversation.Entry
	add := func(es ...conversation.Entry) {
		for i := range es {
			log = append(log, &es[i])
		}
	}
	add(ActivationEntries(xlsx, ByModel, "call-1", "xlsx body", "e1", "m1")...)
	add(ActivationEntries(notes, ByUser, "", "notes body", "e2", "m2")...)
	want := []string{"shell.run(python3)", "shell.run(libreoffice --headless *)"}
	if got := Derive(log).CommandGrants(); !reflect.DeepEqual(got, want) {
		t.Fatalf("grants %v, want %v", got, want)
	}
	// A compaction keeps the state it recorded.
	snap := Derive(log).Snapshot()
	data, _ := json.Marshal(map[string]any{"skills": snap})
	compacted := []*conversation.Entry{{Type: conversation.TypeEvt, ID: "c1", Event: conversation.EventCompaction, Data: data}}
	if got := Derive(compacted).CommandGrants(); !reflect.DeepEqual(got, want) {
		t.Fatalf("after a compaction: grants %v, want %v", got, want)
	}
	if got := Derive(log).Clone().CommandGrants(); !reflect.DeepEqual(got, want) {
		t.Fatalf("clone: grants %v", got)
	}
	d := DeactivationEntry("xlsx", ByUser, "", "e3")
	add(d)
	if got := Derive(log).CommandGrants(); len(got) != 0 {
		t.Fatalf("after deactivation: grants %v", got)
	}
}
