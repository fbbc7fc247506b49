package workflow

import (
	"bytes"
	"crewagent/backend/packages"
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// StateSchema validates workflow state frontmatter. It is immutable and safe for
// concurrent use.
type StateSchema struct {
	schema  *jsonschema.Schema
	printer *message.Printer
}

// CompileStateSchema compiles the embedded workflow-frontmatter schema (formats asserted).
func CompileStateSchema() (*StateSchema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(packages.WorkflowStateSchema()))
	if err != nil {
		return nil, fmt.Errorf("workflow state schema: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://crewagent.local/schemas/workflow-frontmatter.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("workflow state schema: %w", err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("workflow state schema: %w", err)
	}
	return &StateSchema{schema: sch, printer: message.NewPrinter(language.English)}, nil
}

// SchemaProblem is one schema violation: a JSON pointer into the frontmatter and a message.
type SchemaProblem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

func (p SchemaProblem) String() string {
	if p.Pointer == "" {
		return p.Message
	}
	return p.Pointer + ": " + p.Message
}

// Validate checks a JSON-compatible frontmatter map; nil means valid. Empty timestamps
// (an updatedAt of "") count as absent (packages.WithoutEmptyTimestamps).
func (s *StateSchema) Validate(fm map[string]any) []SchemaProblem {
	b, err := json.Marshal(packages.WithoutEmptyTimestamps(fm))
	if err != nil {
		return []SchemaProblem{{Message: "the frontmatter cannot be checked: " + err.Error()}}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return []SchemaProblem{{Message: "the frontmatter cannot be checked: " + err.Error()}}
	}
	err = s.schema.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []SchemaProblem{{Message: err.Error()}}
	}
	var out []SchemaProblem
	s.flatten(ve, &out)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out
}

func (s *StateSchema) flatten(e *jsonschema.ValidationError, out *[]SchemaProblem) {
	if len(e.Causes) == 0 {
		*out = append(*out, SchemaProblem{Pointer: packages.JSONPointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(s.printer)})
		return
	}
	for _, c := range e.Causes {
		s.flatten(c, out)
	}
}
