package cli

import "fmt"

// commands status: whether the project's commands (shell.run) run in the sandbox.
func cmdCommandsStatus(e *env, _ []string) error {
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	st := ws.ShellStatus()
	return e.print(st, func() {
		switch {
		case st.Sandboxed:
			fmt.Fprintln(e.stdout, "commands run in the sandbox (bubblewrap)")
		case st.RunWithoutSandbox:
			fmt.Fprintf(e.stdout, "the sandbox cannot start here (%s)\ncommands of this project run WITHOUT a sandbox, as chosen\n", st.Problem)
		default:
			fmt.Fprintf(e.stdout, "the sandbox cannot start here (%s)\ncommands are refused (commands run-without-sandbox on allows them)\n", st.Problem)
		}
	})
}

// commands run-without-sandbox on|off: the project's choice for where the sandbox cannot
// start.
func cmdCommandsWithoutSandbox(e *env, rest []string) error {
	var on bool
	switch rest[0] {
	case "on":
		on = true
	case "off":
	default:
		return fmt.Errorf("usage: crewagent commands run-without-sandbox on|off (not %q)", rest[0])
	}
	ws, err := e.workspace()
	if err != nil {
		return err
	}
	if err := ws.SetRunWithoutSandbox(on); err != nil {
		return err
	}
	st := ws.ShellStatus()
	return e.print(st, func() {
		if on {
			fmt.Fprintln(e.stdout, "where the sandbox cannot start, this project's commands now run without one:\n"+
				"they can read and write every file you can, reach the network, and see the runtime's settings and keys")
			if st.Sandboxed {
				fmt.Fprintln(e.stdout, "(the sandbox works here, so commands still run inside it)")
			}
		} else {
			fmt.Fprintln(e.stdout, "this project's commands run only inside the sandbox")
		}
	})
}
