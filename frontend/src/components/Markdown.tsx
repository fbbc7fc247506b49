import { Component, memo, useCallback, useEffect, useMemo, useReducer, useRef, useState, type MouseEvent, type ReactNode } from 'react'
import { allowedHref, hideOpenLink, limits, plainNote, plainReason, renderBlock, renderMarkdownCached, splitBlocks, warmUp } from '../markdown/markdown'
import { copyText } from '../lib/clipboard'
import { useStores } from '../stores'
import './Markdown.css'
import { t, useTranslation } from '../i18n'

/** Model text as sanitised markdown (src/markdown). Links open in the system
 * browser; nothing navigates the webview. A long text is formatted block by
 * block over several frames (ProgressiveBlocks). If rendering fails, the raw
 * text is shown instead (MarkdownBoundary). */
export const Markdown = memo(function Markdown({ text, className = '' }: { text: string; className?: string }) {
  useTranslation() // drawn again in another language (the code blocks' buttons)
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
  const { t } = useTranslation()
  const rest = text.length - limits.plainShowChars
  return (
    <div className="md" data-testid="md-plain-head">
      <p className="md-plain-note">{plainNote(reason)}</p>
      <pre className="md-plain">{text.slice(0, limits.plainShowChars)}</pre>
      <p className="md-plain-note">
        {t('markdown.moreChars', { count: rest })}{' '}
        {onShowAll && (
          <button type="button" className="btn btn-small" onClick={onShowAll} data-testid="md-show-all">
            {t('common.showAll')}
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

/** A unit: a text formatted in one pass (a long answer shown whole), or the
 * complete blocks of a streamed answer, each formatted once as it completed
 * and joined (a unit never formats text it formatted before). */
type Unit = string | readonly string[]

const unitText = (u: Unit) => (typeof u === 'string' ? u : u.join(''))
const renderUnit = (u: Unit) => (typeof u === 'string' ? renderBlock(u) : u.map((b) => renderBlock(b)).join(''))

/** Formats units from `from` on (filling the cache) until the budget is spent,
 * at least one; returns how many are formatted. */
function formatWithin(units: readonly Unit[], from: number, budgetMs: number): number {
  if (from >= units.length) return from
  const t0 = performance.now()
  let i = from
  do {
    renderUnit(units[i])
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
 * others shown as plain text meanwhile. Units are only ever added at the end;
 * those added are formatted as they come, within the budget (at once when
 * their blocks are formatted already, as a streamed answer's are). */
function ProgressiveUnits({ units }: { units: readonly Unit[] }) {
  const done = useRef(0)
  const [, next] = useReducer((n: number) => n + 1, 0)
  // Formatting only fills the cache, so doing it while rendering is safe.
  if (done.current < units.length) done.current = formatWithin(units, done.current, frameBudgetMs)
  const shown = done.current
  useEffect(() => {
    if (shown >= units.length) return
    const h = setTimeout(next, 0)
    return () => clearTimeout(h)
  }, [units, shown])
  return (
    <>
      {units.map((u, i) =>
        i < shown ? (
          <UnitBlock key={i} unit={u} />
        ) : (
          <div key={i} className="md-block md-pending">
            <pre className="md-plain">{unitText(u)}</pre>
          </div>
        ),
      )}
    </>
  )
}

/** The parts of a streaming text, worked out incrementally: the text only grows,
 * so only what follows the last complete block is split again. Complete blocks
 * are grouped into units (of about unitChars, as unitsOf does) that never change
 * once full; `open` holds the complete blocks of the unit being filled; `tail`
 * is the block still growing. Each complete block is formatted once (and
 * cached): a unit is its blocks' HTML joined, so filling or closing a unit
 * never formats its text again. */
function useStreamParts(text: string): { units: readonly (readonly string[])[]; open: readonly string[]; tail: string } {
  const [state] = useState(() => ({ prefix: '', units: [] as (readonly string[])[], open: [] as string[], openChars: 0 }))
  if (!text.startsWith(state.prefix)) {
    state.prefix = ''
    state.units = []
    state.open = []
    state.openChars = 0
  }
  const parts = splitBlocks(text.slice(state.prefix.length))
  for (const b of parts.slice(0, -1)) {
    state.prefix += b
    if (b.length >= unitChars) {
      // a big block stands alone (it may be shown as plain text: see renderBlock)
      state.units = state.open.length ? [...state.units, state.open, [b]] : [...state.units, [b]]
      state.open = []
      state.openChars = 0
      continue
    }
    state.open = [...state.open, b]
    state.openChars += b.length
    if (state.openChars >= unitChars) {
      state.units = [...state.units, state.open]
      state.open = []
      state.openChars = 0
    }
  }
  return { units: state.units, open: state.open, tail: parts[parts.length - 1] }
}

/** An answer as it streams in. It is cut into blocks (see splitBlocks): each
 * complete block is formatted once, when it completes, and kept; only the
 * block still growing is formatted again as text arrives — as plain text once
 * it is long (see limits.liveBlockChars) — so the work per chunk does not grow
 * with the length of the answer. Complete blocks are shown in units of a few KB
 * (fewer elements for a long answer). */
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
          <GrowingMarkdown text={text} />
        ) : (
          <>
            <ProgressiveUnits key="units" units={units} />
            {open.map((b, i) => (
              <MarkdownBlock key={`open:${units.length}:${i}`} text={b} />
            ))}
            {tail.length > limits.liveBlockChars ? <GrowingBlock key="tail" text={tail} /> : <GrowingMarkdown key="tail" text={hideOpenLink(tail)} />}
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

/** The block still arriving, formatted (each version once: not cached). */
const GrowingMarkdown = memo(function GrowingMarkdown({ text }: { text: string }) {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: renderBlock(text, false) }} />
})

const MarkdownBlock = memo(function MarkdownBlock({ text }: { text: string }) {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: renderBlock(text) }} />
})

const UnitBlock = memo(function UnitBlock({ unit }: { unit: Unit }) {
  return <div className="md-block" dangerouslySetInnerHTML={{ __html: renderUnit(unit) }} />
})

/** Copy and Wrap in the header of a code block (see addCodeTools): Copy
 * copies the code and says so for a moment; Wrap wraps long lines. */
function codeAction(button: HTMLButtonElement) {
  const block = button.closest('.md-codeblock')
  if (!block) return
  if (button.dataset.codeAction === 'wrap') {
    const on = block.classList.toggle('is-wrapped')
    button.setAttribute('aria-pressed', String(on))
    return
  }
  const code = block.querySelector('pre code')?.textContent ?? ''
  void copyText(code).then((ok) => {
    button.dataset.state = ok ? 'copied' : 'failed'
    button.textContent = ok ? t('common.copied') : t('common.copyFailed')
    clearTimeout(copyTimers.get(button))
    copyTimers.set(
      button,
      setTimeout(() => {
        button.dataset.state = 'idle'
        button.textContent = t('common.copy')
      }, 1500),
    )
  })
}
const copyTimers = new WeakMap<HTMLElement, ReturnType<typeof setTimeout>>()

/** Opens allowed links in the system browser; runs the buttons of code blocks. */
function useLinkClick() {
  const { appInfo } = useStores()
  return useCallback(
    (ev: MouseEvent<HTMLDivElement>) => {
      const tool = (ev.target as HTMLElement).closest?.('button[data-code-action]')
      if (tool) {
        ev.preventDefault()
        codeAction(tool as HTMLButtonElement)
        return
      }
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
        <p className="md-plain-note">{t('markdown.plain.error')}</p>
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
