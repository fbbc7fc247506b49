package frontmatter

import (
	"fmt"
	"math"
	"time"
)

// ToJSON converts a value decoded from YAML (Unmarshal into an any) into
// values encoding/json can marshal: mappings with string keys, lists,
// strings, booleans, numbers and nil. A timestamp becomes its RFC 3339 text
// and any other scalar its fmt.Sprint text (mapping keys too). A number that
// JSON cannot hold (NaN, ±Inf) and, when maxDepth > 0, values nested deeper
// than maxDepth levels are errors.
func ToJSON(v any, maxDepth int) (any, error) {
	return toJSON(v, 0, maxDepth)
}

func toJSON(v any, depth, maxDepth int) (any, error) {
	if maxDepth > 0 && depth > maxDepth {
		return nil, fmt.Errorf("values are nested deeper than %d levels", maxDepth)
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := toJSON(e, depth+1, maxDepth)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			c, err := toJSON(e, depth+1, maxDepth)
			if err != nil {
				return nil, err
			}
			out[fmt.Sprint(k)] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			c, err := toJSON(e, depth+1, maxDepth)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("the number %v cannot be represented in JSON", x)
		}
		return x, nil
	case time.Time:
		return x.Format(time.RFC3339Nano), nil
	case nil, string, bool, int, int64, uint64:
		return x, nil
	default:
		return fmt.Sprint(x), nil
	}
}
