import { useEffect, useRef, useState } from 'react'
import type { McpServer, McpView } from '../../bridge'
import { ConfirmDialog } from '../../components/ConfirmDialog'
import { ErrorBanner } from '../../components/ErrorBanner'
import { useStore, useStores } from '../../stores'
import { SignOutButton } from './SignOutButton'
import { emptyForm, formOf, lastLines, problemWords, specFromForm, statusText, type McpForm } from './spec'
import './mcp.css'
import { Trans, useTranslation } from '../../i18n'
import { backendText, saidText } from '../../i18n/backend'

/** Settings → MCP: tools from Model Context Protocol servers. The MCP
 * switches; every server with its status (starting, ready with its tools,
 * failed with the error and the end of its stderr, waiting for approval with
 * what it would run); adding, editing, enabling and removing the settings'
 * servers, also from a pasted Claude Desktop block; approving the project's
 * .mcp.json servers. Secrets are shown masked. */
export function McpPanel() {
  const { t } = useTranslation()
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
          <h3>{t('mcp.servers')}</h3>
          <span className="mcp-spacer" />
          <button type="button" className="btn btn-small" onClick={() => setEditing({ previous: '', form: emptyForm() })} data-testid="mcp-add">
            {t('mcp.add')}
          </button>
        </div>
        <p className="hint">
          {t('mcp.yours')}{' '}
          {view?.project ? (
            <>
              <Trans
                t={t}
                i18nKey="mcp.projectServers"
                values={{ project: view.project }}
                components={{ m1: <span className="mono" />, m2: <span className="mono" />, m3: <span className="mono" />, b: <strong /> }}
              />
            </>
          ) : (
            t('mcp.openProject')
          )}
        </p>
        {view && view.problems.length > 0 && (
          <ul className="mcp-problems" data-testid="mcp-problems">
            {view.problems.map((p, i) => (
              <li key={i}>
                {p.server && <strong>{p.server}</strong>} {p.field && <span className="mono">{p.field}</span>} {problemWords(p)}
              </li>
            ))}
          </ul>
        )}
        {!loaded && <p className="hint">{t('common.loading')}</p>}
        {loaded && servers.length === 0 && (
          <p className="hint" data-testid="mcp-empty">
            {t('mcp.empty')}
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
          title={t('mcp.removeTitle', { name: removing.name })}
          confirmLabel={t('common.remove')}
          busyLabel={t('mcp.removing')}
          testId="mcp-remove"
          onCancel={() => setRemoving(null)}
          onConfirm={async () => {
            if (await mcp.actions.remove(removing.name)) setRemoving(null)
          }}
        >
          <p>
            {removing.state === 'ready' ? t('mcp.removeBodyReady') : t('mcp.removeBody')}
          </p>
        </ConfirmDialog>
      )}

      <PasteBlock />
    </div>
  )
}

