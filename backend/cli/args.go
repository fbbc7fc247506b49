package cli

import (
	"fmt"
	"strings"
)

// flagSpec says whether a flag takes a value.
type flagSpec struct {
	name     string
	hasValue bool
}

// knownFlags lists every flag the command line accepts, global or per command.
// Flags may stand before or after the command words.
var knownFlags = []flagSpec{
	{"home", true}, {"project", true}, {"json", false}, {"verbose", false},
	{"conversation", true}, {"mode", true}, {"agent", true}, {"retry", false},
	{"at", true}, {"checkpoint", true}, {"format", true},
	{"workflow", true}, {"package", true},
	{"focus", true}, {"all", false}, {"skill", true}, {"replace", false}, {"approve", true},
	{"to", true}, {"files", false}, {"both", false}, {"force", false},
	{"model", true}, {"endpoint", true}, {"attach", true},
	{"moved", false}, {"new-project", false},
	{"help", false},
}

// rewindWords are the command words after which --conversation is a switch
// (what to rewind) rather than a conversation id.
var rewindWords = []string{"conversations", "rewind"}

// isRewind reports whether the first two words of args (--conversation
// taken as a switch) are those of the rewind command.
func isRewind(args []string) bool {
	var words []string
	for i := 0; i < len(args) && len(words) < 2; i++ {
		a := args[i]
		if a == "--" {
			words = append(words, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			words = append(words, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") || name == "conversation" {
			continue
		}
		if spec, ok := lookupFlag(name); ok && spec.hasValue {
			i++
		}
	}
	return len(words) >= 2 && words[0] == rewindWords[0] && words[1] == rewindWords[1]
}

// parsed is the result of splitting the arguments into flags and words.
type parsed struct {
	flags map[string]string
	words []string
}

func (p *parsed) has(name string) bool   { _, ok := p.flags[name]; return ok }
func (p *parsed) get(name string) string { return p.flags[name] }

// parseArgs splits args into flags (--name VALUE, --name=VALUE, or a bare
// boolean) and positional words. "--" ends flag parsing; "-" is a word.
func parseArgs(args []string) (*parsed, error) {
	p := &parsed{flags: map[string]string{}}
	rewind := isRewind(args)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			p.words = append(p.words, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			p.words = append(p.words, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		value, hasInline := "", false
		if eq := strings.IndexByte(name, '='); eq >= 0 {
			name, value, hasInline = name[:eq], name[eq+1:], true
		}
		if name == "h" {
			name = "help"
		}
		spec, ok := lookupFlag(name)
		if !ok {
			return nil, fmt.Errorf("unknown flag %q (run 'crewagent help' for the list)", a)
		}
		if rewind && name == "conversation" {
			spec.hasValue = false
		}
		if _, dup := p.flags[name]; dup {
			return nil, fmt.Errorf("flag --%s given twice", name)
		}
		switch {
		case !spec.hasValue && hasInline:
			return nil, fmt.Errorf("flag --%s takes no value", name)
		case !spec.hasValue:
			p.flags[name] = "true"
		case hasInline:
			p.flags[name] = value
		default:
			if i+1 >= len(args) {
				return nil, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			p.flags[name] = args[i]
		}
	}
	return p, nil
}

func lookupFlag(name string) (flagSpec, bool) {
	for _, f := range knownFlags {
		if f.name == name {
			return f, true
		}
	}
	return flagSpec{}, false
}

// allowOnly returns an error when a flag outside allowed (plus the global
// ones) was given.
func (p *parsed) allowOnly(cmd string, allowed ...string) error {
	ok := map[string]bool{"home": true, "project": true, "json": true, "verbose": true, "help": true,
		"moved": true, "new-project": true}
	for _, a := range allowed {
		ok[a] = true
	}
	for name := range p.flags {
		if !ok[name] {
			return fmt.Errorf("flag --%s does not apply to '%s'", name, cmd)
		}
	}
	return nil
}
