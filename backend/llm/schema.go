package llm

import (
	"encoding/json"
	"strings"
)

// Tool parameter schemas are JSON Schema. Every endpoint gets them without the keywords
// that only describe the schema document ($schema, $id, $comment): they tell the model
// nothing and some providers refuse them. An endpoint that refused a keyword (and Gemini's
// OpenAI-compatible endpoint from the start) gets plain schemas: the subset every provider
// takes (type, description, properties, required, items, enum, format, the numeric and
// length bounds, anyOf), local $ref inlined and const turned into a one-value enum.

// metaKeywords are removed from every schema.
var metaKeywords = []string{"$schema", "$id", "$comment"}

// plainSchemaDrops are removed from plain schemas (after $ref and const were rewritten).
var plainSchemaDrops = []string{
	"$schema", "$id", "$comment", "$ref", "$defs", "definitions", "$anchor", "$dynamicRef",
	"additionalProperties", "propertyNames", "patternProperties", "unevaluatedProperties",
	"unevaluatedItems", "dependentRequired", "dependentSchemas", "if", "then", "else", "not",
	"const", "examples", "default", "title", "contentMediaType", "contentEncoding",
	"readOnly", "writeOnly", "deprecated",
}

// schemaNameMaps are keywords whose value maps names to schemas (the names are not
// keywords).
var schemaNameMaps = map[string]bool{"properties": true, "$defs": true, "definitions": true, "patternProperties": true, "dependentSchemas": true}

// schemaData are keywords whose value is data, not a schema.
var schemaData = map[string]bool{"enum": true, "required": true, "format": true, "pattern": true, "description": true}

// maxRefDepth bounds the inlining of (possibly recursive) $ref.
const maxRefDepth = 8

// cleanSchema returns params without the meta keywords, or as a plain schema. Parameters
// that are not a JSON object are returned unchanged (the server judges them).
func cleanSchema(params json.RawMessage, plain bool) json.RawMessage {
	s := string(params)
	if !plain && !strings.Contains(s, `"$schema"`) && !strings.Contains(s, `"$id"`) && !strings.Contains(s, `"$comment"`) {
		return params
	}
	var root map[string]any
	if json.Unmarshal(params, &root) != nil || root == nil {
		return params
	}
	var out any
	if plain {
		out = plainNode(root, root, 0)
	} else {
		out = dropKeywords(root, metaKeywords)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return params
	}
	return b
}

// dropKeywords removes keywords from a schema at every depth.
func dropKeywords(v any, keywords []string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, val := range x {
			if contains(keywords, k) {
				continue
			}
			if schemaNameMaps[k] {
				out[k] = mapValues(val, func(s any) any { return dropKeywords(s, keywords) })
				continue
			}
			out[k] = dropKeywords(val, keywords)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = dropKeywords(e, keywords)
		}
		return out
	}
	return v
}

func plainNode(v any, root map[string]any, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			if target := resolveRef(root, ref); target != nil && depth < maxRefDepth {
				merged := make(map[string]any, len(target)+len(x))
				for k, val := range target {
					merged[k] = val
				}
				for k, val := range x {
					if k != "$ref" {
						merged[k] = val
					}
				}
				return plainNode(merged, root, depth+1)
			}
			// An unresolvable or too deep reference: any value of its description.
			out := map[string]any{}
			if d, ok := x["description"].(string); ok {
				out["description"] = d
			}
			return out
		}
		out := make(map[string]any, len(x))
		for k, val := range x {
			switch {
			case k == "const":
				if _, has := x["enum"]; !has {
					out["enum"] = []any{val}
				}
				if _, has := x["type"]; !has {
					out["type"] = jsonType(val)
				}
			case contains(plainSchemaDrops, k):
			case k == "properties":
				out[k] = mapValues(val, func(s any) any { return plainNode(s, root, depth) })
			case k == "type":
				out[k] = plainType(val, out)
			case schemaData[k]:
				out[k] = val // values, not schemas
			default:
				out[k] = plainNode(val, root, depth)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = plainNode(e, root, depth)
		}
		return out
	}
	return v
}

// plainType turns a type list (["string","null"]) into one type, marking it nullable.
func plainType(v any, node map[string]any) any {
	if _, ok := v.(string); ok {
		return v
	}
	list, ok := v.([]any)
	if !ok {
		return "object" // not a type: the model is told no more than an object
	}
	var types []any
	for _, t := range list {
		if t == "null" {
			node["nullable"] = true
			continue
		}
		if _, ok := t.(string); ok {
			types = append(types, t)
		}
	}
	if len(types) == 0 {
		return "string"
	}
	return types[0]
}

// jsonType names the JSON Schema type of a decoded value.
func jsonType(v any) string {
	switch x := v.(type) {
	case bool:
		return "boolean"
	case float64:
		if x == float64(int64(x)) {
			return "integer"
		}
		return "number"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case nil:
		return "null"
	}
	return "string"
}

// resolveRef finds a local reference ("#/$defs/Name", "#/definitions/Name") in root.
func resolveRef(root map[string]any, ref string) map[string]any {
	path, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = root
	for _, part := range strings.Split(path, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	m, _ := cur.(map[string]any)
	return m
}

func mapValues(v any, f func(any) any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := make(map[string]any, len(m))
	for k, s := range m {
		out[k] = f(s)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
