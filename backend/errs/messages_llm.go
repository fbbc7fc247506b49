package errs

// The model server: Test connection in Settings.
var _ = messages(map[string]string{
	"llm.probe.chooseTheModel": "The server answers and serves 1 model: choose the model to use.",
	"llm.probe.chooseModel":    "The server answers and serves {{n}} models: choose the model to use.",
	"llm.probe.noModels":       "The server answers but lists no model: download or load one there, or type its name.",
	"llm.probe.connected":      "Connected: {{model}} answered in {{latency}}",
})
