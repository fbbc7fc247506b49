package fsx

import "time"

// TimeFormat is the format of every timestamp the runtime writes to its files
// (createdAt, updatedAt, ts, ...): RFC 3339 in UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z07:00"

// Stamp formats t in TimeFormat.
func Stamp(t time.Time) string { return t.UTC().Format(TimeFormat) }

// Now is the current time in TimeFormat.
func Now() string { return Stamp(time.Now()) }
