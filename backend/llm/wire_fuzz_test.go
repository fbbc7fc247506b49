package llm

import (
	"encoding/json"
	"testing"
)

// FuzzCachedTokensOf: any payload gives a count that is never negative, and a count only
// when the payload is JSON.
func FuzzCachedTokensOf(f *testing.F) {
	f.Add([]byte(`{"usage":{"prompt_tokens_details":{"cached_tokens":1920}}}`))
	f.Add([]byte(`{"usage":{"prompt_cache_hit_tokens":64,"prompt_cache_miss_tokens":36}}`))
	f.Add([]byte(`{"timings":{"cache_n":-5}}`))
	f.Add([]byte(`{"usage":{"cached_tokens":"many"}}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		n, ok := cachedTokensOf(payload)
		if n < 0 || (ok && !json.Valid(payload)) || (!ok && n != 0) {
			t.Fatalf("%q: %d %v", payload, n, ok)
		}
	})
}

// FuzzCleanSchema: any parameters come out as they went in or as a JSON object, and a plain
// schema holds no keyword outside the plain subset (names of properties aside).
func FuzzCleanSchema(f *testing.F) {
	f.Add([]byte(`{"$schema":"x","type":"object","properties":{"a":{"$ref":"#/$defs/a"}},"$defs":{"a":{"const":1}}}`), true)
	f.Add([]byte(`{"properties":{"$ref":{"type":"string"}},"$ref":"#"}`), true)
	f.Add([]byte(`{"$defs":{"x":{"$ref":"#/$defs/x"}},"$ref":"#/$defs/x"}`), true)
	f.Add([]byte(`[1,2]`), false)
	f.Fuzz(func(t *testing.T, params []byte, plain bool) {
		out := cleanSchema(params, plain)
		if string(out) == string(params) {
			return
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatalf("%q became %q: %v", params, out, err)
		}
		if plain {
			checkPlain(t, v, params)
		}
	})
}

func checkPlain(t *testing.T, v any, in []byte) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if contains(plainSchemaDrops, k) {
				t.Fatalf("%q kept %q", in, k)
			}
			if schemaData[k] {
				continue
			}
			if k == "properties" {
				if props, ok := val.(map[string]any); ok {
					for _, p := range props {
						checkPlain(t, p, in)
					}
					continue
				}
			}
			checkPlain(t, val, in)
		}
	case []any:
		for _, e := range x {
			checkPlain(t, e, in)
		}
	}
}
