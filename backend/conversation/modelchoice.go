package conversation

// EventModelSelected records the endpoint and model a conversation chose
// (the composer's model chip, chat --endpoint/--model): data {"endpoint",
// "model"}, mirrored in its index record (ConversationMeta.Endpoint, Model).
// "" in either keeps the settings' default.
const EventModelSelected = "model_selected"

// ModelChoice is the data of EventModelSelected.
type ModelChoice struct {
	Endpoint string `json:"endpoint"`
	Model    string `json:"model"`
}
