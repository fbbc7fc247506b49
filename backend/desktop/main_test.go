package desktop

import (
	"os"
	"testing"
)

// The tests of this package were written for a runtime that writes without
// asking: they run in full-auto (CREWAGENT_APPROVE) unless a test chooses
// another mode. The approval tests set it themselves.
func TestMain(m *testing.M) {
	os.Setenv("CREWAGENT_APPROVE", "full-auto")
	os.Exit(m.Run())
}
