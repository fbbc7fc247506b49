package packages

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed schemas/*.json
var schemaFiles embed.FS

// Schema file names (in schemas/), one per kind of package file.
const (
	schemaBmad         = "bmad.schema.json"
	schemaAgents       = "agents.schema.json"
	schemaGraph        = "workflow-graph.schema.json"
	schemaStep         = "step-frontmatter.schema.json"
	schemaWorkflowMeta = "workflow-frontmatter.schema.json"
)

var schemaNames = []string{schemaBmad, schemaAgents, schemaGraph, schemaStep, schemaWorkflowMeta}

// WorkflowStateSchema returns the v1.1 workflow-frontmatter schema, which also
// describes a run's state file (runs/<runId>/state/workflow.md).
func WorkflowStateSchema() []byte {
	b, err := schemaFiles.ReadFile("schemas/" + schemaWorkflowMeta)
	if err != nil {
		panic("packages: embedded schema missing: " + err.Error())
	}
	return b
}

// schemaSet holds the five v1.1 schemas, compiled once.
type schemaSet struct {
	byName  map[string]*jsonschema.Schema
	printer *message.Printer
}

func compileSchemas() (*schemaSet, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	c.UseLoader(noLoader{})
	urls := map[string]string{}
	for _, name := range schemaNames {
		b, err := schemaFiles.ReadFile("schemas/" + name)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		url := "https://crewagent.local/schemas/" + name
		if m, ok := doc.(map[string]any); ok {
			if id, ok := m["$id"].(string); ok && id != "" {
				url = id
			}
		}
		if err := c.AddResource(url, doc); err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		urls[name] = url
	}
	s := &schemaSet{byName: map[string]*jsonschema.Schema{}, printer: message.NewPrinter(language.English)}
	for _, name := range schemaNames {
		sch, err := c.Compile(urls[name])
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", name, err)
		}
		s.byName[name] = sch
	}
	return s, nil
}

// noLoader refuses every external reference: the embedded schemas are self-contained.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("external schema %q is not available offline", url)
}

// validate checks a decoded JSON value (from jsonschema.UnmarshalJSON) and returns one problem
// per failing leaf, sorted by pointer.
func (s *schemaSet) validate(name, file string, v any) []Problem {
	err := s.byName[name].Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{File: file, Message: "schema validation failed: " + err.Error()}}
	}
	var out []Problem
	s.flatten(ve, file, &out)
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pointer != out[j].Pointer {
			return out[i].Pointer < out[j].Pointer
		}
		return out[i].Message < out[j].Message
	})
	// The same leaf can be reached through several references; report it once.
	dedup := out[:0]
	for i, p := range out {
		if i > 0 && p.File == out[i-1].File && p.Pointer == out[i-1].Pointer && p.Message == out[i-1].Message {
			continue
		}
		dedup = append(dedup, p)
	}
	return dedup
}

func (s *schemaSet) flatten(e *jsonschema.ValidationError, file string, out *[]Problem) {
	switch e.ErrorKind.(type) {
	case *kind.OneOf, *kind.AnyOf:
		// Name the alternatives in one message instead of one problem per branch.
		var alts []string
		for _, c := range e.Causes {
			var leaves []Problem
			s.flatten(c, file, &leaves)
			for _, l := range leaves {
				msg := l.Message
				if l.Pointer != JSONPointer(e.InstanceLocation) {
					msg = l.Pointer + ": " + msg
				}
				alts = append(alts, msg)
			}
		}
		msg := "does not match any allowed form"
		if len(alts) > 0 {
			msg += " (" + strings.Join(alts, "; or ") + ")"
		}
		if k, ok := e.ErrorKind.(*kind.OneOf); ok && len(k.Subschemas) > 1 {
			msg = "matches more than one allowed form"
		}
		*out = append(*out, Problem{File: file, Pointer: JSONPointer(e.InstanceLocation), Message: msg})
		return
	}
	if len(e.Causes) == 0 {
		*out = append(*out, Problem{File: file, Pointer: JSONPointer(e.InstanceLocation), Message: s.message(e.ErrorKind)})
		return
	}
	for _, c := range e.Causes {
		s.flatten(c, file, out)
	}
}

// JSONPointer renders a JSON pointer ("" for the document itself).
func JSONPointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	var sb strings.Builder
	for _, t := range tokens {
		sb.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		sb.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return sb.String()
}

// ptr builds a pointer from path tokens of mixed type.
func ptr(tokens ...any) string {
	s := make([]string, len(tokens))
	for i, t := range tokens {
		s[i] = fmt.Sprint(t)
	}
	return JSONPointer(s)
}

// schemaValue converts a JSON-compatible Go value into the form the validator expects.
func schemaValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// message says what a failing keyword found. A pattern is shown as it is
// written in the schema (the validator's own message escapes it again, which
// doubles every backslash of a regular expression).
func (s *schemaSet) message(k jsonschema.ErrorKind) string {
	if p, ok := k.(*kind.Pattern); ok {
		return "'" + p.Got + "' does not match pattern " + p.Want
	}
	return k.LocalizedString(s.printer)
}
