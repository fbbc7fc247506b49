package llm

import (
	"fmt"
	"hash/fnv"
	"strconv"
)

// OpenAI function names must match ^[a-zA-Z0-9_-]{1,64}$ while runtime tool names contain
// dots ("fs.read"). Names go out in their wire form and come back through a NameMap built
// from the request's tools, so the mapping is exact even for names that already contain
// underscores ("ui.ask_user" <-> "ui_ask_user").

const maxWireName = 64

func validWireByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// ValidWireName reports whether name is accepted by OpenAI as a function name.
func ValidWireName(name string) bool {
	if name == "" || len(name) > maxWireName {
		return false
	}
	for i := 0; i < len(name); i++ {
		if !validWireByte(name[i]) {
			return false
		}
	}
	return true
}

// WireName returns the OpenAI-safe form of a tool name: every byte outside [a-zA-Z0-9_-]
// becomes '_' ("fs.read" -> "fs_read"), and a name longer than 64 bytes is cut and given a
// hash suffix so different long names stay different. Valid names are returned unchanged.
func WireName(name string) string {
	if ValidWireName(name) {
		return name
	}
	if name == "" {
		return "_"
	}
	b := []byte(name)
	for i, c := range b {
		if !validWireByte(c) {
			b[i] = '_'
		}
	}
	if len(b) > maxWireName {
		h := fnv.New32a()
		h.Write([]byte(name))
		suffix := fmt.Sprintf("_%08x", h.Sum32())
		b = append(b[:maxWireName-len(suffix)], suffix...)
	}
	return string(b)
}

// NameMap maps runtime tool names to wire names and back, for one request. Names that are
// already valid keep their form; the others take WireName, and when that collides with
// another tool's wire name a numeric suffix ("_2", "_3", ...) keeps them apart.
type NameMap struct {
	toWire   map[string]string
	fromWire map[string]string
}

// NewNameMap builds the mapping for the given tool names (in request order).
func NewNameMap(names ...string) *NameMap {
	m := &NameMap{toWire: map[string]string{}, fromWire: map[string]string{}}
	for _, n := range names {
		if ValidWireName(n) {
			if _, taken := m.fromWire[n]; !taken {
				m.toWire[n] = n
				m.fromWire[n] = n
			}
		}
	}
	for _, n := range names {
		if _, done := m.toWire[n]; done {
			continue
		}
		w := WireName(n)
		for i := 2; ; i++ {
			if _, taken := m.fromWire[w]; !taken {
				break
			}
			suffix := "_" + strconv.Itoa(i)
			base := WireName(n)
			if len(base)+len(suffix) > maxWireName {
				base = base[:maxWireName-len(suffix)]
			}
			w = base + suffix
		}
		m.toWire[n] = w
		m.fromWire[w] = n
	}
	return m
}

// Wire returns the wire name of a runtime name (WireName for names outside the map).
func (m *NameMap) Wire(name string) string {
	if w, ok := m.toWire[name]; ok {
		return w
	}
	return WireName(name)
}

// Name returns the runtime name for a wire name the model sent. A name outside the map is
// returned unchanged (a model may echo the runtime name itself; the tool host then
// reports an unknown tool if it is neither).
func (m *NameMap) Name(wire string) string {
	if n, ok := m.fromWire[wire]; ok {
		return n
	}
	return wire
}
