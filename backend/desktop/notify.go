package desktop

import "strings"

// notifyEvent is the event the page sends to show a desktop notification
// ({"title","body"}): WebKitGTK denies the page's own notifications, so the
// app shows them with the Wails runtime (on Linux over D-Bus, through the
// desktop's org.freedesktop.Notifications service).
const notifyEvent = "window:notify"

// maxNotifyChars bounds the title and the body: a notification is a line or
// two, not a transcript.
const maxNotifyChars = 300

// notification is a desktop notification read from the page's event.
type notification struct {
	Title string
	Body  string
}

// readNotification reads the payload of a window:notify event; false when it
// is not one (no title).
func readNotification(data []any) (notification, bool) {
	if len(data) == 0 {
		return notification{}, false
	}
	m, ok := data[0].(map[string]any)
	if !ok {
		return notification{}, false
	}
	title, _ := m["title"].(string)
	body, _ := m["body"].(string)
	n := notification{Title: clipText(title), Body: clipText(body)}
	return n, n.Title != ""
}

func clipText(s string) string {
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > maxNotifyChars {
		return string(r[:maxNotifyChars-1]) + "…"
	}
	return s
}
