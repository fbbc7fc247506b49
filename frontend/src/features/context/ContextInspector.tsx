import { useEffect, useMemo, useState } from 'react'
import type { ContextPreview, PreviewDecision, PreviewMessage } from '../../bridge'
import { Markdown } from '../../components/Markdown'
import { Modal } from '../../components/Modal'
import { useStore, useStores } from '../../stores'
import { cacheSummary, costSummary, formatPercent, formatTokens, statusLabel } from './meter'
import { ProjectInstructions } from './ProjectInstructions'
import { formatBytes } from '../../lib/format'
import { timeAgo } from '../../lib/time'
import { toolPreview } from '../../lib/toolPreview'
import { screenSummary, toolSummary, toolTitle } from '../../lib/toolSummary'
import { t, formatNumber, useTranslation } from '../../i18n'

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
  const { t } = useTranslation()
  const { chat } = useStores()
  const preview = useStore(chat, (s) => s.preview)
  const loading = useStore(chat, (s) => s.previewLoading)
  const mode = useStore(chat, (s) => s.mode)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    void chat.actions.loadPreview().then((p) => setFailed(!p))
  }, [chat])

  return (
    <Modal title={t('insp.title')} onClose={onClose} wide testId="context-inspector">
      {loading && !preview && <p className="hint">{t('insp.building')}</p>}
      {failed && !loading && !preview && (
        <p className="hint" data-testid="inspector-unavailable">
          {mode === 'run' ? t('insp.noRun') : t('insp.failed')}
        </p>
      )}
      {preview && <PreviewBody p={preview} />}
    </Modal>
  )
}

/** Who wrote a message the context carries, in words. */
export function whoOf(role: string, tool?: string, kind?: string): string {
  if (kind === 'record') return t('who.record')
  if (kind === 'meta') return t('who.meta')
  switch (role) {
    case 'user':
      return t('who.user')
    case 'assistant':
      return t('who.assistant')
    case 'tool':
      return tool ? t('who.toolOf', { tool: toolTitle(tool) }) : t('who.tool')
  }
  return t('who.note')
}

/** Why a message was recalled, in words. */
export function recallReason(r: Recalled): string {
  const terms = (r.terms ?? []).filter((w) => w !== '…')
  const parts: string[] = []
  if (terms.length) parts.push(t('recall.shares', { terms: `${terms.slice(0, 5).map((w) => `“${w}”`).join(t('recall.sep'))}${terms.length > 5 ? `${t('recall.sep')}…` : ''}` }))
  if (r.meaning) parts.push(t('recall.meaning'))
  return parts.length ? parts.join(t('recall.and')) : t('recall.matches')
}

function PreviewBody({ p }: { p: Preview }) {
  const { t } = useTranslation()
  const { chat } = useStores()
  const agents = useStore(chat, (s) => s.speakers)
  const u = p.usage
  const status = u.status
  const c = p.conversation
  const agent = p.agentId ? (agents[p.agentId]?.name ?? p.agentId) : ''
  const calls = useMemo(() => callsOf(p.messages), [p.messages])
  return (
    <div className="inspector" data-testid="inspector-body">
      <dl className="inspector-summary">
        <div>
          <dt>{t('insp.used')}</dt>
          <dd data-testid="inspector-used" data-used={u.usedTokens} data-percent={u.usagePercent.toFixed(1)}>
            {t('insp.usedValue', { used: u.usedTokens, budget: u.totalBudget, pct: formatPercent(u.usagePercent) })}
          </dd>
        </div>
        <div>
          <dt>{t('insp.cache')}</dt>
          <dd data-testid="inspector-cache" data-cached={u.reported?.cachedTokens ?? 0}>
            {cacheSummary(u.reported)?.replace(/^(Prompt cache: |提示缓存：)/, '') ?? t('insp.noUsage')}
          </dd>
        </div>
        <div>
          <dt>{t('insp.usageCost')}</dt>
          <dd data-testid="inspector-cost" data-amount={u.cost?.amount ?? ''}>
            {costSummary(u.reported, u.cost, false) ?? t('insp.noUsage')}
          </dd>
        </div>
        <div>
          <dt>{t('insp.status')}</dt>
          <dd className={`status-text is-${status}`}>{statusLabel(status)}</dd>
        </div>
        <div>
          <dt>{t('insp.mode')}</dt>
          <dd title={p.agentId}>
            {p.mode}
            {agent ? ` · ${agent}` : ''}
          </dd>
        </div>
        <div>
          <dt>{t('insp.model')}</dt>
          <dd className="mono">{p.model || '–'}</dd>
        </div>
        <div>
          <dt>{t('insp.tools')}</dt>
          <dd>{p.toolNames.length ? t('insp.toolsValue', { names: p.toolNames.map(toolTitle).join(t('recall.sep')), tokens: formatTokens(p.toolTokens) }) : t('insp.none')}</dd>
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
          <h3>{t('insp.before')}</h3>
          <p>
            {t('insp.compacts', { count: p.compression.record.compactedIds.length, before: formatTokens(p.compression.before.usedTokens), after: formatTokens(p.compression.after.usedTokens) })}
            {p.compression.record.truncatedIds.length > 0 ? t('insp.shortened', { count: p.compression.record.truncatedIds.length }) : ''}
            {'.'}
          </p>
        </section>
      )}
      <ProjectInstructions preview={p} />
      <Memory c={c} />
      <section className="inspector-section">
        <h3>
          {t('insp.request', { count: p.messages.length, tokens: formatTokens(u.usedTokens) })}
        </h3>
        <table className="inspector-table" data-testid="inspector-messages">
          <thead>
            <tr>
              <th>#</th>
              <th>{t('insp.col.role')}</th>
              <th className="num">{t('insp.col.tokens')}</th>
              <th>{t('insp.col.content')}</th>
              <th>{t('insp.col.why')}</th>
            </tr>
          </thead>
          <tbody>
            {p.messages.map((m) => (
              <MessageRow key={m.index} m={m} calls={calls} />
            ))}
          </tbody>
        </table>
      </section>
      <details className="inspector-section inspector-decisions-box">
        <summary>
          <h3>{t('insp.decisions')}</h3>
        </summary>
        <Decisions title={t('insp.kept')} items={p.build.kept} testId="inspector-kept" />
        <Decisions title={t('insp.dropped')} items={p.build.dropped} testId="inspector-dropped" />
        <Decisions title={t('insp.shortenedTitle')} items={p.build.compressed} testId="inspector-compressed" />
      </details>
    </div>
  )
}

