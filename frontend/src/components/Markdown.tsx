import { Component, memo, useCallback, useEffect, useMemo, useState, type MouseEvent, type ReactNode } from 'react'
import { allowedHref, limits, plainNote, plainReason, renderBlock, renderMarkdownCached, splitBlocks, warmUp } from '../markdown/markdown'
import { useStores } from '../stores'
import './Markdown.css'

/** Model text as sanitised markdown (src/markdown). Links open in the system
 * browser; nothing navigates the webview. A long text is formatted block by
 * block over several frames (ProgressiveBlocks). If rendering fails, the raw
 * text is shown instead (MarkdownBoundary). */
export const Markdown = memo(function Markdown({ text, className = '' }: { text: string; className?: string }) {
  const onClick = useLinkClick()
  const [showAll, setShowAll] = useState(false)
  const reason = useMemo(() => plainReason(text), [text])
  const blocks = useMemo(() => (text.length > limits.progressiveChars && !reason ? splitBlocks(text) : null), [text, reason])
  if (reason && text.length > limits.plainShowChars && !showAll) {
    return <PlainHead text={text} reason={reason} onShowAll={() => setShowAll(true)} />
  }
  return (
    <MarkdownBoundary text={text}>
      {blocks ? (
        <div className={`md ${className}`} onClick={onClick}>
          <ProgressiveBlocks key={text} blocks={blocks} />
        </div>
      ) : (
        <div className={`md ${className}`} onClick={onClick} dangerouslySetInnerHTML={{ __html: renderMarkdownCached(text) }} />
      )}
    </MarkdownBoundary>
  )
})

/** The start of a very long text shown as plain text; the rest on request (or,
 * while it streams, not yet). */
function PlainHead({ text, reason, onShowAll }: { text: string; reason: string; onShowAll?: () => void }) {
  const rest = text.length - limits.plainShowChars
  return (
    <div className="md" data-testid="md-plain-head">
      <p className="md-plain-note">{plainNote(reason)}</p>
      <pre className="md-plain">{text.slice(0, limits.plainShowChars)}</pre>
      <p className="md-plain-note">
        {rest.toLocaleString('en-US')} more characters are not shown.{' '}
        {onShowAll && (
          <button type="button" className="btn btn-small" onClick={onShowAll} data-testid="md-show-all">
            Show all
          </button>
        )}
      </p>
    </div>
  )
}

/** Time a frame may spend formatting. */
const frameBudgetMs = 40

/** Consecutive blocks are formatted together up to about this size: each pass of
 * the parser and the sanitiser has a fixed cost, and a long answer of short
 * paragraphs would pay it thousands of times. Blocks end where the parser's own
 * blocks end, so a unit renders exactly as that part of the whole text. */
const unitChars = 4_000

/** Joins consecutive blocks into units of about unitChars. */
function unitsOf(blocks: string[]): string[] {
  const out: string[] = []
  let cur = ''
  for (const b of blocks) {
    if (b.length >= unitChars) {
      // a big block stands alone (it may be shown as plain text: see renderBlock)
      if (cur) out.push(cur)
      out.push(b)
      cur = ''
      continue
    }
    cur += b
    if (cur.length >= unitChars) {
      out.push(cur)
      cur = ''
    }
  }
  if (cur) out.push(cur)
  return out
}

/** Formats units from `from` on (filling the cache) until the budget is spent,
 * at least one; returns how many are formatted. */
function formatWithin(units: string[], from: number, budgetMs: number): number {
  if (from >= units.length) return from
  const t0 = performance.now()
  let i = from
  do {
    renderBlock(units[i])
    i++
  } while (i < units.length && performance.now() - t0 < budgetMs)
  return i
}

/** A long text formatted a frame's budget at a time; what is not formatted yet
 * shows as plain text until its turn comes. */
function ProgressiveBlocks({ blocks }: { blocks: string[] }) {
  const units = useMemo(() => unitsOf(blocks), [blocks])
  return <ProgressiveUnits units={units} />
}

/** Units formatted a frame's budget at a time (the first ones at once), the
 * others shown as plain text meanwhile. Units are only ever added at the end. */
function ProgressiveUnits({ units }: { units: string[] }) {
  const [done, setDone] = useState(() => formatWithin(units, 0, frameBudgetMs))
  const shown = Math.min(done, units.length)
  useEffect(() => {
    if (shown >= units.length) return
    const h = setTimeout(() => setDone(formatWithin(units, shown, frameBudgetMs)), 0)
    return () => clearTimeout(h)
  }, [units, shown])
  return (
    <>
      {units.map((u, i) =>
        i < shown ? (
          <MarkdownBlock key={i} text={u} />
        ) : (
          <div key={i} className="md-block md-pending">
            <pre className="md-plain">{u}</pre>
          </div>
        ),
      )}
    </>
  )
}

