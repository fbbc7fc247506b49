import { useState } from 'react'
import type { Entry, ToolCall, ToolResultView } from '../../bridge'
import { Modal } from '../../components/Modal'
import { useStores } from '../../stores'
import { argsPreview, formatDuration, prettyArgs, readableOutput } from '../../lib/format'
import type { ToolStatus } from './messageRows'

const statusText: Record<ToolStatus, string> = {
  running: 'running',
  ok: 'done',
  error: 'failed',
  interrupted: 'interrupted',
  pending: 'waiting for you',
  'no-result': 'no result',
}

const previewChars = 4000

/** A tool call as a compact card: name, arguments, status, duration and a
 * result preview; expands for the full arguments and result, and opens the
 * full output when the log keeps only a preview of it. */
export function ToolCard({
  call,
  result,
  status,
  durationMs,
  errorText,
}: {
  call: ToolCall
  result?: Entry
  status: ToolStatus
  durationMs?: number
  errorText?: string
}) {
  const [open, setOpen] = useState(false)
  const [full, setFull] = useState<ToolResultView | null>(null)
  const [loadingFull, setLoadingFull] = useState(false)
  const { chat } = useStores()
  const name = call.function.name || result?.tool_name || 'tool'
  const args = call.function.arguments ?? ''
  const output = result?.content ?? ''
  const duration = formatDuration(durationMs ?? result?.duration)
  const externalised = !!result?.fullOutputPath

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
        <span className="tool-name mono">{name}</span>
        <span className="tool-args">{argsPreview(args)}</span>
        <span className="tool-status" data-testid="tool-status">
          {statusText[status]}
          {duration && ` · ${duration}`}
        </span>
        <span className="tool-chevron" aria-hidden="true">
          {open ? '▾' : '▸'}
        </span>
      </button>
      {!open && output && status !== 'running' && (
        <div className="tool-preview mono" data-testid="tool-preview">
          {output.slice(0, 240).replace(/\s+/g, ' ')}
          {output.length > 240 ? '…' : ''}
        </div>
      )}
      {open && (
        <div className="tool-body" data-testid="tool-body">
          <div className="tool-section-title">Arguments</div>
          <pre className="tool-pre mono">{prettyArgs(args) || '(none)'}</pre>
          {errorText && <div className="tool-error">{errorText}</div>}
          <div className="tool-section-title">Result{result?.is_error ? ' (error)' : ''}</div>
          <pre className="tool-pre mono">{result ? readableOutput(output).slice(0, previewChars) + (output.length > previewChars ? '\n…' : '') : status === 'running' ? 'Running…' : '(no result)'}</pre>
        </div>
      )}
      {externalised && (
        <div className="tool-foot">
          <button type="button" className="btn btn-small" onClick={() => void showFull()} disabled={loadingFull} data-testid="tool-full-output">
            {loadingFull ? 'Loading…' : 'View full output'}
          </button>
          <span className="hint mono">{result?.fullOutputPath}</span>
        </div>
      )}
      {full && (
        <Modal title={`Full output of ${full.toolName || name}`} onClose={() => setFull(null)} wide testId="tool-output-dialog">
          <p className="hint">
            {full.size.toLocaleString()} bytes{full.truncated ? ' (the first 2 MB are shown)' : ''}
          </p>
          <pre className="tool-pre tool-pre-full mono" data-testid="tool-output-text">
            {readableOutput(full.content)}
          </pre>
        </Modal>
      )}
    </div>
  )
}
