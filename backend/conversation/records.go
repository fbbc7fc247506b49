package conversation

import (
	"path"
	"strings"
)

// Runtime records: a workflow run writes what compaction must keep of it as
// system messages (partType "record") whose text starts with one of these,
// naming the workflow and the run:
//
//	NODE_COMPLETE <node> (<title>) — workflow <id>, run <id>
//	ARTIFACT_SAVED <path> — workflow <id>, run <id>, node <id>
const (
	RecordNodeComplete  = "NODE_COMPLETE"
	RecordArtifactSaved = "ARTIFACT_SAVED"
)

// RecordWords says a runtime record in words for a person ("Completed the
// step “Capture the idea”", "Saved idea-notes.md"); other text comes back as
// it is.
func RecordWords(text string) string {
	t := strings.TrimSpace(text)
	body, _, _ := strings.Cut(t, " — ")
	switch {
	case strings.HasPrefix(body, RecordNodeComplete+" "):
		rest := strings.TrimSpace(strings.TrimPrefix(body, RecordNodeComplete+" "))
		if i := strings.Index(rest, " ("); i >= 0 && strings.HasSuffix(rest, ")") {
			return "Completed the step “" + rest[i+2:len(rest)-1] + "”"
		}
		return "Completed a step of the run"
	case strings.HasPrefix(body, RecordArtifactSaved+" "):
		p := strings.TrimSpace(strings.TrimPrefix(body, RecordArtifactSaved+" "))
		if name := path.Base(p); name != "." && name != "/" && !strings.HasPrefix(name, "@") && name != "" {
			return "Saved the file " + name
		}
		return "Saved a file of the run"
	}
	return text
}
