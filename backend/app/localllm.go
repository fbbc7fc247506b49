package app

import (
	"context"

	"crewagent/backend/llm"
)

// LocalCandidate is a place where a local OpenAI-compatible server usually
// listens; LocalServer one that answered.
type (
	LocalCandidate = llm.LocalCandidate
	LocalServer    = llm.LocalServer
)

// DetectLocalServers asks each candidate (Options.LocalCandidates, by
// default llm.DefaultLocalCandidates) for its models at once
// (llm.DetectLocal).
func (rt *Runtime) DetectLocalServers(ctx context.Context) []LocalServer {
	cands := rt.opts.LocalCandidates
	if cands == nil {
		cands = llm.DefaultLocalCandidates
	}
	return llm.DetectLocal(ctx, cands)
}
