package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"crewagent/backend/approval"
	"crewagent/backend/events"
)

// Approvals on the command line. chat --approve chooses the approval mode of
// the send. A call that waits for the user's approval is shown on stderr
// (what it will do, the diff of a write) and answered on the terminal; when
// stdin is not a terminal nobody is asked: the call is refused and the
// model's result says so.

// noTerminal is what the model is told when a call would wait for the
// user's approval and stdin is not a terminal.
const noTerminal = "the user was not asked because the command line's input is not a terminal; " +
	"the user can run the command again with --approve auto-edit (writes in the project run) or --approve full-auto (everything runs)"

// stdinIsTerminal reports whether r is a terminal (a variable: tests stand in for one).
var stdinIsTerminal = func(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// approveMode reads --approve ("" when not given).
func (e *env) approveMode() (approval.Mode, error) {
	if !e.args.has("approve") {
		return "", nil
	}
	m, err := approval.ParseMode(e.args.get("approve"))
	if err != nil {
		return "", fmt.Errorf("--approve: %v", err)
	}
	return m, nil
}

// prompter answers approval requests on the terminal; it passes every
// event on to next.
type prompter struct {
	e    *env
	next events.Emitter
	mu   sync.Mutex
	in   *bufio.Reader
}

// Emit implements events.Emitter.
func (p *prompter) Emit(name string, payload any) {
	p.next.Emit(name, payload)
	if ev, ok := payload.(events.ApprovalEvent); ok && name == events.ApprovalRequested {
		p.ask(ev)
	}
}

// reader returns the reader of stdin shared by every question (p.mu held).
func (p *prompter) reader() *bufio.Reader {
	if p.in == nil {
		p.in = bufio.NewReader(p.e.stdin)
	}
	return p.in
}

// ask shows the request and answers it with what the user types.
func (p *prompter) ask(ev events.ApprovalEvent) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reader()
	if p.e.printer != nil {
		p.e.printer.finish()
	}
	w := p.e.stderr
	a := ev.Approval
	fmt.Fprintf(w, "\n── approval needed: %s ──\n", a.Summary)
	if a.Why != "" {
		fmt.Fprintf(w, "(%s)\n", a.Why)
	}
	if a.Diff != "" {
		io.WriteString(w, a.Diff)
		if !strings.HasSuffix(a.Diff, "\n") {
			io.WriteString(w, "\n")
		}
	}
	ans := approval.Answer{Decision: approval.AnswerDeny, Reason: "the user gave no answer"}
	for {
		fmt.Fprintf(w, "Allow? [y]es / [a]lways in this conversation / [n]o: ")
		line, err := p.in.ReadString('\n')
		word := strings.ToLower(strings.TrimSpace(line))
		switch word {
		case "y", "yes":
			ans = approval.Answer{Decision: approval.AnswerAllow}
		case "a", "always":
			ans = approval.Answer{Decision: approval.AnswerConversation}
		case "n", "no":
			fmt.Fprintf(w, "Reason for the model (optional): ")
			reason, _ := p.in.ReadString('\n')
			ans = approval.Answer{Decision: approval.AnswerDeny, Reason: strings.TrimSpace(reason)}
		default:
			if err == nil {
				continue
			}
			fmt.Fprintln(w)
		}
		break
	}
	if p.e.ws == nil {
		return
	}
	if err := p.e.ws.AnswerApproval(ev.ConversationID, ev.ToolCallID, ans); err != nil {
		fmt.Fprintf(w, "crewagent: %v\n", err)
	}
}
