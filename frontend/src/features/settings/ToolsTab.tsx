import { formatBytes, formatCount, parseBytes, parseCount } from '../../lib/units'
import { Field, UnitInput, type FormTabProps } from './form'

/** Settings → Tools: the file tools and the limits of the tool loop. */
export function ToolsTab({ draft }: FormTabProps) {
  const f = draft.form
  return (
    <>
      <section className="settings-section">
        <h3>File tools</h3>
        <label className="settings-check">
          <input type="checkbox" checked={f.tools.fs.enabled} onChange={(e) => draft.edit((s) => (s.tools.fs.enabled = e.target.checked))} data-testid="set-tools.fs.enabled" />
          Read, list, search and write files inside the project folder
        </label>
        <div className="settings-grid">
          <Field draft={draft} path="tools.fs.maxReadBytes" label="Largest read" help="Per call: 512 KB, 2 MB (1 KB = 1,024 bytes).">
            <UnitInput draft={draft} path="tools.fs.maxReadBytes" value={f.tools.fs.maxReadBytes} set={(s, v) => (s.tools.fs.maxReadBytes = v)} format={formatBytes} parse={(t) => parseBytes(t)} />
          </Field>
          <Field draft={draft} path="tools.fs.maxWriteBytes" label="Largest write" help="Per call.">
            <UnitInput draft={draft} path="tools.fs.maxWriteBytes" value={f.tools.fs.maxWriteBytes} set={(s, v) => (s.tools.fs.maxWriteBytes = v)} format={formatBytes} parse={(t) => parseBytes(t)} />
          </Field>
        </div>
      </section>

      <section className="settings-section">
        <h3>MCP servers</h3>
        <div className="settings-grid">
          <Field draft={draft} path="tools.mcp.maxToolsPerServer" label="Tools per server" help="A server that lists more is offered without its tools; the others keep theirs.">
            <UnitInput
              draft={draft}
              path="tools.mcp.maxToolsPerServer"
              value={f.tools.mcp.maxToolsPerServer}
              set={(s, v) => (s.tools.mcp.maxToolsPerServer = v)}
              format={formatCount}
              parse={(t) => parseCount(t, { min: 1, max: 10000, what: 'a number of tools' })}
              suffix="tools"
            />
          </Field>
          <Field draft={draft} path="tools.mcp.maxToolTokensPerServer" label="Tool definitions per server" help="Tokens their names, descriptions and schemas take in every request (about 4 bytes a token).">
            <UnitInput
              draft={draft}
              path="tools.mcp.maxToolTokensPerServer"
              value={f.tools.mcp.maxToolTokensPerServer}
              set={(s, v) => (s.tools.mcp.maxToolTokensPerServer = v)}
              format={formatCount}
              parse={(t) => parseCount(t, { min: 1, max: 10000000, what: 'a number of tokens' })}
              suffix="tokens"
            />
          </Field>
        </div>
      </section>

      <section className="settings-section">
        <h3>Approvals</h3>
        <div className="settings-grid">
          <Field
            draft={draft}
            path="approvals.mode"
            label="Mode of new conversations"
            help="Each conversation can choose its own in the composer; a project's default (crewagent permissions mode) comes first. Allow, ask and deny rules: approvals in settings.json and the project's .crewagent/permissions.json."
            wide
          >
            <select
              id="set-approvals.mode"
              className="input"
              value={f.approvals?.mode || 'ask'}
              onChange={(e) => draft.edit((s) => (s.approvals = { ...(s.approvals ?? {}), mode: e.target.value }))}
              data-testid="set-approvals.mode"
            >
              <option value="read-only">Read only — nothing is written, no command runs</option>
              <option value="ask">Ask — every write and command waits for you</option>
              <option value="auto-edit">Auto-edit — writes in the project run, commands wait</option>
              <option value="full-auto">Full auto — everything runs</option>
            </select>
          </Field>
        </div>
      </section>

      <section className="settings-section">
        <h3>Tool loop</h3>
        <div className="settings-grid">
          <Field draft={draft} path="engine.maxTurns" label="Model calls per message" help="The loop stops with an error after this many.">
            <UnitInput draft={draft} path="engine.maxTurns" value={f.engine.maxTurns} set={(s, v) => (s.engine.maxTurns = v)} format={formatCount} parse={(t) => parseCount(t, { max: 1000, what: 'a number of calls' })} suffix="calls" />
          </Field>
          <Field draft={draft} path="engine.maxToolCallsPerMessage" label="Tool calls per model answer" help="Calls beyond it are answered with an error, not run.">
            <UnitInput
              draft={draft}
              path="engine.maxToolCallsPerMessage"
              value={f.engine.maxToolCallsPerMessage}
              set={(s, v) => (s.engine.maxToolCallsPerMessage = v)}
              format={formatCount}
              parse={(t) => parseCount(t, { max: 1000, what: 'a number of calls' })}
              suffix="calls"
            />
          </Field>
          <Field
            draft={draft}
            path="engine.maxInterruptChainDepth"
            label="Conversations waiting for one another"
            help="How deep the model may hand a turn to another conversation (conv.create, conv.send) that hands it on again; 0 turns handing over off."
          >
            <UnitInput
              draft={draft}
              path="engine.maxInterruptChainDepth"
              value={f.engine.maxInterruptChainDepth}
              set={(s, v) => (s.engine.maxInterruptChainDepth = v)}
              format={formatCount}
              parse={(t) => parseCount(t, { min: 0, max: 32, what: 'a number of conversations' })}
              suffix="deep"
            />
          </Field>
          <Field
            draft={draft}
            path="engine.maxConversationsPerMessage"
            label="Conversations per message"
            help="How many conversations conv.create may make in the work one message starts; past it, conv.create is refused."
          >
            <UnitInput
              draft={draft}
              path="engine.maxConversationsPerMessage"
              value={f.engine.maxConversationsPerMessage}
              set={(s, v) => (s.engine.maxConversationsPerMessage = v)}
              format={formatCount}
              parse={(t) => parseCount(t, { min: 1, max: 10000, what: 'a number of conversations' })}
              suffix="conversations"
            />
          </Field>
          <Field
            draft={draft}
            path="engine.maxModelCallsPerMessage"
            label="Model calls per message, in all conversations"
            help="The work one message starts, in every conversation it reaches, stops with an error after this many."
          >
            <UnitInput
              draft={draft}
              path="engine.maxModelCallsPerMessage"
              value={f.engine.maxModelCallsPerMessage}
              set={(s, v) => (s.engine.maxModelCallsPerMessage = v)}
              format={formatCount}
              parse={(t) => parseCount(t, { min: 1, max: 100000, what: 'a number of calls' })}
              suffix="calls"
            />
          </Field>
        </div>
      </section>
    </>
  )
}
