package cli

// commands is the table of every command, in the order help lists them.
func commands() []command {
	return []command{
		{words: []string{"conversations", "list"}, usage: "conversations list", args: 0, access: Read, run: cmdConversationsList},
		{words: []string{"conversations", "show"}, usage: "conversations show ID", args: 1, access: Read, run: cmdConversationsShow},
		{words: []string{"conversations", "delete"}, usage: "conversations delete ID", args: 1, access: Write, run: cmdConversationsDelete},
		{words: []string{"conversations", "fork"}, usage: "conversations fork ID [--at MESSAGE_ID | --checkpoint NAME]",
			flags: []string{"at", "checkpoint"}, args: 1, access: Write, run: cmdConversationsFork},
		{words: []string{"conversations", "checkpoint"}, usage: "conversations checkpoint ID NAME", args: 2, access: Write, run: cmdConversationsCheckpoint},
		{words: []string{"conversations", "rewind"}, usage: "conversations rewind ID --to MESSAGE_ID [--files|--conversation|--both] [--force]",
			flags: []string{"to", "files", "conversation", "both", "force"}, args: 1, access: Write, run: cmdConversationsRewind},
		{words: []string{"conversations", "compact"}, usage: "conversations compact ID [--focus TEXT]", flags: []string{"focus"}, args: 1, access: Write, run: cmdConversationsCompact},
		{words: []string{"conversations", "pin"}, usage: "conversations pin ID MESSAGE_ID", args: 2, access: Write, run: cmdConversationsPin},
		{words: []string{"conversations", "unpin"}, usage: "conversations unpin ID MESSAGE_ID", args: 2, access: Write, run: cmdConversationsUnpin},
		{words: []string{"conversations", "export"}, usage: "conversations export ID [--format md|json]", flags: []string{"format"}, args: 1, access: Read, run: cmdConversationsExport},
		{words: []string{"chat"}, usage: chatUsage, flags: []string{"conversation", "mode", "agent", "retry", "skill", "approve"}, args: anyArgs, access: Write, usesLLM: true, run: cmdChat},
		{words: []string{"context"}, usage: "context ID [--mode chat|agent|run] [--agent ID] [--all]", flags: []string{"mode", "agent", "all"}, args: 1, access: Read, run: cmdContext},
		{words: []string{"package", "import"}, usage: "package import FILE [--replace]", flags: []string{"replace"}, args: 1, access: None, run: cmdPackageImport},
		{words: []string{"package", "list"}, usage: "package list", args: 0, access: None, run: cmdPackageList},
		{words: []string{"package", "remove"}, usage: "package remove ID", args: 1, access: None, run: cmdPackageRemove},
		// package install-demo puts the bundled demo package back after a removal.
		{words: []string{"package", "install-demo"}, usage: "package install-demo", args: 0, access: None, run: cmdPackageInstallDemo},
		{words: []string{"run", "start"}, usage: runStartUsage, flags: []string{"workflow", "package", "agent"}, args: anyArgs, access: Write, usesLLM: true, run: cmdRunStart},
		{words: []string{"run", "continue"}, usage: runContinueUsage, args: anyArgs, access: Write, usesLLM: true, run: cmdRunContinue},
		{words: []string{"run", "status"}, usage: "run status RUN_ID", args: 1, access: Read, run: cmdRunStatus},
		{words: []string{"run", "list"}, usage: "run list", args: 0, access: Read, run: cmdRunList},
		{words: []string{"mcp", "list"}, usage: "mcp list", args: 0, access: Read, run: cmdMCPList},
		{words: []string{"mcp", "approve"}, usage: "mcp approve NAME", args: 1, access: Read, run: cmdMCPApprove},
		{words: []string{"mcp", "revoke"}, usage: "mcp revoke NAME", args: 1, access: Read, run: cmdMCPRevoke},
		{words: []string{"mcp", "resources"}, usage: "mcp resources [SERVER]", args: anyArgs, access: Read, run: cmdMCPResources},
		{words: []string{"mcp", "read"}, usage: "mcp read SERVER URI", args: 2, access: Read, run: cmdMCPRead},
		{words: []string{"mcp", "prompts"}, usage: "mcp prompts [SERVER]", args: anyArgs, access: Read, run: cmdMCPPrompts},
		{words: []string{"mcp", "prompt"}, usage: "mcp prompt SERVER NAME [ARG=VALUE...]", args: anyArgs, access: Read, run: cmdMCPPrompt},
		{words: []string{"permissions", "show"}, usage: "permissions show", args: 0, access: Read, run: cmdPermissionsShow},
		{words: []string{"permissions", "approve"}, usage: "permissions approve", args: 0, access: Read, run: cmdPermissionsApprove},
		{words: []string{"permissions", "mode"}, usage: "permissions mode read-only|ask|auto-edit|full-auto|default", args: 1, access: Read, run: cmdPermissionsMode},
		{words: []string{"commands", "status"}, usage: "commands status", args: 0, access: Read, run: cmdCommandsStatus},
		{words: []string{"commands", "run-without-sandbox"}, usage: "commands run-without-sandbox on|off", args: 1, access: Read, run: cmdCommandsWithoutSandbox},
		{words: []string{"skills", "list"}, usage: "skills list", args: 0, access: Read, run: cmdSkillsList},
	}
}