/** What the model remembers beyond the recent messages. */
function Memory({ c }: { c: Preview['conversation'] }) {
  const { t } = useTranslation()
  const pins = c.pins ?? []
  const recalled = c.recalled ?? []
  const compactions = c.compactions ?? []
  return (
    <section className="inspector-section inspector-memory" data-testid="inspector-memory">
      <h3>{t('insp.remembers')}</h3>
      {!c.summary && pins.length === 0 && recalled.length === 0 && compactions.length === 0 ? (
        <p className="hint" data-testid="inspector-memory-empty">
          {t('insp.fits')}
        </p>
      ) : (
        <>
          <div className="memory-block" data-testid="inspector-summary-text">
            <h4>
              {t('insp.summary')}
              {c.summary ? ` · ${t('insp.summaryTokens', { tokens: formatTokens(c.summary.tokens) })}` : ''}
              {c.compacted > 0 ? ` · ${t('insp.replaces', { count: c.compacted })}` : ''}
            </h4>
            {c.summary ? (
              <div className="memory-summary">
                <Markdown text={screenSummary(c.summary.screen || c.summary.text)} />
              </div>
            ) : (
              <p className="hint">{t('insp.noSummary')}</p>
            )}
          </div>
          <div className="memory-block" data-testid="inspector-pins">
            <h4>{t('insp.pinned', { count: pins.length })}</h4>
            {pins.length === 0 ? (
              <p className="hint">{t('insp.noPins')}</p>
            ) : (
              <ul className="memory-list">
                {pins.map((pin) => (
                  <PinItem key={pin.id} pin={pin} />
                ))}
              </ul>
            )}
          </div>
          <div className="memory-block" data-testid="inspector-recalled">
            <h4>{t('insp.recalled', { count: recalled.length })}</h4>
            {recalled.length === 0 ? (
              <p className="hint">{t('insp.noRecall')}</p>
            ) : (
              <ul className="memory-list">
                {recalled.map((r) => (
                  <li key={r.id} data-testid="inspector-recall" title={r.why}>
                    <div>
                      <strong>{whoOf(r.role, r.tool)}:</strong> {clip(readableText(r.text), 300)}
                    </div>
                    <div className="memory-why" data-testid="inspector-recall-why">
                      {t('insp.recallBecause', { reason: recallReason(r) })}
                    </div>
                  </li>
                ))}
              </ul>
            )}
          </div>
          <div className="memory-block" data-testid="inspector-compactions">
            <h4>{t('insp.compactions', { count: compactions.length })}</h4>
            {compactions.length === 0 ? (
              <p className="hint">{t('insp.noneYet')}</p>
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
    ? t('pinWhere.dropped')
    : pin.inHistory
      ? t('pinWhere.inHistory')
      : pin.kind === 'record'
        ? t('pinWhere.record')
        : t('pinWhere.compacted')
  return (
    <li data-testid="inspector-pin" title={pin.kind === 'record' ? pin.text : undefined}>
      <div>
        <strong>{whoOf(pin.role, pin.tool, pin.kind)}:</strong> {clip(pin.words || readableText(pin.text), 300)}
      </div>
      <div className="memory-why">{where}</div>
    </li>
  )
}

function CompactionItem({ x }: { x: CompactionRef }) {
  const when = x.createdAt ? timeAgo(x.createdAt) : ''
  const why = x.reason === 'manual' ? t('compaction.youAsked') : x.reason === 'backfill' ? t('compactWhy.backfill') : t('compaction.full')
  return (
    <li data-testid="inspector-compaction">
      {t('count.messages', { count: x.count })} · {why}
      {when ? ` · ${when}` : ''}
    </li>
  )
}

function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim()
  return t.length > n ? `${t.slice(0, n - 1)}…` : t
}

const previewHead = /^TOOL_RESULT_PREVIEW \((\d+) bytes[^)]*\)/

/** A tool call of a request, by its id: its name and arguments. */
export type CallsById = Map<string, { name: string; args: string }>

/** The tool calls of a request's messages, by id. */
export function callsOf(messages: PreviewMessage[]): CallsById {
  const out: CallsById = new Map()
  for (const m of messages) for (const c of m.tool_calls ?? []) out.set(c.id, { name: c.function.name, args: c.function.arguments })
  return out
}

/** A message's text for a person: a tool result's JSON said as what the
 * call did (or the text it carries), never the JSON itself. */
export function readableText(text: string, call?: { name: string; args: string }): string {
  const s = text.trimStart()
  if (!s.startsWith('{') && !s.startsWith('[')) return text
  const carried = toolPreview(s)
  if (call) {
    const what = toolSummary(call.name, call.args, s).replace(/`/g, '')
    return carried ? `${what}: ${carried}` : what
  }
  return carried ?? t('insp.toolData')
}

/** A request message in a line: its text (a large tool result said as
 * what it is, a result's JSON as what the call did), then its tool calls
 * in words. */
export function excerpt(m: PreviewMessage, calls: CallsById = new Map()): string {
  const said = (m.tool_calls ?? []).map((c) => `→ ${toolSummary(c.function.name, c.function.arguments).replace(/`/g, '')}`).join(' ')
  let text = readableText(m.content ?? '', m.tool_call_id ? calls.get(m.tool_call_id) : undefined)
    .replace(/\s+/g, ' ')
    .trim()
  const large = previewHead.exec(m.content ?? '')
  if (large) text = t('insp.largeResult', { size: formatBytes(Number(large[1])) })
  const s = [text, said].filter(Boolean).join(' ')
  return s.length > 220 ? `${s.slice(0, 219)}…` : s
}

function MessageRow({ m, calls }: { m: PreviewMessage; calls: CallsById }) {
  const { t } = useTranslation()
  return (
    <tr className={`kind-${m.kind}`} data-testid="inspector-row">
      <td className="num">{m.index}</td>
      <td>
        {m.role}
        {m.kind !== 'history' && <span className="badge">{m.kind}</span>}
      </td>
      <td className="num">{formatNumber(m.tokens)}</td>
      <td className="inspector-excerpt" data-content={m.role === 'system' ? '' : undefined}>
        {(m.skills?.length ?? 0) > 0 && (
          <span className="inspector-skill-pin" title={t('insp.skillTitle')} data-testid="inspector-skill-pin">
            {t('insp.skill', { names: m.skills?.join(', ') })}
          </span>
        )}
        {excerpt(m, calls)}
      </td>
      <td className="inspector-reason">{m.reason}</td>
    </tr>
  )
}

function Decisions({ title, items, testId }: { title: string; items?: PreviewDecision[]; testId: string }) {
  const { t } = useTranslation()
  const list = items ?? []
  const total = list.reduce((n, d) => n + (d.count || 1), 0)
  return (
    <section className="inspector-subsection" data-testid={testId}>
      <h4>
        {t('insp.decisionTitle', { title, count: t('count.messages', { count: total }) })}
      </h4>
      {list.length > 0 && (
        <ul className="inspector-decisions">
          {list.slice(0, 200).map((d, i) => (
            <li key={i} title={d.throughId ? `${d.sourceId} … ${d.throughId}` : d.sourceId}>
              {d.count > 1 ? t('count.messages', { count: d.count }) : d.role ? whoOf(d.role) : t('insp.aMessage')}: {d.reason}
            </li>
          ))}
          {list.length > 200 && <li className="hint">{t('insp.more', { count: list.length - 200 })}</li>}
        </ul>
      )}
    </section>
  )
}
