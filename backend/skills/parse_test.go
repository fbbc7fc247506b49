package skills

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// problemText joins the problems as "severity: message" lines.
func problemText(ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(string(p.Severity) + ": " + p.Message + "\n")
	}
	return b.String()
}

func TestParse(t *testing.T) {
	tests := []struct {
		name   string
		folder string
		in     string
		// want: name, description, body (when not "-") and whether usable
		wantName, wantDesc, wantBody string
		usable                       bool
		// problems each must appear (as a substring) in the problem text
		problems []string
		check    func(t *testing.T, p Parsed)
	}{
		{
			name: "minimal", folder: "pdf",
			in:       "---\nname: pdf\ndescription: Work with PDF files.\n---\n\n# PDF\n\nDo it.\n",
			wantName: "pdf", wantDesc: "Work with PDF files.", wantBody: "# PDF\n\nDo it.", usable: true,
		},
		{
			name: "crlf and bom", folder: "pdf",
			in:       "\xEF\xBB\xBF---\r\nname: pdf\r\ndescription: Work with PDF files.\r\n---\r\n\r\nLine one.\r\nLine two.\r\n",
			wantName: "pdf", wantDesc: "Work with PDF files.", wantBody: "Line one.\nLine two.", usable: true,
		},
		{
			name: "stray carriage returns before line ends", folder: "x",
			in:       "---\r\r\nname: x\r\ndescription: d\r\n---\r\nA\r\r\nB\rC\r\n",
			wantName: "x", wantDesc: "d", wantBody: "A\nB\rC", usable: true,
		},
		{
			name: "closing with dots and trailing spaces", folder: "x",
			in:       "---  \nname: x\ndescription: d\n...\nbody",
			wantName: "x", wantDesc: "d", wantBody: "body", usable: true,
		},
		{
			name: "folded multi-line description", folder: "pdf",
			in:       "---\nname: pdf\ndescription: >\n  Extract text\n  and tables.\n---\nb",
			wantName: "pdf", wantDesc: "Extract text and tables.", wantBody: "b", usable: true,
		},
		{
			name: "missing name takes the folder", folder: "brand-voice",
			in:       "---\ndescription: Tone of voice.\n---\nb",
			wantName: "brand-voice", wantDesc: "Tone of voice.", wantBody: "b", usable: true,
			problems: []string{"warning: the frontmatter has no name; the folder name \"brand-voice\" is used"},
		},
		{
			name: "name mismatch is a warning", folder: "pdf-tools",
			in:       "---\nname: pdf\ndescription: d\n---\nb",
			wantName: "pdf", wantDesc: "d", wantBody: "b", usable: true,
			problems: []string{`warning: name "pdf" does not match the folder name "pdf-tools"`},
		},
		{
			name: "title-case name falls back to the folder", folder: "meeting-notes",
			in:       "---\nname: Meeting Notes\ndescription: d\n---\nb",
			wantName: "meeting-notes", wantDesc: "d", wantBody: "b", usable: true,
			problems: []string{`warning: name "Meeting Notes" is not a valid skill name`},
		},
		{
			name: "title-case name and folder become a slug", folder: "Meeting Notes",
			in:       "---\nname: Meeting Notes\ndescription: d\n---\nb",
			wantName: "meeting-notes", wantDesc: "d", wantBody: "b", usable: true,
			problems: []string{`"meeting-notes" is used`},
		},
		{
			name: "too long a name", folder: "",
			in:       "---\nname: " + strings.Repeat("a", 65) + "\ndescription: d\n---\nb",
			problems: []string{"error: name \"" + strings.Repeat("a", 65) + "\" is not a valid skill name"},
		},
		{
			name: "name with double hyphen and no folder is an error", folder: "",
			in: "---\nname: pdf--tools\ndescription: d\n---\nb",
			check: func(t *testing.T, p Parsed) {
				// the slug "pdf-tools" is valid: lenient
				if !p.Usable() || p.Name != "pdf-tools" {
					t.Fatalf("got %+v", p)
				}
			},
		},
		{
			name: "missing description uses the first paragraph", folder: "notes",
			in:       "---\nname: notes\n---\n\n# Notes\n\nSummarise meetings\ninto decisions.\n\nMore.\n",
			wantName: "notes", wantDesc: "Summarise meetings into decisions.", wantBody: "-", usable: true,
			problems: []string{"warning: the frontmatter has no description; the first paragraph of the body is used"},
		},
		{
			name: "missing description and empty body", folder: "notes",
			in:       "---\nname: notes\nlicense: MIT\n---\n",
			problems: []string{"error: the skill has no description"},
		},
		{
			name: "no frontmatter at all", folder: "quick",
			in:       "Quickly check spelling in the open file.\n",
			wantName: "quick", wantDesc: "Quickly check spelling in the open file.", wantBody: "-", usable: true,
			problems: []string{"warning: SKILL.md has no frontmatter"},
		},
		{
			name: "unclosed frontmatter", folder: "x",
			in:       "---\nname: x\ndescription: d\n",
			problems: []string{"error: the frontmatter starts with --- but has no closing --- line"},
		},
		{
			name: "invalid yaml", folder: "x",
			in:       "---\nname: [broken\ndescription: {also: broken\n---\nbody\n",
			problems: []string{"error: the frontmatter is not valid YAML: line 2"},
		},
		{
			name: "unquoted colon in the description is read line by line", folder: "explain-code",
			in:       "---\nname: explain-code\ndescription: Explains code. Use when: the user asks \"how?\"\n---\nb",
			wantName: "explain-code", wantDesc: `Explains code. Use when: the user asks "how?"`, wantBody: "b", usable: true,
			problems: []string{"warning: the frontmatter is not valid YAML"},
		},
		{
			name: "loose reading joins indented continuation lines", folder: "x",
			in:       "---\nname: x\ndescription: Use when: a\n  b and\n  c\nallowed-tools:\n  - Read\n  - Grep\n---\nbody",
			wantName: "x", wantDesc: "Use when: a b and c", wantBody: "body", usable: true,
			problems: []string{"warning: the frontmatter is not valid YAML"},
			check: func(t *testing.T, p Parsed) {
				if p.Description != "Use when: a b and c" || !reflect.DeepEqual(p.AllowedTools, []string{"Read", "Grep"}) {
					t.Fatalf("got %q %q", p.Description, p.AllowedTools)
				}
			},
		},
		{
			name: "frontmatter that is a list", folder: "x",
			in:       "---\n- a\n- b\n---\nb",
			problems: []string{"error: the frontmatter is not a list of key: value lines"},
		},
		{
			name: "oversized", folder: "x",
			in:       "---\nname: x\ndescription: d\n---\n" + strings.Repeat("a", MaxFileBytes),
			problems: []string{"error: SKILL.md is larger than 256 KiB"},
		},
		{
			name: "not utf-8", folder: "x",
			in:       "---\nname: x\ndescription: caf\xe9\n---\nb",
			problems: []string{"error: SKILL.md is not UTF-8 text"},
		},
		{
			name: "nul bytes", folder: "x",
			in:       "---\nname: x\ndescription: d\n---\nb\x00",
			problems: []string{"error: SKILL.md contains NUL bytes"},
		},
		{
			name: "description too long is kept with a warning", folder: "x",
			in:       "---\nname: x\ndescription: " + strings.Repeat("word ", 300) + "\n---\nb",
			wantName: "x", wantDesc: "-", wantBody: "b", usable: true,
			problems: []string{"warning: the description is 1499 characters long (at most 1024)"},
		},
		{
			name: "description as a list is ignored", folder: "x",
			in:       "---\nname: x\ndescription: [a, b]\n---\nThe body paragraph.",
			wantName: "x", wantDesc: "The body paragraph.", wantBody: "-", usable: true,
			problems: []string{"warning: description must be text; it is ignored"},
		},
		{
			name: "keys ignore case and underscores", folder: "x",
			in:       "---\nName: x\nDescription: d\nallowed_tools: Read Grep\nDisable_Model_Invocation: true\n---\nb",
			wantName: "x", wantDesc: "d", wantBody: "b", usable: true,
			check: func(t *testing.T, p Parsed) {
				if !p.DisableModelInvocation || !reflect.DeepEqual(p.AllowedTools, []string{"Read", "Grep"}) {
					t.Fatalf("got %+v", p)
				}
			},
		},
		{
			name: "booleans written as strings", folder: "x",
			in:       "---\nname: x\ndescription: d\ndisable-model-invocation: \"true\"\nuser-invocable: \"no\"\n---\nb",
			wantName: "x", wantDesc: "d", wantBody: "b", usable: true,
			problems: []string{"warning: disable-model-invocation should be true or false without quotes"},
			check: func(t *testing.T, p Parsed) {
				if !p.DisableModelInvocation || p.UserInvocable {
					t.Fatalf("got %+v", p)
				}
			},
		},
		{
			name: "allowed-tools forms", folder: "x",
			in:       "---\nname: x\ndescription: d\nallowed-tools:\n  - Read, Grep\n  - Bash(git add:*)\n---\nb",
			wantName: "x", wantDesc: "d", wantBody: "b", usable: true,
			check: func(t *testing.T, p Parsed) {
				if !p.AllowedToolsSet || !reflect.DeepEqual(p.AllowedTools, []string{"Read", "Grep", "Bash(git add:*)"}) {
					t.Fatalf("got %q", p.AllowedTools)
				}
			},
		},
		{
			name: "metadata and optional fields", folder: "x",
			in:       "---\nname: x\ndescription: d\nlicense: Apache-2.0\ncompatibility: Needs python3\nwhen_to_use: After a meeting\nmetadata:\n  author: a\n  version: \"1.0\"\n  tags: [t1, t2]\n---\nb",
			wantName: "x", wantDesc: "d", wantBody: "b", usable: true,
			check: func(t *testing.T, p Parsed) {
				want := map[string]any{"author": "a", "version": "1.0", "tags": []any{"t1", "t2"}}
				if p.License != "Apache-2.0" || p.Compatibility != "Needs python3" || p.WhenToUse != "After a meeting" || !reflect.DeepEqual(p.Metadata, want) {
					t.Fatalf("got %+v", p)
				}
			},
		},
		{
			name: "metadata aliases are expanded once", folder: "x",
			in:       "---\nname: x\ndescription: &d Shared text.\nmetadata:\n  copy: *d\n---\nb",
			wantName: "x", wantDesc: "Shared text.", wantBody: "b", usable: true,
		},
		{
			name: "duplicate key", folder: "x",
			in:       "---\nname: x\ndescription: first\ndescription: second\n---\nb",
			wantName: "x", wantDesc: "second", wantBody: "b", usable: true,
			problems: []string{`warning: the frontmatter sets "description" more than once`},
		},
		{
			name: "empty body warns", folder: "x",
			in:       "---\nname: x\ndescription: d\n---\n",
			wantName: "x", wantDesc: "d", wantBody: "", usable: true,
			problems: []string{"warning: the body is empty"},
		},
		{
			name: "large body warns", folder: "x",
			in:       "---\nname: x\ndescription: d\n---\n" + strings.Repeat("a", LargeBodyBytes+1),
			wantName: "x", wantDesc: "d", wantBody: "-", usable: true,
			problems: []string{"warning: the body is 48 KiB"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Parse([]byte(tt.in), tt.folder)
			text := problemText(p.Problems)
			for _, want := range tt.problems {
				if !strings.Contains(text, want) {
					t.Errorf("problems lack %q:\n%s", want, text)
				}
			}
			if tt.check != nil {
				tt.check(t, p)
				return
			}
			if p.Usable() != tt.usable {
				t.Fatalf("usable = %v, want %v; problems:\n%s", p.Usable(), tt.usable, text)
			}
			if !tt.usable {
				return
			}
			if p.Name != tt.wantName {
				t.Errorf("name = %q, want %q", p.Name, tt.wantName)
			}
			if tt.wantDesc != "-" && p.Description != tt.wantDesc {
				t.Errorf("description = %q, want %q", p.Description, tt.wantDesc)
			}
			if tt.wantBody != "-" && p.Body != tt.wantBody {
				t.Errorf("body = %q, want %q", p.Body, tt.wantBody)
			}
			if len(tt.problems) == 0 && len(p.Problems) > 0 {
				t.Errorf("unexpected problems:\n%s", text)
			}
		})
	}
}

