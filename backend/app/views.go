package app

import (
	"crewagent/backend/compression"
	"crewagent/backend/conversation"
)

// views decodes what each entry is for the conversation screen, with the
// steps of workflow runs told in words (the titles of their graph's nodes)
// and summaries shown as the screen shows them.
func (ws *Workspace) views(entries []*conversation.Entry) []conversation.EntryView {
	runs := map[string]*conversation.RunInfo{}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.RunID == "" || seen[e.RunID] {
			continue
		}
		seen[e.RunID] = true
		if info, err := ws.runs.ScreenInfo(e.RunID); err == nil {
			runs[e.RunID] = info
		}
	}
	return conversation.ViewsWith(entries, conversation.ViewOptions{Runs: runs, Summary: compression.ForScreen})
}