/** The parts of a streaming text, worked out incrementally: the text only grows,
 * so only what follows the last complete block is split again. Complete blocks
 * are joined into units (unitsOf) that never change once full; `open` collects
 * the complete blocks of the unit being filled; `tail` is the block still
 * growing. */
function useStreamParts(text: string): { units: string[]; open: string; tail: string } {
  const [state] = useState(() => ({ prefix: '', units: [] as string[], open: '' }))
  if (!text.startsWith(state.prefix)) {
    state.prefix = ''
    state.units = []
    state.open = ''
  }
  const parts = splitBlocks(text.slice(state.prefix.length))
  for (const b of parts.slice(0, -1)) {
    state.prefix += b
    if (b.length >= unitChars) {
      state.units = state.open ? [...state.units, state.open, b] : [...state.units, b]
      state.open = ''
      continue
    }
    state.open += b
    if (state.open.length >= unitChars) {
      state.units = [...state.units, state.open]
      state.open = ''
    }
  }
  return { units: state.units, open: state.open, tail: parts[parts.length - 1] }
}

/** An answer as it streams in. It is cut into blocks (see splitBlocks), joined
 * into units of a few KB: the units already complete are rendered once and
 * kept, and only the unit being filled and the block still growing are
 * rendered again as text arrives — the growing block as plain text once it is
 * long (see limits.liveBlockChars) — so the work per chunk does not grow with
 * the length of the answer. */
export const LiveMarkdown = memo(function LiveMarkdown({ text, className = '' }: { text: string; className?: string }) {
  const onClick = useLinkClick()
  const reason = plainReason(text)
  const plain = reason !== ''
  const { units, open, tail } = useStreamParts(plain ? '' : text)
  if (plain && text.length > limits.plainShowChars) return <PlainHead text={text} reason={reason} />
  return (
    <MarkdownBoundary text={text}>
      <div className={`md md-live ${className}`} onClick={onClick}>
        {plain ? (
          <MarkdownBlock text={text} />
        ) : (
          <>
            <ProgressiveUnits key="units" units={units} />
            <MarkdownBlock key="open" text={open} />
            {tail.length > limits.liveBlockChars ? <GrowingBlock key="tail" text={tail} /> : <MarkdownBlock key="tail" text={tail} />}
          </>
        )}
      </div>
    </MarkdownBoundary>
  )
})

/** A long block still arriving: its text, formatted once it is complete. */
function GrowingBlock({ text }: { text: string }) {
  return (
    <div className="md-block">
      <pre className="md-plain" data-testid="md-growing">
        {text}
      </pre>
    </div>
  )
}

const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: renderBlock(text) }} />
})

/** Opens allowed links in the system browser. */
function useLinkClick() {
  const { appInfo } = useStores()
  return useCallback(
    (ev: MouseEvent<HTMLDivElement>) => {
      const a = (ev.target as HTMLElement).closest?.('a')
      if (!a) return
      ev.preventDefault()
      const href = allowedHref(a.getAttribute('href') ?? '')
      if (href) appInfo.actions.openExternal(href)
    },
    [appInfo],
  )
}

/** Shows the raw text when rendering its markdown throws; a new text is tried again. */
export class MarkdownBoundary extends Component<{ text: string; children: ReactNode }, { failed: boolean }> {
  state = { failed: false }

  static getDerivedStateFromError() {
    return { failed: true }
  }

  componentDidUpdate(prev: { text: string }) {
    if (this.state.failed && prev.text !== this.props.text) this.setState({ failed: false })
  }

  render() {
    if (!this.state.failed) return this.props.children
    return (
      <div className="md" data-testid="md-raw">
        <p className="md-plain-note">Shown as plain text: this answer could not be formatted.</p>
        <pre className="md-raw">{this.props.text}</pre>
      </div>
    )
  }
}

/** Renders the markdown warm-up sample and lays it out once, hidden and off
 * screen, then removes it: the first conversation opened then finds the
 * pipeline compiled and the fonts of text, bold and code already matched
 * and loaded, which otherwise costs its first layout about 100 ms. */
export function warmUpMarkdownView(root: HTMLElement = document.body) {
  const el = document.createElement('div')
  el.className = 'md'
  el.setAttribute('aria-hidden', 'true')
  el.style.cssText = 'position:absolute;left:-10000px;top:0;width:640px;visibility:hidden;pointer-events:none'
  el.innerHTML = warmUp()
  root.appendChild(el)
  el.getBoundingClientRect() // forces style and layout now
  el.remove()
}
