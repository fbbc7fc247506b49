import { useEffect, useState } from 'react'
import type { ContextPreview, PreviewDecision, PreviewMessage } from '../../bridge'
import { Modal } from '../../components/Modal'
import { useStore, useStores } from '../../stores'
import { formatPercent, formatTokens } from './meter'
import { count } from '../../lib/count'

/** The context inspector: exactly what the next request would contain
 * (message by message, with tokens and the reason each is there), and what
 * was kept, dropped or compressed and why. */
export function ContextInspector({ onClose }: { onClose: () => void }) {
  const { chat } = useStores()
  const preview = useStore(chat, (s) => s.preview)
  const loading = useStore(chat, (s) => s.previewLoading)
  const mode = useStore(chat, (s) => s.mode)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    void chat.actions.loadPreview().then((p) => setFailed(!p))
  }, [chat])

  return (
    <Modal title="Context inspector" onClose={onClose} wide testId="context-inspector">
      {loading && !preview && <p className="hint">Building the next request…</p>}
      {failed && !loading && !preview && (
        <p className="hint" data-testid="inspector-unavailable">
          {mode === 'run' ? 'No workflow run in this conversation yet: start one to see what its next request contains.' : 'The preview could not be built; see the error above the messages.'}
        </p>
      )}
      {preview && <PreviewBody p={preview} />}
    </Modal>
  )
}

function PreviewBody({ p }: { p: ContextPreview }) {
  const u = p.usage
  const status = u.status
  return (
    <div className="inspector" data-testid="inspector-body">
      <dl className="inspector-summary">
        <div>
          <dt>Used</dt>
          <dd data-testid="inspector-used">
            {u.usedTokens.toLocaleString()} / {u.totalBudget.toLocaleString()} tokens ({formatPercent(u.usagePercent)})
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd className={`status-text is-${status}`}>{status}</dd>
        </div>
        <div>
          <dt>Mode</dt>
          <dd>
            {p.mode}
            {p.agentId ? ` · ${p.agentId}` : ''}
          </dd>
        </div>
        <div>
          <dt>Model</dt>
          <dd className="mono">{p.model || '–'}</dd>
        </div>
        <div>
          <dt>Tools</dt>
          <dd className="mono">{p.toolNames.length ? `${p.toolNames.join(', ')} (${formatTokens(p.toolTokens)} tokens)` : 'none'}</dd>
        </div>
      </dl>
      {(p.notes?.length ?? 0) + (p.build.notes?.length ?? 0) > 0 && (
        <ul className="inspector-notes">
          {[...(p.notes ?? []), ...(p.build.notes ?? [])].map((n, i) => (
            <li key={i}>{n}</li>
          ))}
        </ul>
      )}
      {p.compression && (
        <section className="inspector-section" data-testid="inspector-compression">
          <h3>Compression before the next request</h3>
          <p>
            {p.compression.strategy}: {p.compression.before.usedTokens.toLocaleString()} → {p.compression.after.usedTokens.toLocaleString()} tokens;{' '}
            {count(p.compression.record.compactedIds.length, 'message')} dropped, {p.compression.record.truncatedIds.length} shortened.
          </p>
        </section>
      )}
      <section className="inspector-section">
        <h3>
          The request: {count(p.messages.length, 'message')}, {formatTokens(u.usedTokens)} tokens
        </h3>
        <table className="inspector-table" data-testid="inspector-messages">
          <thead>
            <tr>
              <th>#</th>
              <th>Role</th>
              <th className="num">Tokens</th>
              <th>Content</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            {p.messages.map((m) => (
              <MessageRow key={m.index} m={m} />
            ))}
          </tbody>
        </table>
      </section>
      <Decisions title="Kept" items={p.build.kept} testId="inspector-kept" />
      <Decisions title="Dropped" items={p.build.dropped} testId="inspector-dropped" />
      <Decisions title="Compressed" items={p.build.compressed} testId="inspector-compressed" />
    </div>
  )
}

function excerpt(m: PreviewMessage): string {
  const calls = (m.tool_calls ?? []).map((c) => `→ ${c.function.name}(${c.function.arguments.slice(0, 80)})`).join(' ')
  const text = (m.content ?? '').replace(/\s+/g, ' ').trim()
  const s = [text, calls].filter(Boolean).join(' ')
  return s.length > 220 ? `${s.slice(0, 219)}…` : s
}

function MessageRow({ m }: { m: PreviewMessage }) {
  return (
    <tr className={`kind-${m.kind}`} data-testid="inspector-row">
      <td className="num">{m.index}</td>
      <td>
        {m.role}
        {m.kind !== 'history' && <span className="badge">{m.kind}</span>}
      </td>
      <td className="num">{m.tokens.toLocaleString()}</td>
      <td className="inspector-excerpt">
        {(m.skills?.length ?? 0) > 0 && (
          <span className="inspector-skill-pin" title="The instructions of an active skill: pinned, kept in every request while the skill is active (through any compaction)" data-testid="inspector-skill-pin">
            📌 skill {m.skills?.join(', ')}
          </span>
        )}
        {excerpt(m)}
      </td>
      <td className="inspector-reason">{m.reason}</td>
    </tr>
  )
}

function Decisions({ title, items, testId }: { title: string; items?: PreviewDecision[]; testId: string }) {
  const list = items ?? []
  const total = list.reduce((n, d) => n + (d.count || 1), 0)
  return (
    <section className="inspector-section" data-testid={testId}>
      <h3>
        {title}: {total} {total === 1 ? 'entry' : 'entries'}
      </h3>
      {list.length > 0 && (
        <ul className="inspector-decisions">
          {list.slice(0, 200).map((d, i) => (
            <li key={i}>
              <span className="mono">{d.sourceId.slice(0, 8)}</span>
              {d.throughId ? <span className="mono"> … {d.throughId.slice(0, 8)}</span> : null}
              {d.count > 1 ? ` (${d.count})` : ''} {d.role ? `${d.role}: ` : ''}
              {d.reason}
            </li>
          ))}
          {list.length > 200 && <li className="hint">… {list.length - 200} more</li>}
        </ul>
      )}
    </section>
  )
}
