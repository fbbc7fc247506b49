package workflow

import (
	"time"

	"crewagent/backend/fsx"
)

// stamp formats the timestamps written here (fsx.TimeFormat).
func stamp(t time.Time) string { return fsx.Stamp(t) }