/** The settings' tools.mcp switches, saved as they change. */
function Options({ view }: { view: McpView }) {
  const { t } = useTranslation()
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
      <h3>{t('mcp.tools')}</h3>
      <label className="settings-check">
        <input type="checkbox" checked={view.enabled} disabled={saving} onChange={(e) => void mcp.actions.setOptions({ ...opts, enabled: e.target.checked })} data-testid="mcp-enabled" />
        {t('mcp.offer')}
      </label>
      {!view.enabled && (
        <div className="mcp-off" role="status" data-testid="mcp-off">
          {t('mcp.offNote')}
        </div>
      )}
      <p className="hint">
        {t('mcp.agentsNote')}
        {view.allowedServers.length > 0 && (
          <>
            {' '}
            <Trans t={t} i18nKey="mcp.allowedOnly" values={{ servers: view.allowedServers.join(', ') }} components={{ m: <span className="mono" /> }} />
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
          {t('mcp.startOnOpen')}
        </label>
        <label className="mcp-timeout">
          <span>{t('mcp.callTimeout')}</span>
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
          <span className="hint">{t('mcp.seconds')}</span>
        </label>
      </div>
    </section>
  )
}

function ServerCard({ server: s, hasProject, onEdit, onRemove }: { server: McpServer; hasProject: boolean; onEdit: () => void; onRemove: () => void }) {
  const { t } = useTranslation()
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
        <span className="badge" title={fromProject ? t('mcp.fromProject', { file }) : t('mcp.fromSettings')} data-testid="mcp-source">
          {fromProject ? file : t('mcp.settings')}
        </span>
        <span className="badge">{s.transport === 'http' ? 'HTTP' : t('mcp.local')}</span>
        <span className={`mcp-status is-${s.state}`} data-testid="mcp-status">
          {busy === 'starting' ? t('mcpStatus.starting') : statusText(s)}
        </span>
        <span className="mcp-spacer" />
        <div className="mcp-actions">
          {s.transport !== 'stdio' && <SignOutButton name={s.name} />}
          {fromProject && s.state === 'pending-approval' && (
            <button type="button" className="btn btn-small btn-primary" disabled={!!busy || !hasProject} onClick={() => void mcp.actions.approve(s.name)} data-testid="mcp-approve">
              {busy === 'approving' ? t('mcp.approving') : t('mcp.approve')}
            </button>
          )}
          {hasProject && runnable && (
            <button type="button" className="btn btn-small" disabled={!!busy} onClick={() => void mcp.actions.restart(s.name)} data-testid="mcp-restart">
              {busy === 'starting' ? t('mcpStatus.starting') : s.state === 'ready' || s.state === 'failed' ? t('mcp.restart') : t('mcp.start')}
            </button>
          )}
          {fromProject && s.state !== 'pending-approval' && s.state !== 'disabled' && (
            <button type="button" className="btn btn-small btn-ghost" disabled={!!busy} onClick={() => void mcp.actions.revoke(s.name)} data-testid="mcp-revoke">
              {t('mcp.revoke')}
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
                {s.state === 'disabled' ? t('mcp.enable') : t('mcp.disable')}
              </button>
              <button type="button" className="btn btn-small btn-ghost" disabled={!!busy} onClick={onEdit} data-testid="mcp-edit">
                {t('common.edit')}
              </button>
              <button type="button" className="btn btn-small btn-ghost" disabled={!!busy} onClick={onRemove} data-testid="mcp-remove">
                {t('mcp.removeMore')}
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
              <dt>{t('mcp.envFile')}</dt>
              <dd className="mono">{s.config.envFile}</dd>
            </>
          )}
          {s.config.cwd && (
            <>
              <dt>{t('mcp.folder')}</dt>
              <dd className="mono">{s.config.cwd}</dd>
            </>
          )}
          {env.length > 0 && (
            <>
              <dt>{t('mcp.env')}</dt>
              <dd className="mono" data-testid="mcp-env">
                {env.map(([k, v]) => `${k}=${v}`).join('  ')}
              </dd>
            </>
          )}
          {headers.length > 0 && (
            <>
              <dt>{t('mcp.headers')}</dt>
              <dd className="mono">{headers.map(([k, v]) => `${k}: ${v}`).join('  ')}</dd>
            </>
          )}
        </dl>
      )}
      {s.state === 'pending-approval' && (
        <div className="mcp-approval" data-testid="mcp-approval">
          {s.approvalChanged
            ? t('mcp.changed', { file })
            : t('mcp.cameWith', { file })}
        </div>
      )}
      {(s.warnings?.length ?? 0) > 0 && (
        <ul className="mcp-warnings" data-testid="mcp-warnings">
          {s.warnings?.map((w) => (
            <li key={w} data-testid="mcp-warning">
              {t('mcp.careful', { warning: w })}
            </li>
          ))}
        </ul>
      )}
      {s.withheld && (
        <div className="mcp-failure" data-testid="mcp-withheld">
          <div className="mcp-error">{saidText(s.withheldWords, s.withheld)}</div>
        </div>
      )}
      {s.state === 'failed' && (
        <div className="mcp-failure" data-testid="mcp-failure">
          <div className="mcp-error" data-testid="mcp-error">
            {backendText({ message: s.error, key: s.errorKey, params: s.errorParams })}
            {s.retryAt && !s.gaveUp && <span className="hint">{t('mcp.retry')}</span>}
            {s.gaveUp && <span className="hint">{t('mcp.gaveUp', { count: s.failures })}</span>}
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
            {log === undefined ? t('mcp.showLog') : t('mcp.hideLog')}
          </button>
          {log !== undefined && (
            <pre className="mcp-pre mono" data-testid="mcp-log">
              {log.trim() ? lastLines(log, 40) : t('instr.empty')}
            </pre>
          )}
        </div>
      )}
      {s.tools.length > 0 && (
        <details className="mcp-tools" data-testid="mcp-tools">
          <summary data-testid="mcp-tools-toggle">
            {t('mcp.toolCount', { count: s.tools.length })}
            {!s.offered && t('mcp.notOffered')}
          </summary>
          <ul>
            {s.tools.map((tool) => (
              <li key={tool.wireName} data-testid="mcp-tool" data-name={tool.wireName}>
                <span className="mono mcp-tool-name">{tool.name}</span>
                <span className="mcp-tool-desc">{tool.description}</span>
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
  const { t } = useTranslation()
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
      <h3>{previous ? t('mcp.form.edit', { name: previous }) : t('mcp.add')}</h3>
      <div className="mcp-form-row">
        {text('name', t('mcp.form.name'), 'github')}
        <div className="settings-field mcp-kind-field">
          <span className="mcp-label">{t('mcp.form.kind')}</span>
          <div className="mcp-kind" role="radiogroup" aria-label={t('mcp.form.kindLabel')}>
            {(
              [
                ['stdio', t('mcp.form.stdio')],
                ['http', t('mcp.form.http')],
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
            {text('command', t('mcp.form.command'), 'npx')}
            {text('cwd', t('mcp.form.cwd'), t('mcp.form.cwdPlaceholder'))}
          </div>
          {area('args', t('mcp.form.args'), '-y\n@modelcontextprotocol/server-filesystem\n/home/me/notes')}
          {area(
            'env',
            t('mcp.form.env'),
            'GITHUB_TOKEN=${env:GITHUB_TOKEN}',
            t('mcp.form.envHelp'),
          )}
          {text('envFile', t('mcp.form.envFile'), '${workspaceFolder}/.env')}
        </>
      ) : (
        <>
          {text('url', t('mcp.form.url'), 'https://mcp.example.com/mcp')}
          {area('headers', t('mcp.form.headers'), 'Authorization: Bearer …', t('mcp.form.headersHelp'))}
        </>
      )}
      <label className="settings-check">
        <input type="checkbox" checked={form.disabled} onChange={(e) => set({ disabled: e.target.checked })} data-testid="mcp-form-disabled" />
        {t('mcp.form.disabled')}
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
          {t('common.cancel')}
        </button>
        <button type="submit" className="btn btn-primary" disabled={busy} data-testid="mcp-form-save">
          {busy ? t('settings.saving') : t('common.save')}
        </button>
      </div>
    </form>
  )
}

const pasteExample = '{\n  "mcpServers": {\n    "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"] }\n  }\n}'

/** A configuration pasted from Claude Desktop, Cursor or a README: read
 * first (secrets masked), then added to the settings. */
function PasteBlock() {
  const { t } = useTranslation()
  const { mcp } = useStores()
  const parsed = useStore(mcp, (s) => s.parsed)
  const parsing = useStore(mcp, (s) => s.parsing)
  const importing = useStore(mcp, (s) => s.importing)
  const imported = useStore(mcp, (s) => s.imported)
  const [text, setText] = useState('')
  return (
    <section className="settings-section">
      <h3>{t('mcp.paste.title')}</h3>
      <p className="hint">
        <Trans
          t={t}
          i18nKey="mcp.paste.hint"
          components={Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8].map((i) => [`m${i}`, <span key={i} className="mono" />]))}
        />
      </p>
      <textarea
        className="input mono mcp-textarea"
        rows={5}
        value={text}
        spellCheck={false}
        placeholder={pasteExample}
        onChange={(e) => {
          setText(e.target.value)
          mcp.actions.clearPaste()
        }}
        aria-label={t('mcp.paste.label')}
        data-testid="mcp-paste-input"
      />
      <div className="mcp-form-buttons">
        <button type="button" className="btn" disabled={!text.trim() || parsing} onClick={() => void mcp.actions.parse(text)} data-testid="mcp-paste-read">
          {parsing ? t('mcp.paste.reading') : t('mcp.paste.read')}
        </button>
      </div>
      {parsed && (
        <div className="mcp-paste-preview" data-testid="mcp-paste-preview">
          {parsed.servers.length > 0 && (
            <ul className="mcp-paste-list">
              {parsed.servers.map((s) => (
                <li key={s.name} data-testid="mcp-paste-server" data-name={s.name}>
                  <strong>{s.name}</strong>
                  {parsed.replaces.includes(s.name) && <span className="badge">{t('mcp.paste.replaces')}</span>}
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
                  {p.server && <strong>{p.server}</strong>} {p.field && <span className="mono">{p.field}</span>} {problemWords(p)}
                  {p.server && t('mcp.paste.leftOut')}
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
                {importing ? t('mcp.paste.adding') : t('mcp.paste.add', { count: parsed.servers.length })}
              </button>
            </div>
          )}
        </div>
      )}
      {imported && (
        <div className="mcp-imported" role="status" data-testid="mcp-paste-result">
          {[...imported.added.map((n) => t('mcp.paste.added', { name: n })), ...imported.replaced.map((n) => t('mcp.paste.replaced', { name: n }))].join(' · ')}
          {imported.problems.length > 0 && t('mcp.paste.leftOutCount', { count: imported.problems.length })}
        </div>
      )}
    </section>
  )
}
