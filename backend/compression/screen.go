package compression

import (
	"strings"

	"crewagent/backend/contextbuilder"
)

// ForScreen turns a summary this package wrote (the digest, or a model's
// summary under the digest's header) into the Markdown the conversation
// screen shows in a compaction's card: without the marker and the header
// meant for the model, with titles in bold, and each line saying who wrote
// it ("You:", "Assistant:", "fs.read result:") instead of the message id it
// quotes. Other text is kept as it is.
func ForScreen(text string) string {
	var out []string
	inTask := false
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		t := strings.TrimRight(line, " \t")
		trim := strings.TrimSpace(t)
		if inTask && (strings.HasPrefix(t, "> ") || t == ">") {
			out = append(out, t)
			continue
		}
		inTask = false
		switch {
		case len(out) == 0 && trim == "":
			continue
		case len(out) == 0 && (strings.HasPrefix(trim, contextbuilder.ConversationSummaryPrefix) || trim == contextbuilder.SummaryPrefix):
			continue
		case strings.HasPrefix(trim, digestIntro):
			continue
		case trim == llmBodyTitle:
			continue
		case strings.HasPrefix(trim, focusTitle):
			out = append(out, "**Focus:** "+strings.TrimSpace(strings.TrimPrefix(trim, focusTitle)))
		case strings.HasPrefix(trim, taskTitle):
			inTask = true
			if strings.Contains(trim, taskKeyMark) {
				out = append(out, "", "**Your first message** (its key lines):")
			} else {
				out = append(out, "", "**Your first message:**")
			}
		case isSectionTitle(trim) || trim == "Open items:":
			out = append(out, "", "**"+strings.TrimSuffix(trim, ":")+"**", "")
		case trim == truncatedTitle:
			out = append(out, "", "*Some lines did not fit and were left out.*")
		case strings.HasPrefix(trim, "- #") || strings.HasPrefix(trim, "* #"):
			out = append(out, "- "+screenLine(trim[2:]))
		default:
			out = append(out, t)
		}
	}
	return strings.TrimSpace(collapseBlank(strings.Join(out, "\n")))
}

// screenLine rewrites "#id who: text" (a digest line without its bullet) as
// "**Who:** text", and "#id text" (a model's line) as the text.
func screenLine(s string) string {
	rest := s[1:] // after "#"
	sp := strings.IndexByte(rest, ' ')
	if sp <= 0 {
		return s
	}
	body := strings.TrimSpace(rest[sp+1:])
	if who, text, ok := strings.Cut(body, ": "); ok {
		if who == whoSummary {
			return text
		}
		if w := whoWords(who); w != "" {
			return "**" + w + ":** " + text
		}
	}
	return body
}

// whoWords says in words who wrote a digest line ("" when who is not one of
// the digest's writers).
func whoWords(who string) string {
	switch {
	case who == "user":
		return "You"
	case who == "assistant":
		return "Assistant"
	case who == "tool":
		return "Tool result"
	case strings.HasPrefix(who, "tool "):
		name := strings.TrimSpace(strings.TrimPrefix(who, "tool "))
		if name != "" && !strings.ContainsAny(name, " :") {
			return name + " result"
		}
	}
	return ""
}

// collapseBlank leaves at most one blank line between lines.
func collapseBlank(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}
