import { useEffect, useState } from 'react'
import type { ContextPreview, PreviewDecision, PreviewMessage } from '../../bridge'
import { Markdown } from '../../components/Markdown'
import { Modal } from '../../components/Modal'
import { useStore, useStores } from '../../stores'
import { cacheSummary, costSummary, formatPercent, formatTokens, statusLabel } from './meter'
import { ProjectInstructions } from './ProjectInstructions'
import { count } from '../../lib/count'
import { formatBytes } from '../../lib/format'
import { timeAgo } from '../../lib/time'

type Preview = ContextPreview
type Pin = Preview['conversation']['pins'][number]
type Recalled = Preview['conversation']['recalled'][number]
type CompactionRef = Preview['conversation']['compactions'][number]

/** The context inspector: what the model will remember (the summary of the
 * compacted messages, the pinned ones, the ones recalled for the newest
 * message and why, the compactions so far), then exactly what the next
 * request contains, message by message, with tokens and the reason each is
 * there. Its usage is the meter's: one computation (the preview). */
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

/** Who wrote a message the context carries, in words. */
export function whoOf(role: string, tool?: string, kind?: string): string {
  if (kind === 'record') return 'Run record'
  if (kind === 'meta') return 'Instructions'
  switch (role) {
    case 'user':
      return 'You'
    case 'assistant':
      return 'Assistant'
    case 'tool':
      return tool ? `Result of ${tool}` : 'Tool result'
  }
  return 'Note'
}

/** Why a message was recalled, in words. */
export function recallReason(r: Recalled): string {
  const terms = (r.terms ?? []).filter((t) => t !== '…')
  const parts: string[] = []
  if (terms.length) parts.push(`shares ${terms.slice(0, 5).map((t) => `“${t}”`).join(', ')}${terms.length > 5 ? ', …' : ''} with your newest message`)
  if (r.meaning) parts.push('is close to it in meaning')
  return parts.length ? parts.join(' and ') : 'matches your newest message'
}

function PreviewBody({ p }: { p: Preview }) {
  const { chat } = useStores()
  const agents = useStore(chat, (s) => s.speakers)
  const u = p.usage
  const status = u.status as keyof typeof statusLabel
  const c = p.conversation
  const agent = p.agentId ? (agents[p.agentId]?.name ?? p.agentId) : ''
  return (
    <div className="inspector" data-testid="inspector-body">
      <dl className="inspector-summary">
        <div>
          <dt>Used</dt>
          <dd data-testid="inspector-used" data-used={u.usedTokens} data-percent={u.usagePercent.toFixed(1)}>
            {u.usedTokens.toLocaleString()} / {u.totalBudget.toLocaleString()} tokens ({formatPercent(u.usagePercent)})
          </dd>
        </div>
        <div>
          <dt>Prompt cache</dt>
          <dd data-testid="inspector-cache" data-cached={u.reported?.cachedTokens ?? 0}>
            {cacheSummary(u.reported)?.replace(/^Prompt cache: /, '') ?? 'no usage reported yet'}
          </dd>
        </div>
        <div>
          <dt>Usage and cost</dt>
          <dd data-testid="inspector-cost" data-amount={u.cost?.amount ?? ''}>
            {costSummary(u.reported, u.cost)?.replace(/^Usage: /, '') ?? 'no usage reported yet'}
          </dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd className={`status-text is-${status}`}>{statusLabel[status] ?? status}</dd>
        </div>
        <div>
          <dt>Mode</dt>
          <dd title={p.agentId}>
            {p.mode}
            {agent ? ` · ${agent}` : ''}
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
          <h3>Before the next request</h3>
          <p>
            The next message first compacts {count(p.compression.record.compactedIds.length, 'message')} into the summary:{' '}
            {formatTokens(p.compression.before.usedTokens)} → {formatTokens(p.compression.after.usedTokens)} tokens
            {p.compression.record.truncatedIds.length > 0 ? `; ${count(p.compression.record.truncatedIds.length, 'tool result')} shortened to a preview` : ''}.
          </p>
        </section>
      )}
      <ProjectInstructions preview={p} />
      <Memory c={c} />
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
      <details className="inspector-section inspector-decisions-box">
        <summary>
          <h3>The builder’s decisions, message by message</h3>
        </summary>
        <Decisions title="Kept" items={p.build.kept} testId="inspector-kept" />
        <Decisions title="Dropped" items={p.build.dropped} testId="inspector-dropped" />
        <Decisions title="Shortened" items={p.build.compressed} testId="inspector-compressed" />
      </details>
    </div>
  )
}

