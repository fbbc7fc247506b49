package workflow

import "crewagent/backend/conversation"

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
