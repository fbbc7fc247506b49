package workflow

import (
	"crewagent/backend/compression"
	"crewagent/backend/conversation"
)

// ScreenInfo describes a run for the conversation screen: the nodes of its
// graph (titles, types, step files) and its progress, so that its steps can
// be told in words (conversation.RunInfo).
func (s *Service) ScreenInfo(runID string) (*conversation.RunInfo, error) {
	rc, err := s.open(runID)
	if err != nil {
		return nil, err
	}
	st, err := s.readState(runID)
	if err != nil {
		return nil, err
	}
	info := &conversation.RunInfo{Nodes: make(map[string]conversation.RunNode, len(rc.graph.Nodes)),
		StepsCompleted: append([]string(nil), st.StepsCompleted...), Complete: st.Complete(rc.graph), Current: st.EffectiveNode(rc.graph)}
	for _, n := range rc.graph.Nodes {
		info.Nodes[n.ID] = conversation.RunNode{Title: n.Title, Type: n.Type, File: n.File}
	}
	return info, nil
}

// Views decodes what each entry is for the conversation screen, with the
// steps of workflow runs told in words (the titles of their graph's nodes)
// and summaries shown as the screen shows them.
func (s *Service) Views(entries []*conversation.Entry) []conversation.EntryView {
	runs := map[string]*conversation.RunInfo{}
	seen := map[string]bool{}
	for _, e := range entries {
		if e.RunID == "" || seen[e.RunID] {
			continue
		}
		seen[e.RunID] = true
		if info, err := s.ScreenInfo(e.RunID); err == nil {
			runs[e.RunID] = info
		}
	}
	return conversation.ViewsWith(entries, conversation.ViewOptions{Runs: runs, Summary: compression.ForScreen})
}
