package tools

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"crewagent/backend/conversation"
	"crewagent/backend/internal/testkit"
)

// skillHarness is a harness whose conversation conv1 has the skill "pptx"
// active, its folder inside a denied area (skills of the runtime home).
func skillHarness(t *testing.T) (*harness, string) {
	t.Helper()
	var dir string
	hs := newHarness(t, func(c *Config) {
		home := filepath.Join(filepath.Dir(c.Roots.Project), "home")
		dir = filepath.Join(home, "skills", "pptx")
		c.Roots.Deny = append(c.Roots.Deny, home)
		c.Roots.Skills = func(conv, name string) (string, bool) {
			if conv == "conv1" && name == "pptx" {
				return dir, true
			}
			return "", false
		}
	})
	testkit.WriteFile(t, filepath.Join(dir, "SKILL.md"), "---\nname: pptx\ndescription: decks\n---\nUse the template.\n")
	testkit.WriteFile(t, filepath.Join(dir, "reference", "layouts.md"), "# Layouts\nTitle slide: centred title\n")
	testkit.WriteFile(t, filepath.Join(filepath.Dir(dir), "other", "SKILL.md"), "secret instructions\n")
	symlink(t, filepath.Join(hs.f.outside, "secret.txt"), filepath.Join(dir, "leak.txt"))
	symlink(t, "../other", filepath.Join(dir, "sibling"))
	return hs, dir
}

// The folder of an active skill is readable, listable and searchable as
// @skill/<name>/…, never writable, and nothing outside it can be reached.
func TestSkillAlias(t *testing.T) {
	hs, _ := skillHarness(t)

	m := hs.mustOK(conversation.ToolFSRead, map[string]any{"path": "@skill/pptx/reference/layouts.md"})
	if !strings.Contains(fmt.Sprint(m["content"]), "Title slide: centred title") || m["path"] != "@skill/pptx/reference/layouts.md" {
		t.Fatalf("read: %v", m)
	}
	m = hs.mustOK(conversation.ToolFSList, map[string]any{"path": "@skill/pptx"})
	listing := fmt.Sprint(m)
	for _, want := range []string{"path:@skill/pptx ", "name:SKILL.md", "name:reference"} {
		if !strings.Contains(listing, want) {
			t.Errorf("the listing lacks %s: %s", want, listing)
		}
	}
	if strings.Contains(listing, hs.f.base) {
		t.Errorf("the listing shows host paths: %s", listing)
	}
	m = hs.mustOK(conversation.ToolFSSearch, map[string]any{"path": "@skill/pptx", "pattern": "centred"})
	if ms := matchesOf(t, m); len(ms) != 1 || ms[0]["path"] != "@skill/pptx/reference/layouts.md" {
		t.Fatalf("search: %v", m)
	}
	if strings.Contains(fmt.Sprint(m), "top secret") {
		t.Fatal("search followed a link out of the skill folder")
	}

	refused := []struct {
		tool string
		args map[string]any
		code string
	}{
		{conversation.ToolFSWrite, map[string]any{"path": "@skill/pptx/SKILL.md", "content": "changed"}, CodeSandboxViolation},
		{conversation.ToolFSWrite, map[string]any{"path": "@skill/pptx/new.md", "content": "new"}, CodeSandboxViolation},
		{conversation.ToolFSApplyPatch, map[string]any{"path": "@skill/pptx/SKILL.md", "operation": "updateFrontmatter", "update": map[string]any{"name": map[string]any{"set": "x"}}}, CodeSandboxViolation},
		{conversation.ToolFSRead, map[string]any{"path": "@skill/pptx/leak.txt"}, CodeSandboxViolation},
		{conversation.ToolFSRead, map[string]any{"path": "@skill/pptx/sibling/SKILL.md"}, CodeSandboxViolation},
		{conversation.ToolFSRead, map[string]any{"path": "@skill/pptx/../other/SKILL.md"}, CodeSandboxViolation},
		{conversation.ToolFSRead, map[string]any{"path": "@skill/pptx/%2e%2e/other/SKILL.md"}, CodeSandboxViolation},
		{conversation.ToolFSRead, map[string]any{"path": "@skill/other/SKILL.md"}, CodeNotFound},
		{conversation.ToolFSRead, map[string]any{"path": "@skill"}, CodeSandboxViolation},
		{conversation.ToolFSList, map[string]any{"path": "@skill/"}, CodeSandboxViolation},
		{conversation.ToolFSRead, map[string]any{"path": "@skill/pptx/missing.md"}, CodeNotFound},
	}
	for _, r := range refused {
		e := hs.mustFail(r.tool, r.args, r.code)
		if strings.Contains(fmt.Sprint(e), hs.f.base) {
			t.Errorf("%s %v: the refusal shows a host path: %v", r.tool, r.args, e)
		}
	}
	e := hs.mustFail(conversation.ToolFSRead, map[string]any{"path": "@skill/other/SKILL.md"}, CodeNotFound)
	if !strings.Contains(fmt.Sprint(e["message"]), `the skill "other" is not active`) {
		t.Errorf("inactive skill: %v", e)
	}
	e = hs.mustFail(conversation.ToolFSWrite, map[string]any{"path": "@skill/pptx/SKILL.md", "content": "changed"}, CodeSandboxViolation)
	if d, _ := e["details"].(map[string]any); d["reason"] != "read_only" {
		t.Errorf("write refusal: %v", e)
	}
}

// Without a conversation or a skills lookup, @skill is simply unavailable.
func TestSkillAliasUnavailable(t *testing.T) {
	for _, roots := range []Roots{
		{Project: t.TempDir(), Conversation: "c1"},
		{Project: t.TempDir(), Skills: func(string, string) (string, bool) { return t.TempDir(), true }},
	} {
		_, terr := NewSandbox(roots).Resolve("@skill/pptx/SKILL.md", AccessRead)
		if terr == nil || terr.Code != CodeNotFound || terr.Details["reason"] != "alias_unavailable" {
			t.Errorf("got %v", terr)
		}
	}
}
