package desktop

import (
	"context"

	"crewagent/backend/app"
)

// Setup is what a first run needs to know about this computer
// (bridge/setup.ts).
type Setup struct{ s *app.Session }

// LocalServers lists the OpenAI-compatible servers running on this computer
// (Ollama, LM Studio, vLLM on their default ports) with their models; it
// takes at most a second or two and never fails.
func (x *Setup) LocalServers() []app.LocalServer {
	return x.s.Runtime().DetectLocalServers(context.Background())
}

// DefaultProjectLocation is the folder a new project is proposed in; it is
// created with the project when it does not exist yet.
func (x *Setup) DefaultProjectLocation() string { return x.s.DefaultProjectLocation() }
