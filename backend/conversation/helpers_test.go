package conversation

// EndsUnfinished reports whether a log read while no reply was running ends
// waiting for a reply that will not come (Ending, for a log that is not a
// fork cut at a message).
func EndsUnfinished(views []EntryView) bool {
	state, _ := Ending(views, "")
	return state == EndUnfinished
}
