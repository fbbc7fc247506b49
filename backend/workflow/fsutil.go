package workflow

import "time"

// timeFormat is the format of the timestamps written here (RFC 3339, UTC, milliseconds).
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

func stamp(t time.Time) string { return t.UTC().Format(timeFormat) }
