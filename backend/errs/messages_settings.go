package errs

// Values of the settings out of range, and what is used meanwhile.
var _ = messages(map[string]string{
	"settings.positive":              "must be a positive integer, got {{got}}",
	"settings.nonNegative":           "must be 0 or more, got {{got}}",
	"settings.nonNegativeOff":        "must be 0 (off) or more, got {{got}}",
	"settings.warnInstead":           "{{problem}}: {{instead}} until it is corrected",
	"settings.warnCorrect":           "{{problem}}: correct it in Settings or in settings.json",
	"settings.instead.defaultTokens": "the default of {{n}} tokens is used",
	"settings.instead.defaultBytes":  "the default of {{n}} bytes is used",
	"settings.instead.default":       "the default of {{n}} is used",
	"settings.instead.zero":          "0 is used",
	"settings.instead.zeroOff":       "0 (off) is used",
	"settings.instead.clientDefault": "the client's default is used",
	"settings.instead.auto":          "auto is used",
	"settings.instead.serverDefault": "the server's default is used",
	"settings.instead.noHandover":    "handing a turn to another conversation (conv.create, conv.send) is off, as with 0",
})
