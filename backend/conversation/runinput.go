package conversation

import "strings"

// RunInputHeader opens a user message sent during a workflow run: the
// message is RunInputHeader + the node id + "\n" + the user's text.
const RunInputHeader = "USER_INPUT\n- forNodeId: "

// RunInput renders a user message sent during a run while it is at node
// forNodeID.
func RunInput(forNodeID, text string) string {
	return RunInputHeader + forNodeID + "\n" + text
}

// ParseRunInput returns the user's own text of a message sent during a run
// and the node it was sent for; ok is false (and text the content itself)
// when the content does not start with RunInputHeader.
func ParseRunInput(content string) (text, forNodeID string, ok bool) {
	rest, ok := strings.CutPrefix(content, RunInputHeader)
	if !ok {
		return content, "", false
	}
	forNodeID, text, _ = strings.Cut(rest, "\n")
	return text, forNodeID, true
}

// RunInputText returns the user's own text of a message sent during a run
// (the content itself when it does not start with RunInputHeader).
func RunInputText(content string) string {
	text, _, _ := ParseRunInput(content)
	return text
}
