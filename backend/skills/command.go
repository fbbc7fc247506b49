package skills

import (
	"bytes"
	"encoding/json"
	"strings"

	"crewagent/backend/conversation"
)

// ToolDef describes skill.activate or skill.deactivate for the model, in
// the tool host's shape (name, description, JSON-schema parameters).
type ToolDef struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

const toolSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "description": "The skill's name, as listed under SKILLS in the system prompt."}
  },
  "required": ["name"],
  "additionalProperties": false
}`

// ToolDefs returns the definitions of skill.activate and skill.deactivate.
func ToolDefs() []ToolDef {
	return []ToolDef{
		{Name: conversation.ToolSkillActivate, Parameters: json.RawMessage(toolSchema),
			Description: "Activate a skill from the SKILLS list before working on a task it describes. Its instructions " +
				"arrive in the next message and stay in effect until it is deactivated; its files become readable under @skill/<name>/."},
		{Name: conversation.ToolSkillDeactivate, Parameters: json.RawMessage(toolSchema),
			Description: "Deactivate an active skill whose instructions no longer apply."},
	}
}

// ToolArgs decodes the arguments of skill.activate or skill.deactivate
// ({"name": "..."}); malformed arguments are E_BAD_ARGUMENTS.
func ToolArgs(raw json.RawMessage) (string, error) {
	var a struct {
		Name *string `json:"name"`
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if len(bytes.TrimSpace(raw)) == 0 || dec.Decode(&a) != nil || a.Name == nil {
		return "", errorf(CodeBadArguments, `the arguments must be {"name": "<skill>"}`)
	}
	name := strings.TrimSpace(*a.Name)
	if name == "" {
		return "", errorf(CodeBadArguments, `"name" is required: the name of a skill from the skills list`)
	}
	return name, nil
}

// Command is a skill command typed by the user in the composer.
type Command struct {
	// Off is true for "/skill off NAME" (deactivate).
	Off bool
	// Name is the skill; "" for a bare "/skill" (pick a skill to activate)
	// or "/skill off" (pick an active skill to deactivate).
	Name string
}
