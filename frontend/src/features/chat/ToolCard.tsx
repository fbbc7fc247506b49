import { useCallback, useState } from 'react'
import type { Entry, RestoreResult, ToolCall, ToolResultView } from '../../bridge'
import { Modal } from '../../components/Modal'
import { useStore, useStores } from '../../stores'
import { formatBytes, formatDuration, prettyArgs, readableOutput } from '../../lib/format'
import { ApprovalBox } from './ApprovalBox'
import { HandoverBox } from './HandoverBox'
import { LiveOutputView } from './LiveOutput'
import { RestoreDialog } from './RestoreDialog'
import { mcpToolName } from '../../lib/mcp'
import { toolPreview } from '../../lib/toolPreview'
import { codeRuns, toolSummary, toolTitle } from '../../lib/toolSummary'
import type { ToolStatus } from './messageRows'
import { locale, useTranslation } from '../../i18n'
import { saidText, sentence, type Said } from '../../i18n/backend'

const previewChars = 4000
/** Lines of a section shown before "Show all" (the card grows in place: no
 * scroll area inside the conversation's). */
const clampLines = 30

/** How a command (shell.run) ended when it did not end by itself: its
 * result says it was stopped or timed out. */
function commandEnd(name: string, result?: Entry): 'stopped' | 'timed out' | null {
  if (name !== 'shell.run' || !result?.is_error) return null
  try {
    const r = JSON.parse(result.content ?? '') as { stopped?: boolean; timedOut?: boolean }
    return r.stopped ? 'stopped' : r.timedOut ? 'timed out' : null
  } catch {
    return null
  }
}

/** The tools whose change a card offers to undo. */
const undoable = new Set(['fs.write', 'fs.apply_patch'])

/** "Undo this change" under a write or a patch: the dialog lists what will
 * be restored; once undone the card says so and offers to redo it (the
 * files as they were before the undo). */
function UndoChange({ callId }: { callId: string }) {
  const { t } = useTranslation()
  const { chat, conversations } = useStores()
  const conversationId = useStore(chat, (s) => s.conversationId)
  const streaming = useStore(chat, (s) => s.streaming)
  const [asking, setAsking] = useState(false)
  const [undone, setUndone] = useState<RestoreResult | null>(null)
  const [busy, setBusy] = useState(false)
  const close = useCallback(() => setAsking(false), [])
  if (!conversationId) return null
  const redo = async () => {
    if (!undone?.rewindId) return
    setBusy(true)
    const r = await conversations.actions.rewind(conversationId, undone.rewindId, 'files', [])
    setBusy(false)
    if (r) setUndone(null)
  }
  return (
    <div className="tool-foot" data-testid="tool-undo-bar">
      {undone ? (
        <>
          <span className="tool-undone" data-testid="tool-undone">
            {t('tool.undo.done', {
              what: undone.restored.length === 1 ? undone.restored[0] : t('tool.undo.files', { count: undone.restored.length }),
              kept: undone.kept.length > 0 ? t('tool.undo.kept', { count: undone.kept.length }) : '',
            })}
          </span>
          {undone.rewindId && (
            <button type="button" className="btn btn-small" disabled={busy || streaming} onClick={() => void redo()} data-testid="tool-redo">
              {t('tool.undo.redo')}
            </button>
          )}
        </>
      ) : (
        <button type="button" className="btn btn-small" disabled={streaming} onClick={() => setAsking(true)} data-testid="tool-undo">
          {t('tool.undo.undo')}
        </button>
      )}
      {asking && <RestoreDialog kind="undo" conversationId={conversationId} target={callId} onClose={close} onDone={(r) => r && setUndone(r)} />}
    </div>
  )
}

/** A summary with its `quoted` values as code. */
export function SummaryText({ text }: { text: string }) {
  return (
    <>
      {codeRuns(text).map((part, i) =>
        i % 2 === 1 ? (
          <code key={i} className="tool-code">
            {part}
          </code>
        ) : (
          part
        ),
      )}
    </>
  )
}