/** What the model remembers beyond the recent messages. */
function Memory({ c }: { c: Preview['conversation'] }) {
  const pins = c.pins ?? []
  const recalled = c.recalled ?? []
  const compactions = c.compactions ?? []
  return (
    <section className="inspector-section inspector-memory" data-testid="inspector-memory">
      <h3>What the model remembers</h3>
      {!c.summary && pins.length === 0 && recalled.length === 0 && compactions.length === 0 ? (
        <p className="hint" data-testid="inspector-memory-empty">
          Everything fits: the whole conversation goes to the model as it is. Once it outgrows the context, the older messages become a summary (or type /compact).
        </p>
      ) : (
        <>
          <div className="memory-block" data-testid="inspector-summary-text">
            <h4>
              Summary{c.summary ? ` · ${formatTokens(c.summary.tokens)} tokens` : ''}
              {c.compacted > 0 ? ` · replaces ${count(c.compacted, 'message')}` : ''}
            </h4>
            {c.summary ? (
              <div className="memory-summary">
                <Markdown text={c.summary.screen || c.summary.text} />
              </div>
            ) : (
              <p className="hint">No summary yet.</p>
            )}
          </div>
          <div className="memory-block" data-testid="inspector-pins">
            <h4>Pinned and kept word for word · {pins.length}</h4>
            {pins.length === 0 ? (
              <p className="hint">Nothing is pinned. Pin a message (under it) to keep it word for word through every compaction.</p>
            ) : (
              <ul className="memory-list">
                {pins.map((pin) => (
                  <PinItem key={pin.id} pin={pin} />
                ))}
              </ul>
            )}
          </div>
          <div className="memory-block" data-testid="inspector-recalled">
            <h4>Recalled for your newest message · {recalled.length}</h4>
            {recalled.length === 0 ? (
              <p className="hint">No compacted message matches the newest message.</p>
            ) : (
              <ul className="memory-list">
                {recalled.map((r) => (
                  <li key={r.id} data-testid="inspector-recall" title={r.why}>
                    <div>
                      <strong>{whoOf(r.role, r.tool)}:</strong> {clip(r.text, 300)}
                    </div>
                    <div className="memory-why" data-testid="inspector-recall-why">
                      Recalled because it {recallReason(r)}.
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </div>
          <div className="memory-block" data-testid="inspector-compactions">
            <h4>Compactions · {compactions.length}</h4>
            {compactions.length === 0 ? (
              <p className="hint">None yet.</p>
            ) : (
              <ul className="memory-list">
                {compactions.map((x) => (
                  <CompactionItem key={x.eventId} x={x} />
                ))}
              </ul>
            )}
          </div>
        </>
      )}
    </section>
  )
}

function PinItem({ pin }: { pin: Pin }) {
  const where = pin.dropped
    ? 'left out of this request: it did not fit'
    : pin.inHistory
      ? 'in the request as it is'
      : pin.kind === 'record'
        ? 'kept for the model at the start of every request'
        : 'compacted, quoted word for word at the start of the request'
  return (
    <li data-testid="inspector-pin" title={pin.kind === 'record' ? pin.text : undefined}>
      <div>
        <strong>{whoOf(pin.role, pin.tool, pin.kind)}:</strong> {clip(pin.words || pin.text, 300)}
      </div>
      <div className="memory-why">{where}</div>
    </li>
  )
}

function CompactionItem({ x }: { x: CompactionRef }) {
  const when = x.createdAt ? timeAgo(x.createdAt) : ''
  const why = x.reason === 'manual' ? 'you asked' : x.reason === 'backfill' ? 'an older compaction given its summary' : 'the context was full'
  return (
    <li data-testid="inspector-compaction">
      {count(x.count, 'message')} · {why}
      {when ? ` · ${when}` : ''}
    </li>
  )
}

function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > n ? `${t.slice(0, n - 1)}…` : t
}

const previewHead = /^TOOL_RESULT_PREVIEW \((\d+) bytes[^)]*\)/

/** A request message in a line: its text (a large tool result said as
 * what it is), then its tool calls. */
export function excerpt(m: PreviewMessage): string {
  const calls = (m.tool_calls ?? []).map((c) => `→ ${c.function.name}(${c.function.arguments.slice(0, 80)})`).join(' ')
  let text = (m.content ?? '').replace(/\s+/g, ' ').trim()
  const large = previewHead.exec(m.content ?? '')
  if (large) text = `The beginning of a ${formatBytes(Number(large[1]))} result (the whole of it is saved; the model reads on with fs.read)`
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
    <section className="inspector-subsection" data-testid={testId}>
      <h4>
        {title}: {count(total, 'message')}
      </h4>
      {list.length > 0 && (
        <ul className="inspector-decisions">
          {list.slice(0, 200).map((d, i) => (
            <li key={i} title={d.throughId ? `${d.sourceId} … ${d.throughId}` : d.sourceId}>
              {d.count > 1 ? `${d.count} messages` : d.role ? whoOf(d.role) : 'A message'}: {d.reason}
            </li>
          ))}
          {list.length > 200 && <li className="hint">… {list.length - 200} more</li>}
        </ul>
      )}
    </section>
  )
}
