import { useEffect, useRef, useState } from 'react'
import type { McpServer, McpView } from '../../bridge'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorBanner } from '../../components/ErrorBanner'
import { useStore, useStores } from '../../stores'
import { emptyForm, formOf, lastLines, specFromForm, statusText, type McpForm } from './spec'
import './mcp.css'

/** Settings → MCP: tools from Model Context Protocol servers. The MCP
 * switches; every server with its status (starting, ready with its tools,
 * failed with the error and the end of its stderr, waiting for approval with
 * what it would run); adding, editing, enabling and removing the settings'
 * servers, also from a pasted Claude Desktop block; approving the project's
 * .mcp.json servers. Secrets are shown masked. */
export function McpPanel() {
  const { mcp } = useStores()
  const view = useStore(mcp, (s) => s.view)
  const loaded = useStore(mcp, (s) => s.loaded)
  const error = useStore(mcp, (s) => s.error)
  const [editing, setEditing] = useState<{ previous: string; form: McpForm } | null>(null)
  const [removing, setRemoving] = useState<McpServer | null>(null)

  useEffect(() => {
    const off = mcp.actions.start()
    void mcp.actions.load()
    return () => {
      off()
      mcp.actions.clearPaste()
    }
  }, [mcp])

  const servers = view?.servers ?? []
  return (
    <div className="mcp" data-testid="mcp-panel">
      {error && <ErrorBanner error={error} onDismiss={mcp.actions.dismissError} />}
      {view && <Options view={view} />}

      <section className="settings-section">
        <div className="mcp-section-head">
          <h3>Servers</h3>
          <span className="mcp-spacer" />
          <button type="button" className="btn btn-small" onClick={() => setEditing({ previous: '', form: emptyForm() })} data-testid="mcp-add">
            Add a server
          </button>
        </div>
        <p className="hint">
          Servers in the settings are yours and may start whenever their tools are needed.{' '}
          {view?.project ? (
            <>
              Servers in the project’s <span className="mono">.mcp.json</span>, <span className="mono">.cursor/mcp.json</span> or{' '}
              <span className="mono">.vscode/mcp.json</span> came with the project <strong>{view.project}</strong>: they never start until you approve them here.
            </>
          ) : (
            'Open a project to see its own servers, their status and their tools.'
          )}
        </p>
        {view && view.problems.length > 0 && (
          <ul className="mcp-problems" data-testid="mcp-problems">
            {view.problems.map((p, i) => (
              <li key={i}>
                {p.server && <strong>{p.server}</strong>} {p.field && <span className="mono">{p.field}</span>} {p.message}
              </li>
            ))}
          </ul>
        )}
        {!loaded && <p className="hint">Loading…</p>}
        {loaded && servers.length === 0 && (
          <p className="hint" data-testid="mcp-empty">
            No MCP servers yet: add one, or paste a configuration below.
          </p>
        )}
        {editing?.previous === '' && <ServerForm previous="" initial={editing.form} onDone={() => setEditing(null)} />}
        <ul className="card-list">
          {servers.map((s) =>
            editing?.previous === s.name ? (
              <li key={s.name}>
                <ServerForm previous={s.name} initial={editing.form} onDone={() => setEditing(null)} />
              </li>
            ) : (
              <ServerCard key={s.name} server={s} hasProject={!!view?.project} onEdit={() => setEditing({ previous: s.name, form: formOf(s.config) })} onRemove={() => setRemoving(s)} />
            ),
          )}
        </ul>
      </section>

      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.name}?`}
          confirmLabel="Remove"
          busyLabel="Removing…"
          testId="mcp-remove"
          onCancel={() => setRemoving(null)}
          onConfirm={async () => {
            if (await mcp.actions.remove(removing.name)) setRemoving(null)
          }}
        >
          <p>
            The server is deleted from the settings{removing.state === 'ready' ? ' and stopped' : ''}. Conversations keep the results of its earlier calls.
          </p>
        </ConfirmDialog>
      )}

      <PasteBlock />
    </div>
  )
}

/** The settings' tools.mcp switches, saved as they change. */
function Options({ view }: { view: McpView }) {
  const { mcp } = useStores()
  const saving = useStore(mcp, (s) => s.savingOptions)
  const [timeout, setTimeoutText] = useState(String(view.callTimeoutSeconds))
  useEffect(() => setTimeoutText(String(view.callTimeoutSeconds)), [view.callTimeoutSeconds])
  const opts = { enabled: view.enabled, startOnOpen: view.startOnOpen, callTimeoutSeconds: view.callTimeoutSeconds }
  const saveTimeout = () => {
    const n = Number(timeout)
    if (timeout.trim() !== '' && n !== view.callTimeoutSeconds) void mcp.actions.setOptions({ ...opts, callTimeoutSeconds: n })
  }
  return (
    <section className="settings-section">
      <h3>MCP tools</h3>
      <label className="settings-check">
        <input type="checkbox" checked={view.enabled} disabled={saving} onChange={(e) => void mcp.actions.setOptions({ ...opts, enabled: e.target.checked })} data-testid="mcp-enabled" />
        Offer the tools of MCP servers to the model
      </label>
      {!view.enabled && (
        <div className="mcp-off" role="status" data-testid="mcp-off">
          MCP tools are off: the model is offered none of the tools below.
        </div>
      )}
      <p className="hint">
        In Agent and Run mode an agent uses them only when its package allows it (tools.mcp in agents.json), and only from the servers it names.
        {view.allowedServers.length > 0 && (
          <>
            {' '}
            The settings offer only: <span className="mono">{view.allowedServers.join(', ')}</span>.
          </>
        )}
      </p>
      <div className="mcp-options">
        <label className="settings-check">
          <input
            type="checkbox"
            checked={view.startOnOpen}
            disabled={saving}
            onChange={(e) => void mcp.actions.setOptions({ ...opts, startOnOpen: e.target.checked })}
            data-testid="mcp-start-on-open"
          />
          Start the servers when a project opens (otherwise when their tools are first needed)
        </label>
        <label className="mcp-timeout">
          <span>Call timeout</span>
          <input
            className="input input-small input-number"
            type="number"
            min={1}
            value={timeout}
            disabled={saving}
            onChange={(e) => setTimeoutText(e.target.value)}
            onBlur={saveTimeout}
            onKeyDown={(e) => e.key === 'Enter' && saveTimeout()}
            data-testid="mcp-call-timeout"
          />
          <span className="hint">seconds, then the call is cancelled on the server</span>
        </label>
      </div>
    </section>
  )
}

function ServerCard({ server: s, hasProject, onEdit, onRemove }: { server: McpServer; hasProject: boolean; onEdit: () => void; onRemove: () => void }) {
  const { mcp } = useStores()
  const busy = useStore(mcp, (st) => st.busy[s.name])
  const log = useStore(mcp, (st) => st.logs[s.name])
  const fromProject = s.source === 'project'
  const file = s.file || '.mcp.json'
  const env = Object.entries(s.config.env ?? {})
  const headers = Object.entries(s.config.headers ?? {})
  const runnable = s.state !== 'disabled' && s.state !== 'pending-approval'
  return (
    <li className={`card mcp-card is-${s.state}`} data-testid="mcp-server" data-name={s.name} data-state={s.state}>
      <div className="mcp-head">
        <span className={`mcp-dot is-${s.state}`} aria-hidden="true" />
        <strong className="mcp-name">{s.name}</strong>
        <span className="badge" title={fromProject ? `From the project’s ${file}` : 'From the settings'} data-testid="mcp-source">
          {fromProject ? file : 'settings'}
        </span>
        <span className="badge">{s.transport === 'http' ? 'HTTP' : 'local'}</span>
        <span className={`mcp-status is-${s.state}`} data-testid="mcp-status">
          {busy === 'starting' ? 'Starting…' : statusText(s)}
        </span>
        <span className="mcp-spacer" />
        <div className="mcp-actions">
          {fromProject && s.state === 'pending-approval' && (
            <button type="button" className="btn btn-small btn-primary" disabled={!!busy || !hasProject} onClick={() => void mcp.actions.approve(s.name)} data-testid="mcp-approve">
              {busy === 'approving' ? 'Approving…' : 'Approve'}
            </button>
          )}
          {hasProject && runnable && (
            <button type="button" className="btn btn-small" disabled={!!busy} onClick={() => void mcp.actions.restart(s.name)} data-testid="mcp-restart">
              {busy === 'starting' ? 'Starting…' : s.state === 'ready' || s.state === 'failed' ? 'Restart' : 'Start'}
            </button>
          )}
          {fromProject && s.state !== 'pending-approval' && s.state !== 'disabled' && (
            <button type="button" className="btn btn-small btn-ghost" disabled={!!busy} onClick={() => void mcp.actions.revoke(s.name)} data-testid="mcp-revoke">
              Revoke
            </button>
          )}
          {!fromProject && (
            <>
              <button
                type="button"
                className="btn btn-small btn-ghost"
                disabled={!!busy}
                onClick={() => void mcp.actions.setEnabled(s.name, s.state === 'disabled')}
                data-testid="mcp-toggle"
              >
                {s.state === 'disabled' ? 'Enable' : 'Disable'}
              </button>
              <button type="button" className="btn btn-small btn-ghost" disabled={!!busy} onClick={onEdit} data-testid="mcp-edit">
                Edit
              </button>
              <button type="button" className="btn btn-small btn-ghost" disabled={!!busy} onClick={onRemove} data-testid="mcp-remove">
                Remove…
              </button>
            </>
          )}
        </div>
      </div>
      <div className="mcp-command mono" title={s.command} data-testid="mcp-command">
        {s.transport === 'http' ? s.command : `$ ${s.command}`}
      </div>
      {(env.length > 0 || headers.length > 0 || s.config.cwd || s.config.envFile) && (
        <dl className="mcp-facts">
          {s.config.envFile && (
            <>
              <dt>Environment file</dt>
              <dd className="mono">{s.config.envFile}</dd>
            </>
          )}
          {s.config.cwd && (
            <>
              <dt>Folder</dt>
              <dd className="mono">{s.config.cwd}</dd>
            </>
          )}
          {env.length > 0 && (
            <>
              <dt>Environment</dt>
              <dd className="mono" data-testid="mcp-env">
                {env.map(([k, v]) => `${k}=${v}`).join('  ')}
              </dd>
            </>
          )}
          {headers.length > 0 && (
            <>
              <dt>Headers</dt>
              <dd className="mono">{headers.map(([k, v]) => `${k}: ${v}`).join('  ')}</dd>
            </>
          )}
        </dl>
      )}
      {s.state === 'pending-approval' && (
        <div className="mcp-approval" data-testid="mcp-approval">
          {s.approvalChanged
            ? `Its entry in the project’s ${file} changed since you approved it. Approve it again to let it run as it is now.`
            : `This server came with the project’s ${file}. Approving it lets it run the command above in this project, whenever its tools are needed.`}
        </div>
      )}
      {(s.warnings?.length ?? 0) > 0 && (
        <ul className="mcp-warnings" data-testid="mcp-warnings">
          {s.warnings?.map((w) => (
            <li key={w} data-testid="mcp-warning">
              Careful: {w}.
            </li>
          ))}
        </ul>
      )}
      {s.withheld && (
        <div className="mcp-failure" data-testid="mcp-withheld">
          <div className="mcp-error">{s.withheld}</div>
        </div>
      )}
      {s.state === 'failed' && (
        <div className="mcp-failure" data-testid="mcp-failure">
          <div className="mcp-error" data-testid="mcp-error">
            {s.error}
            {s.retryAt && !s.gaveUp && <span className="hint"> · started again when next needed</span>}
            {s.gaveUp && <span className="hint"> · failed {s.failures} times in a row: restart it when it is fixed</span>}
          </div>
          {s.stderrTail && (
            <pre className="mcp-pre mono" data-testid="mcp-stderr">
              {lastLines(s.stderrTail, 12)}
            </pre>
          )}
        </div>
      )}
      {s.logPath && hasProject && s.state !== 'pending-approval' && (
        <div className="mcp-log-row">
          <button
            type="button"
            className="mcp-link"
            onClick={() => (log === undefined ? void mcp.actions.loadLog(s.name) : mcp.actions.hideLog(s.name))}
            data-testid="mcp-log-button"
          >
            {log === undefined ? 'Show the stderr log' : 'Hide the log'}
          </button>
          {log !== undefined && (
            <pre className="mcp-pre mono" data-testid="mcp-log">
              {log.trim() ? lastLines(log, 40) : '(empty)'}
            </pre>
          )}
        </div>
      )}
      {s.tools.length > 0 && (
        <details className="mcp-tools" data-testid="mcp-tools">
          <summary data-testid="mcp-tools-toggle">
            {s.tools.length} {s.tools.length === 1 ? 'tool' : 'tools'}
            {!s.offered && ' (not offered to the model)'}
          </summary>
          <ul>
            {s.tools.map((t) => (
              <li key={t.wireName} data-testid="mcp-tool" data-name={t.wireName}>
                <span className="mono mcp-tool-name">{t.name}</span>
                <span className="mcp-tool-desc">{t.description}</span>
              </li>
            ))}
          </ul>
        </details>
      )}
    </li>
  )
}

/** Adds a server, or edits one (previous is its name). */
function ServerForm({ previous, initial, onDone }: { previous: string; initial: McpForm; onDone: () => void }) {
  const { mcp } = useStores()
  const busy = useStore(mcp, (s) => !!s.busy[previous || initial.name])
  const [form, setForm] = useState(initial)
  const [problems, setProblems] = useState<string[]>([])
  const ref = useRef<HTMLFormElement>(null)
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'nearest' })
    ref.current?.querySelector<HTMLInputElement>('input')?.focus()
  }, [])
  const set = (patch: Partial<McpForm>) => setForm((f) => ({ ...f, ...patch }))
  const submit = async () => {
    const { spec, problems } = specFromForm(form)
    setProblems(problems)
    if (problems.length) return
    if (await mcp.actions.save(previous, spec)) onDone()
  }
  const text = (key: 'name' | 'command' | 'cwd' | 'envFile' | 'url', label: string, placeholder: string) => (
    <div className="settings-field">
      <label htmlFor={`mcp-form-${key}`}>{label}</label>
      <input id={`mcp-form-${key}`} className="input mono" value={form[key]} placeholder={placeholder} onChange={(e) => set({ [key]: e.target.value })} data-testid={`mcp-form-${key}`} />
    </div>
  )
  const area = (key: 'args' | 'env' | 'headers', label: string, placeholder: string, help?: string) => (
    <div className="settings-field">
      <label htmlFor={`mcp-form-${key}`}>{label}</label>
      <textarea
        id={`mcp-form-${key}`}
        className="input mono mcp-textarea"
        rows={3}
        value={form[key]}
        placeholder={placeholder}
        spellCheck={false}
        onChange={(e) => set({ [key]: e.target.value })}
        data-testid={`mcp-form-${key}`}
      />
      {help && <span className="hint">{help}</span>}
    </div>
  )
  return (
    <form
      ref={ref}
      className="mcp-form"
      onSubmit={(e) => {
        e.preventDefault()
        void submit()
      }}
      data-testid="mcp-form"
    >
      <h3>{previous ? `Edit ${previous}` : 'Add a server'}</h3>
      <div className="mcp-form-row">
        {text('name', 'Name', 'github')}
        <div className="settings-field mcp-kind-field">
          <span className="mcp-label">Kind</span>
          <div className="mcp-kind" role="radiogroup" aria-label="Kind of server">
            {(
              [
                ['stdio', 'Local command'],
                ['http', 'Remote URL'],
              ] as const
            ).map(([k, label]) => (
              <label key={k} className={`mcp-kind-option ${form.kind === k ? 'is-active' : ''}`}>
                <input type="radio" name="mcp-kind" checked={form.kind === k} onChange={() => set({ kind: k })} data-testid={`mcp-form-kind-${k}`} />
                {label}
              </label>
            ))}
          </div>
        </div>
      </div>
      {form.kind === 'stdio' ? (
        <>
          <div className="mcp-form-row">
            {text('command', 'Command', 'npx')}
            {text('cwd', 'Folder (optional)', 'the project folder')}
          </div>
          {area('args', 'Arguments, one a line', '-y\n@modelcontextprotocol/server-filesystem\n/home/me/notes')}
          {area(
            'env',
            'Environment, NAME=value a line',
            'GITHUB_TOKEN=${env:GITHUB_TOKEN}',
            'Values are kept like API keys and shown masked; a masked value stays as saved. ${env:NAME}, ${NAME:-default} and ${workspaceFolder} are expanded when the server starts.',
          )}
          {text('envFile', 'Environment file (optional)', '${workspaceFolder}/.env')}
        </>
      ) : (
        <>
          {text('url', 'URL (streamable HTTP)', 'https://mcp.example.com/mcp')}
          {area('headers', 'Headers, "Name: value" a line', 'Authorization: Bearer …', 'Values are kept like API keys and shown masked; a masked value stays as saved.')}
        </>
      )}
      <label className="settings-check">
        <input type="checkbox" checked={form.disabled} onChange={(e) => set({ disabled: e.target.checked })} data-testid="mcp-form-disabled" />
        Disabled (kept, but never started)
      </label>
      {problems.length > 0 && (
        <ul className="mcp-problems" data-testid="mcp-form-problems">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <div className="mcp-form-buttons">
        <button type="button" className="btn" onClick={onDone} data-testid="mcp-form-cancel">
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="mcp-form-save">
          {busy ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  )
}

/** A configuration pasted from Claude Desktop, Cursor or a README: read
 * first (secrets masked), then added to the settings. */
function PasteBlock() {
  const { mcp } = useStores()
  const parsed = useStore(mcp, (s) => s.parsed)
  const parsing = useStore(mcp, (s) => s.parsing)
  const importing = useStore(mcp, (s) => s.importing)
  const imported = useStore(mcp, (s) => s.imported)
  const [text, setText] = useState('')
  return (
    <section className="settings-section">
      <h3>Paste a configuration</h3>
      <p className="hint">
        A Claude Desktop, Claude Code or Cursor file, its <span className="mono">mcpServers</span> object, a VS Code <span className="mono">mcp.json</span> (
        <span className="mono">servers</span> and <span className="mono">inputs</span>), or <span className="mono">"name": {'{…}'}</span> entries. Values may use{' '}
        <span className="mono">{'${env:NAME}'}</span>, <span className="mono">{'${NAME:-default}'}</span> and <span className="mono">{'${workspaceFolder}'}</span>.
      </p>
      <textarea
        className="input mono mcp-textarea"
        rows={5}
        value={text}
        spellCheck={false}
        placeholder={'{\n  "mcpServers": {\n    "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"] }\n  }\n}'}
        onChange={(e) => {
          setText(e.target.value)
          mcp.actions.clearPaste()
        }}
        aria-label="Configuration to paste"
        data-testid="mcp-paste-input"
      />
      <div className="mcp-form-buttons">
        <button type="button" className="btn" disabled={!text.trim() || parsing} onClick={() => void mcp.actions.parse(text)} data-testid="mcp-paste-read">
          {parsing ? 'Reading…' : 'Read'}
        </button>
      </div>
      {parsed && (
        <div className="mcp-paste-preview" data-testid="mcp-paste-preview">
          {parsed.servers.length > 0 && (
            <ul className="mcp-paste-list">
              {parsed.servers.map((s) => (
                <li key={s.name} data-testid="mcp-paste-server" data-name={s.name}>
                  <strong>{s.name}</strong>
                  {parsed.replaces.includes(s.name) && <span className="badge">replaces the saved one</span>}
                  <div className="mono mcp-command">{s.transport === 'http' ? s.command : `$ ${s.command}`}</div>
                  {Object.keys(s.config.env ?? {}).length > 0 && (
                    <div className="mono hint">
                      {Object.entries(s.config.env ?? {})
                        .map(([k, v]) => `${k}=${v}`)
                        .join('  ')}
                    </div>
                  )}
                </li>
              ))}
            </ul>
          )}
          {parsed.problems.length > 0 && (
            <ul className="mcp-problems" data-testid="mcp-paste-problems">
              {parsed.problems.map((p, i) => (
                <li key={i} data-testid="mcp-paste-problem">
                  {p.server && <strong>{p.server}</strong>} {p.field && <span className="mono">{p.field}</span>} {p.message}
                  {p.server && ' (left out)'}
                </li>
              ))}
            </ul>
          )}
          {parsed.servers.length > 0 && (
            <div className="mcp-form-buttons">
              <button
                type="button"
                className="btn btn-primary"
                disabled={importing}
                onClick={async () => {
                  if (await mcp.actions.importBlock(text)) setText('')
                }}
                data-testid="mcp-paste-add"
              >
                {importing ? 'Adding…' : `Add ${parsed.servers.length} ${parsed.servers.length === 1 ? 'server' : 'servers'}`}
              </button>
            </div>
          )}
        </div>
      )}
      {imported && (
        <div className="mcp-imported" role="status" data-testid="mcp-paste-result">
          {[...imported.added.map((n) => `Added ${n}`), ...imported.replaced.map((n) => `Replaced ${n}`)].join(' · ')}
          {imported.problems.length > 0 && ` · ${imported.problems.length} left out`}
        </div>
      )}
    </section>
  )
}
