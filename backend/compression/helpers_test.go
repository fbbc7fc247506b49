package compression

// Score rates one line of a message for the digest (see the package doc of
// the digest); who is user, assistant, tool or summary. Exported for tests
// and the fidelity benchmark's explanation.
func Score(line, who string) float64 {
	return scoreOf(analyse(line, nil), who)
}