func TestValidName(t *testing.T) {
	for name, want := range map[string]bool{
		"pdf": true, "pdf-processing": true, "a1-b2": true, "x": true, strings.Repeat("a", 64): true,
		"": false, "PDF": false, "-pdf": false, "pdf-": false, "pdf--x": false, "pdf_x": false,
		"pdf x": false, strings.Repeat("a", 65): false, "pdf/x": false, "café": false, "..": false,
	} {
		if got := ValidName(name); got != want {
			t.Errorf("ValidName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestSplitToolList(t *testing.T) {
	tests := map[string][]string{
		"Read, Grep, Glob":                    {"Read", "Grep", "Glob"},
		"Read Grep":                           {"Read", "Grep"},
		"Bash(git add:*), Bash(git status:*)": {"Bash(git add:*)", "Bash(git status:*)"},
		"Read,Bash(npm run test:*) Write":     {"Read", "Bash(npm run test:*)", "Write"},
		"  ":                                  nil,
		"Bash(unclosed stuff, Read":           {"Bash(unclosed stuff, Read"},
	}
	for in, want := range tests {
		if got := splitToolList(in); !reflect.DeepEqual(got, want) {
			t.Errorf("splitToolList(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestTruncateRunes(t *testing.T) {
	if got := truncateRunes("héllo wörld", 7); got != "héllo…" {
		t.Errorf("got %q", got)
	}
	if got := truncateRunes("short", 10); got != "short" {
		t.Errorf("got %q", got)
	}
	if got := truncateRunes("日本語のテキスト", 4); got != "日本語…" || utf8.RuneCountInString(got) != 4 {
		t.Errorf("got %q", got)
	}
}

// FuzzParse checks that Parse never panics and that what it accepts keeps
// the format's promises.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"---\nname: pdf\ndescription: Work with PDF.\n---\nbody",
		"\xEF\xBB\xBF---\r\nname: x\r\ndescription: d\r\n---\r\n",
		"---\nname: [x\ndescription: a: b\n---\n",
		"---\ndescription: >\n  folded\n  text\nallowed-tools:\n  - Read\n  - Bash(git:*)\nmetadata: {a: [1, 2, {b: c}]}\n---\n",
		"---\na: &a [*a]\n---\n",
		"---\nname: x\ndescription: d\n...\n",
		"no frontmatter, just a paragraph\n\nand more",
		"---\n---\n",
		"---\n",
		"---\nname: x\ndescription: &d x\nmetadata:\n  k: *d\n---\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), "folder")
	}
	f.Fuzz(func(t *testing.T, data []byte, folder string) {
		p := Parse(data, folder)
		if !p.Usable() {
			return
		}
		if !ValidName(p.Name) {
			t.Fatalf("usable skill with invalid name %q", p.Name)
		}
		if strings.TrimSpace(p.Description) == "" {
			t.Fatalf("usable skill without a description")
		}
		if !utf8.ValidString(p.Body) || !utf8.ValidString(p.Description) {
			t.Fatalf("invalid UTF-8 in the result")
		}
		if strings.Contains(p.Body, "\r\n") {
			t.Fatalf("body keeps CRLF")
		}
		for _, pr := range p.Problems {
			if pr.Severity != SeverityWarning {
				t.Fatalf("usable skill with an error: %v", pr)
			}
		}
	})
}

// BenchmarkParsePathological measures inputs that are slow for naive
// parsers: deep nesting, alias expansion, many keys, long loose values.
func BenchmarkParsePathological(b *testing.B) {
	laughs := "---\nname: x\ndescription: d\nmetadata:\n  a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
	prev := "a"
	for i := 0; i < 9; i++ {
		n := string(rune('b' + i))
		laughs += "  " + n + ": &" + n + " [" + strings.Repeat("*"+prev+",", 8) + "*" + prev + "]\n"
		prev = n
	}
	inputs := map[string]string{
		"deep-flow":   "---\nname: x\ndescription: d\nmetadata: " + strings.Repeat("[", 200000) + "\n---\n",
		"laughs":      laughs + "---\nbody",
		"many-keys":   "---\nname: x\ndescription: d\n" + strings.Repeat("k: v\n", 40000) + "---\n",
		"long-loose":  "---\nname: x\ndescription: a: b\n" + strings.Repeat("  continuation line\n", 10000) + "---\n",
		"many-fences": "---\nname: x\n---\n" + strings.Repeat("```\n", 60000),
	}
	for name, in := range inputs {
		data := []byte(in)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				Parse(data, "x")
			}
		})
	}
}