/** Text in a block that shows its first lines and grows to all of them. */
function Clamped({ text, testId }: { text: string; testId?: string }) {
  const { t } = useTranslation()
  const [all, setAll] = useState(false)
  const lines = text.split('\n')
  const long = lines.length > clampLines
  return (
    <>
      <pre className="tool-pre mono" data-testid={testId}>
        {long && !all ? `${lines.slice(0, clampLines).join('\n')}\n…` : text}
      </pre>
      {long && (
        <button type="button" className="msg-action tool-more" onClick={() => setAll((a) => !a)} data-testid="tool-more">
          {all ? t('common.showLess') : t('tool.showAllLines', { count: lines.length })}
        </button>
      )}
    </>
  )
}

/** A tool call as a compact card: name, what it did in words (its
 * arguments when the log does not say), status, duration and a result
 * preview; expands in place for the full arguments and result, and opens the
 * whole output when the log keeps only its beginning. */
export function ToolCard({
  call,
  result,
  status,
  durationMs,
  errorText,
  words,
  said,
}: {
  call: ToolCall
  result?: Entry
  status: ToolStatus
  durationMs?: number
  errorText?: string
  /** What the call did, in words (entry.view.calls): said for the run's
   * own files, whose changes the log reads as steps. */
  words?: string
  /** The same words by their templates (entry.view.callWords): said in the
   * language in use. */
  said?: Said
}) {
  const { t } = useTranslation()
  const [open, setOpen] = useState(false)
  const [full, setFull] = useState<ToolResultView | null>(null)
  const [loadingFull, setLoadingFull] = useState(false)
  const { chat } = useStores()
  // The output of a command while it runs (until its result is read).
  const live = useStore(chat, (s) => s.toolOutput[call.id])
  const streaming = useStore(chat, (s) => s.streaming)
  const answered = useStore(chat, (s) => s.resolved[call.id])
  // The log holds a waiting request until the call's result replaces it: an
  // answered one (an allowed call runs meanwhile) shows as answered.
  const placeholder = result?.approval?.state === 'waiting'
  if (placeholder && answered) {
    if (answered.state === 'allowed') status = streaming ? 'running' : status
    result = { ...result!, approval: answered }
  }
  const finished = result && !placeholder
  // The log's words of a call still waiting describe the placeholder ("failed"): not yet.
  if (placeholder) words = said = undefined
  const name = call.function.name || result?.tool_name || 'tool'
  const ended = commandEnd(name, result)
  const showLive = !!live && !finished
  const canStop = streaming && !finished && (status === 'running' || status === 'no-result') && (name === 'shell.run' || !!live) && !live?.done
  const mcp = mcpToolName(name)
  const args = call.function.arguments ?? ''
  const large = result?.view?.large
  // A large result: its beginning, without the log's preview header and path.
  const output = large ? large.head : (result?.content ?? '')
  // Folded: the text the result carries or a failure's message, never its JSON.
  const preview = output ? toolPreview(output) : null
  const duration = formatDuration(durationMs ?? result?.duration)
  const externalised = !!result?.fullOutputPath || !!large
  // conv.create, conv.send: the conversation the turn went to, in place of the JSON.
  const handover = result?.view?.handover
  // A call that waited (or waits) for the user's approval: the request.
  const approval = result?.approval

  // The heading: what the tool is and what it did, in the user's words.
  const title = toolTitle(name)
  // A run's progress: the log's words name the steps (in the language in
  // use by their templates; the English words of an older backend only in English).
  const runWords = said?.key ? saidText(said, words ?? '') : locale() === 'en' ? words : undefined
  const runStep = !!words && !!runWords && args.includes('"@state/workflow.md"')
  const summary = runStep ? sentence(runWords!) : toolSummary(name, args, finished ? output : undefined, !!result?.is_error)

  const showFull = async () => {
    if (!result) return
    setLoadingFull(true)
    const v = await chat.actions.readToolResult(result.id)
    setLoadingFull(false)
    if (v) setFull(v)
  }

  return (
    <div className={`tool-card is-${status}`} data-testid="tool-card" data-tool={name} data-status={status}>
      <button type="button" className="tool-head" onClick={() => setOpen((o) => !o)} aria-expanded={open} data-testid="tool-toggle">
        <span className={`tool-dot dot-${status}`} aria-hidden="true" />
        <span className="tool-name" title={mcp ? t('tool.mcpTitle', { name: title, tool: mcp.tool, server: mcp.server }) : undefined} data-testid="tool-title">
          {title}
        </span>
        {mcp && (
          <span className="badge" data-testid="tool-mcp">
            {'MCP'}
          </span>
        )}
        <span className="tool-args" title={summary.replace(/`/g, '')} data-testid="tool-words">
          <SummaryText text={summary} />
        </span>
        <span className="tool-status" data-testid="tool-status">
          {ended ? t(ended === 'stopped' ? 'tool.status.stopped' : 'tool.status.timedOut') : t(`tool.status.${status}`)}
          {duration && ` · ${duration}`}
        </span>
        <span className="tool-chevron" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
      </button>
      {handover && <HandoverBox h={handover} tool={name} />}
      {approval && <ApprovalBox a={approval} toolCallId={call.id} />}
      {showLive && <LiveOutputView out={live} />}
      {canStop && (
        <div className="tool-foot">
          <span className="tool-large">{live ? t('tool.running') : t('tool.starting')}</span>
          <button type="button" className="btn btn-small" onClick={() => void chat.actions.stop()} data-testid="tool-stop">
            {t('common.stop')}
          </button>
        </div>
      )}
      {!open && !showLive && !handover && !approval?.state.startsWith('wait') && preview && status !== 'running' && (
        <div className="tool-preview mono" data-testid="tool-preview" data-content="">
          {preview}
        </div>
      )}
      {open && (
        <div className="tool-body" data-testid="tool-body" data-details="">
          <div className="tool-section-title">{t('tool.details')}</div>
          <div className="tool-ids mono" data-testid="tool-ids">
            {t('tool.detailsId', { name, id: call.id })}
          </div>
          <div className="tool-section-title">{t('tool.arguments')}</div>
          <Clamped text={prettyArgs(args) || t('tool.none')} />
          {errorText && <div className="tool-error">{errorText}</div>}
          <div className="tool-section-title">
            {large ? t('tool.resultHead', { size: formatBytes(large.size) }) : t('tool.result')}
            {result?.is_error ? t('tool.resultError') : ''}
          </div>
          <Clamped
            testId="tool-result-text"
            text={result ? readableOutput(output).slice(0, previewChars) + (output.length > previewChars ? '\n…' : '') : status === 'running' ? t('tool.running') : t('tool.noResult')}
          />
        </div>
      )}
      {externalised && result && (
        <div className="tool-foot">
          <span className="tool-large" data-testid="tool-large" title={result.fullOutputPath}>
            {large ? t('tool.largeSize', { size: formatBytes(large.size) }) : t('tool.large')}
          </span>
          <button type="button" className="btn btn-small" onClick={() => void showFull()} disabled={loadingFull} data-testid="tool-full-output">
            {loadingFull ? t('common.loading') : t('tool.showFull')}
          </button>
        </div>
      )}
      {finished && status === 'ok' && !result?.is_error && undoable.has(name) && <UndoChange callId={call.id} />}
      {full && (
        <Modal title={t('tool.fullTitle', { name: toolTitle(full.toolName || name) })} onClose={() => setFull(null)} wide testId="tool-output-dialog">
          <p className="hint">
            {formatBytes(full.size)}
            {full.truncated ? t('tool.firstShown') : ''}
          </p>
          <pre className="tool-pre mono" data-testid="tool-output-text" data-details="">
            {readableOutput(full.content)}
          </pre>
        </Modal>
      )}
    </div>
  )
}
