package conversation

import "testing"

func TestRecordWords(t *testing.T) {
	tests := map[string]string{
		"NODE_COMPLETE capture-idea (Capture the idea) — workflow write-brief, run 2037-ab":                   "Completed the step “Capture the idea”",
		"NODE_COMPLETE end — workflow write-brief, run 2037-ab":                                               "Completed a step of the run",
		"ARTIFACT_SAVED @project/artifacts/idea-notes.md — workflow write-brief, run 2037, node capture-idea": "Saved the file idea-notes.md",
		"ARTIFACT_SAVED @project — workflow w, run r, node n":                                                 "Saved a file of the run",
		"Just a pinned message": "Just a pinned message",
		"NODE_COMPLETEcapture":  "NODE_COMPLETEcapture",
	}
	for in, want := range tests {
		if got := RecordWords(in); got != want {
			t.Errorf("RecordWords(%q) = %q, want %q", in, got, want)
		}
	}
}
